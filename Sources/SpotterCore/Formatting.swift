import Foundation

/// How numbers read to a lifter: "100 kg", "102.5 lb", "8.5".
public enum Formatting {
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
}
