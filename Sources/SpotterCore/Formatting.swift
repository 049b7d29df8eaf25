import Foundation

/// How numbers read to a lifter: "100 kg", "102.5 lb", "8.5".
public enum Formatting {
    /// "1 set", "2 sets": a count and its noun, in the number it takes.
    public static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    public static func number(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e12 { return String(Int64(value)) }
        var text = String(format: "%.2f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    public static func weight(_ value: Double, unit: WeightUnit) -> String {
        "\(number(value)) \(unit.rawValue)"
    }

    /// A weight in the unit the lifter chose to see (`display`), or as logged when nil.
    /// Only the text changes: what is stored keeps its own unit.
    public static func weight(_ value: Double, unit: WeightUnit, shownIn display: WeightUnit?) -> String {
        guard let display, display != unit else { return weight(value, unit: unit) }
        return weight(converted(value, from: unit, to: display), unit: display)
    }

    /// `text` with each weight it names ("+2.5 kg", "at 100 kg") in the unit the lifter chose to
    /// see, so a routine's reason reads "+5.51 lb" in lb mode; unchanged when `display` is nil.
    public static func weights(in text: String, shownIn display: WeightUnit?) -> String {
        guard let display else { return text }
        let other: WeightUnit = display == .kg ? .lb : .kg
        guard text.contains(" \(other.rawValue)") else { return text }
        var result = ""
        var rest = Substring(text)
        while let range = rest.range(of: " \(other.rawValue)") {
            // The number right before the unit: digits and one point.
            let before = rest[..<range.lowerBound]
            let digits = before.reversed().prefix { $0.isNumber || $0 == "." }
            let after = rest[range.upperBound...]
            let endsWord = after.first.map { !$0.isLetter } ?? true
            if let value = Double(String(digits.reversed())), !digits.isEmpty, endsWord {
                result += before.dropLast(digits.count)
                result += Formatting.weight(converted(value, from: other, to: display), unit: display)
            } else {
                result += rest[..<range.upperBound]
            }
            rest = after
        }
        return result + rest
    }

    /// `value` in another unit, to the hundredth (200 lb is 90.72 kg, and back to 200 lb).
    public static func converted(_ value: Double, from: WeightUnit, to: WeightUnit) -> Double {
        guard from != to else { return value }
        return (value * from.kilograms / to.kilograms * 100).rounded() / 100
    }
}
