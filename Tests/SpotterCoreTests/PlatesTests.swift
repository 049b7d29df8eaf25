import Foundation
import SpotterCore
import Testing

/// The plate calculator, the rounding that never stalls a progression, and the warm-up ramp.
@Suite("Plates and warm-ups")
struct PlatesTests {
    let kg = PlateSet.standard(.kg)
    let lb = PlateSet.standard(.lb)

    @Test("an exact weight is loaded with the fewest plates, heaviest first, the same on each side")
    func exact() throws {
        #expect(Plates.load(140, on: kg)?.text == "20 + 2×25 + 10 per side")
        #expect(Plates.load(100, on: kg)?.perSide == [25, 15])
        #expect(Plates.load(62.5, on: kg)?.text == "20 + 20 + 1.25 per side")
        #expect(Plates.load(20, on: kg)?.text == "bar only (20 kg)")
        #expect(Plates.load(225, on: lb)?.text == "45 + 2×45 per side")
        #expect(Plates.load(135, on: lb)?.perSide == [45])
        #expect(Plates.load(140, on: lb)?.text == "45 + 45 + 2.5 per side")
        // Every loading adds up: the bar plus the same plates on both sides.
        for tenth in stride(from: 200, through: 3_000, by: 5) {
            let weight = Double(tenth) / 10
            guard let loading = Plates.load(weight, on: kg) else { continue }
            #expect(abs(loading.bar + 2 * loading.perSide.reduce(0, +) - weight) < 1e-9)
            #expect(loading.perSide == loading.perSide.sorted(by: >))
        }
    }

    @Test("a weight the plates cannot make names the loadable weights either side")
    func impossible() throws {
        #expect(Plates.load(101, on: kg) == nil)
        #expect(Plates.nearest(101, on: kg) == (100, 102.5))
        #expect(Plates.load(61, on: kg) == nil, "an odd amount per side")
        #expect(Plates.nearest(15, on: kg) == (nil, 20), "below the bar")
        #expect(Plates.nearest(100, on: kg) == (100, 100), "a loadable weight is its own neighbour")
        #expect(Plates.nearest(137, on: lb) == (135, 140))
        #expect(Plates.load(.nan, on: kg) == nil)
        #expect(Plates.load(.infinity, on: kg) == nil)
        #expect(Plates.load(-20, on: kg) == nil)
        #expect(Plates.nearest(.nan, on: kg) == (nil, nil))
        let huge = Plates.nearest(1e12, on: kg)
        #expect(huge.above == nil)
        #expect((huge.below ?? 0) > 1_000, "the heaviest loadable weight the table covers")
        #expect(Plates.rounded(101, on: kg) == 100)
        #expect(Plates.rounded(101.25, on: kg) == 100, "a tie rounds to the lighter")
        #expect(Plates.rounded(101.5, on: kg) == 102.5)
    }

    @Test("a custom bar and plates: a 15 kg bar, a trap bar, a home gym without small plates")
    func custom() throws {
        let women = try PlateSet(unit: .kg, bar: 15, plates: [10, 5, 2.5])
        #expect(Plates.load(40, on: women)?.text == "15 + 10 + 2.5 per side")
        #expect(Plates.load(41, on: women) == nil)
        #expect(Plates.nearest(41, on: women) == (40, 45))
        let trap = try PlateSet(unit: .kg, bar: 25, plates: [20, 10])
        #expect(Plates.load(105, on: trap)?.text == "25 + 2×20 per side")
        #expect(Plates.nearest(110, on: trap) == (105, 125))
        // The set is kept heaviest first, each plate once; bad plates are refused.
        #expect(try PlateSet(unit: .kg, bar: 20, plates: [5, 25, 5, 10]).plates == [25, 10, 5])
        #expect(throws: ValidationError.self) { try PlateSet(unit: .kg, bar: 20, plates: []) }
        #expect(throws: ValidationError.self) { try PlateSet(unit: .kg, bar: 20, plates: [0]) }
        #expect(throws: ValidationError.self) { try PlateSet(unit: .kg, bar: 20, plates: [1.255]) }
        #expect(throws: ValidationError.self) { try PlateSet(unit: .kg, bar: -1, plates: [5]) }
        #expect(throws: ValidationError.self) { try PlateSet(unit: .kg, bar: 20, plates: [.infinity]) }
        #expect(try PlateSet.parsePlates("25, 20,15,10,5,2.5,1.25") == [25, 20, 15, 10, 5, 2.5, 1.25])
        for hostile in ["25,💪🏽,5", "25,,5", "e\u{301}", "\u{202E}5", "25;20", "\u{1B}[2J"] {
            #expect(throws: ValidationError.self) { try PlateSet.parsePlates(hostile) }
        }
        let error = #expect(throws: ValidationError.self) { try PlateSet.parsePlates("5,\u{1B}[2J") }
        #expect(error?.message.contains("\u{1B}") == false, "a control character is never echoed")
    }

