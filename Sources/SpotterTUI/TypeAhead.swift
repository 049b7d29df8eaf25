/// What a type-ahead's Enter or Tab takes, in the set form and the routine editor alike: the
/// catalogue's spelling of what was typed, else the highlighted suggestion. Typed text becomes a
/// new custom exercise only when no suggestion is highlighted — none matched, or the lifter moved
/// above the first one, onto the "new custom exercise" row — so "bench" and Enter is Bench Press
/// (Barbell), never a new lift called "bench".
public enum TypeAhead {
    /// The highlight of the "new custom exercise" row, above the first suggestion.
    public static let customRow = -1

    /// The name chosen, and whether it is a new custom exercise; nil when nothing was typed and
    /// nothing is highlighted.
    public static func choice(
        typed raw: String, suggestions: [String], highlighted: Int
    ) -> (
        name: String, isNew: Bool
    )? {
        let typed = raw.trimmingCharacters(in: .whitespaces)
        if let exact = suggestions.first(where: { $0.caseInsensitiveCompare(typed) == .orderedSame }) {
            return (exact, false)
        }
        if suggestions.indices.contains(highlighted) { return (suggestions[highlighted], false) }
        return typed.isEmpty ? nil : (typed, true)
    }

    /// Whether a "new custom exercise 'x'" row is offered: something is typed that no suggestion
    /// spells.
    public static func offersCustom(typed raw: String, suggestions: [String]) -> Bool {
        let typed = raw.trimmingCharacters(in: .whitespaces)
        return !typed.isEmpty && !suggestions.contains { $0.caseInsensitiveCompare(typed) == .orderedSame }
    }

    /// The highlight one step up: above the first suggestion is the custom row, when offered.
    public static func previous(_ highlighted: Int, typed: String, suggestions: [String]) -> Int {
        let floor = offersCustom(typed: typed, suggestions: suggestions) ? customRow : 0
        return max(floor, highlighted - 1)
    }

    /// The highlight one step down, the last suggestion at most.
    public static func next(_ highlighted: Int, suggestions: [String]) -> Int {
        suggestions.isEmpty ? highlighted : min(highlighted + 1, suggestions.count - 1)
    }
}
