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