    @Test("progression rounds to loadable weights and never stalls: a step too small moves to the next one")
    func progression() throws {
        #expect(Plates.progressed(from: 100, by: 2.5, on: kg) == 102.5)
        #expect(Plates.progressed(from: 100, by: 5, on: kg) == 105)
        #expect(Plates.progressed(from: 100, by: 1, on: kg) == 102.5, "1 kg rounds to nothing: the next step")
        let bigPlates = try PlateSet(unit: .kg, bar: 20, plates: [20, 10, 5])
        #expect(Plates.progressed(from: 100, by: 2.5, on: bigPlates) == 110, "the smallest step is 2 × 5 kg")
        #expect(Plates.progressed(from: 100, by: 7.5, on: bigPlates) == 110)
        #expect(Plates.progressed(from: 100, by: -10, on: bigPlates) == 90)
        #expect(Plates.progressed(from: 100, by: -1, on: bigPlates) == 90, "a deload moves down a step")
        #expect(Plates.progressed(from: 20, by: -5, on: kg) == 20, "never below the bar")
        #expect(Plates.progressed(from: 135, by: 5, on: lb) == 140)
        #expect(Plates.progressed(from: 135, by: 2, on: lb) == 140)
        // Run a year of small increments: the weight always moves.
        var weight = 60.0
        for _ in 0..<52 {
            let next = Plates.progressed(from: weight, by: 1, on: kg)
            #expect(next > weight)
            #expect(Plates.load(next, on: kg) != nil)
            weight = next
        }
    }

    @Test("the warm-up ramp: bar, 40, 60, 80 % rounded down to loadable weights, none repeated, none for light work")
    func warmups() throws {
        let scheme = WarmupScheme.standard
        #expect(scheme.ramp(to: 100, on: kg).map(\.weight) == [20, 40, 60, 80])
        #expect(scheme.ramp(to: 100, on: kg).map(\.reps) == [10, 5, 3, 2])
        #expect(scheme.ramp(to: 100, on: kg).allSatisfy { $0.kind == .warmup })
        #expect(scheme.ramp(to: 140, on: kg).map(\.weight) == [20, 55, 82.5, 110])
        #expect(scheme.ramp(to: 40, on: kg).map(\.weight) == [20, 22.5, 30], "40 % rounds to the bar: once")
        #expect(scheme.ramp(to: 30, on: kg).isEmpty, "light: no ramp")
        #expect(scheme.ramp(to: 20, on: kg).isEmpty)
        #expect(scheme.ramp(to: .nan, on: kg).isEmpty)
        #expect(scheme.ramp(to: 225, on: lb).map(\.weight) == [45, 90, 135, 180])
        // Past the plates' reach (1020 kg with this set) a step is left out, never loaded as the
        // most they reach under another percentage.
        let reach = try #require(Plates.nearest(10_000, on: kg).below)
        #expect(scheme.ramp(to: 2000, on: kg).map(\.weight) == [20, 800])
        #expect(scheme.ramp(to: 2000, on: kg).allSatisfy { $0.weight < reach })
        for working in stride(from: 31.0, through: 300, by: 2.5) {
            let ramp = scheme.ramp(to: working, on: kg)
            #expect(ramp.allSatisfy { $0.weight < working && Plates.load($0.weight, on: kg) != nil })
            #expect(Set(ramp.map(\.weight)).count == ramp.count)
            #expect(ramp.map(\.weight) == ramp.map(\.weight).sorted())
        }
        let custom = try WarmupScheme.parse("bar:8, 50%:5,75:2")
        #expect(custom.summary == "bar×8, 50%×5, 75%×2")
        #expect(custom.ramp(to: 100, on: kg).map(\.weight) == [20, 50, 75])
        for bad in ["", "40", "150:3", "40:0", "x:5", "40:5:1", "💪🏽:5", "bar:10,\u{202E}"] {
            #expect(throws: ValidationError.self) { try WarmupScheme.parse(bad) }
        }
    }
}
