import Foundation
import SpotterCore
import Testing

@Suite("JSON parsing")
struct JSONParserTests {
    @Test func readsEveryKindOfValue() throws {
        let text =
            #" { "s": "a\"b\\c\/d\n\u00e9\ud83d\ude00", "i": -42, "d": 102.5, "e": 1e3, "t": true, "f": false, "n": null, "a": [1, [], {}] } "#
        let value = try #require(JSONValue.parse(text))
        #expect(value["s"] == .string("a\"b\\c/d\né😀"))
        #expect(value["i"] == .int(-42))
        #expect(value["d"] == .double(102.5))
        #expect(value["e"] == .double(1000))
        #expect(value["t"] == .bool(true) && value["f"] == .bool(false) && value["n"] == .null)
        #expect(value["a"] == .array([.int(1), .array([]), .object([:])]))
    }

    @Test func agreesWithFoundationOnCanonicalRoundTrips() throws {
        let samples = [
            #"{"id":"x","weight":100.25,"reps":5,"notes":"line\nbreak \"quoted\"","rpe":null}"#,
            #"[0,-0.5,12345678901234,1.5e-7,"ünïcødé",[true,false]]"#,
        ]
        for sample in samples {
            let ours = try #require(JSONValue.parse(sample))
            let theirs = try JSONDecoder().decode(JSONValue.self, from: Data(sample.utf8))
            #expect(ours == theirs)
            #expect(JSONValue.parse(ours.canonicalString) == ours)
        }
    }

    /// The bytes the idempotency fingerprint is taken over: any change here is a change of contract.
    @Test func writesTheCanonicalFormOfEveryKindOfValue() throws {
        let value: JSONValue = .object([
            "z": .array([
                .int(0), .int(-7), .int(Int64.max), .int(Int64.min), .double(2.0), .double(-0.25), .double(1e20),
            ]),
            "a": .string("tab\t quote\" back\\ nl\n cr\r bs\u{08} ff\u{0C} nul\u{01} é 😀"),
            "é": .bool(true), "B": .null, "m": .object(["y": .bool(false), "x": .array([])]),
        ])
        let expected =
            #"{"B":null,"a":"tab\t quote\" back\\ nl\n cr\r bs\b ff\f nul\u0001 é 😀","m":{"x":[],"y":false},"#
            + #""z":[0,-7,9223372036854775807,-9223372036854775808,2,-0.25,1e+20],"é":true}"#
        #expect(value.canonicalString == expected)
        #expect(value.canonicalData == Data(expected.utf8))
        #expect(JSONValue.parse(expected) == value)
    }

    @Test func readsIntegersOfEveryLength() throws {
        let text = "[0,-0,7,-7,123456789012345678,-123456789012345678,9223372036854775807,-9223372036854775808]"
        #expect(
            JSONValue.parse(text)
                == .array([
                    .int(0), .int(0), .int(7), .int(-7), .int(123_456_789_012_345_678), .int(-123_456_789_012_345_678),
                    .int(Int64.max), .int(Int64.min),
                ]))
        #expect(JSONValue.parse("[9223372036854775808]") == .array([.double(9_223_372_036_854_775_808)]))
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":}", "{\"a\" 1}", "01", "1.", "-", "1e", "tru", "nul", "\"open",
        "\"bad \\x escape\"", "\"\u{01}\"", "{} {}", "[1] x", "\"\\ud800\"",
    ])
    func refusesWhatIsNotJSON(text: String) {
        #expect(JSONValue.parse(text) == nil)
    }

    @Test func refusesNestingDeeperThanItsLimit() {
        #expect(JSONValue.parse(String(repeating: "[", count: 100) + String(repeating: "]", count: 100)) != nil)
        #expect(JSONValue.parse(String(repeating: "[", count: 600) + String(repeating: "]", count: 600)) == nil)
    }
}
