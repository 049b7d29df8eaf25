/// What a type-ahead's Enter or Tab takes, in the set form and the routine editor alike: the
/// highlighted row, always. A suggestion spelling exactly what was typed is highlighted first
/// (until the lifter moves), so "squat (barbell)" and Enter is Squat (Barbell); moving the
/// highlight to another row and pressing Enter takes that row, never the exact match. Typed text
/// becomes a new custom exercise only when the "new custom exercise" row is highlighted: nothing
/// matched, or the lifter moved down past the last suggestion onto it (it is drawn there).
public enum TypeAhead {
    /// The highlight of the "new custom exercise" row, drawn below the suggestions.
    public static let customRow = -1

    /// Rows a type-ahead shows: suggestions, and the custom row in the last one when it is offered.
    public static let rows = 5

    /// The suggestions drawn (and reachable with the arrows): one row fewer when the custom row is
    /// offered.
    public static func shownCount(typed: String, suggestions: [String]) -> Int {
        min(suggestions.count, offersCustom(typed: typed, suggestions: suggestions) ? rows - 1 : rows)
    }

    /// The name chosen, and whether it is a new custom exercise; nil when nothing was typed and
    /// nothing is highlighted.
    public static func choice(
        typed raw: String, suggestions: [String], highlighted: Int
    ) -> (
        name: String, isNew: Bool
    )? {
        let typed = raw.trimmingCharacters(in: .whitespaces)
        if highlighted >= 0, highlighted < shownCount(typed: raw, suggestions: suggestions) {
            return (suggestions[highlighted], false)
        }
        // The custom row, or no suggestion at all: the typed text, unless a suggestion spells it
        // (then no custom row was offered, and the catalogue's spelling is kept).
        if let exact = exactMatch(typed: raw, suggestions: suggestions) { return (suggestions[exact], false) }
        return typed.isEmpty ? nil : (typed, true)
    }

    /// The suggestion spelling exactly what was typed (case aside), if any.
    public static func exactMatch(typed raw: String, suggestions: [String]) -> Int? {
        let typed = raw.trimmingCharacters(in: .whitespaces)
        guard !typed.isEmpty else { return nil }
        return suggestions.firstIndex { $0.caseInsensitiveCompare(typed) == .orderedSame }
    }

    /// The highlight once suggestions arrive for new text: the exact match, else the first
    /// suggestion, else the custom row.
    public static func defaultHighlight(typed: String, suggestions: [String]) -> Int {
        if let exact = exactMatch(typed: typed, suggestions: suggestions) { return exact }
        return suggestions.isEmpty ? customRow : 0
    }

    /// The highlight kept when suggestions are refreshed while the lifter has moved it: the same
    /// row when it is still shown, else the default.
    public static func kept(_ highlighted: Int, typed: String, suggestions: [String]) -> Int {
        if highlighted == customRow, offersCustom(typed: typed, suggestions: suggestions) { return customRow }
        if highlighted >= 0, highlighted < shownCount(typed: typed, suggestions: suggestions) { return highlighted }
        return defaultHighlight(typed: typed, suggestions: suggestions)
    }

    /// Whether a "new custom exercise 'x'" row is offered: something is typed that no suggestion
    /// spells.
    public static func offersCustom(typed raw: String, suggestions: [String]) -> Bool {
        let typed = raw.trimmingCharacters(in: .whitespaces)
        return !typed.isEmpty && exactMatch(typed: raw, suggestions: suggestions) == nil
    }

    /// The highlight one step up: from the custom row (drawn last) to the last suggestion shown;
    /// the first suggestion is the top.
    public static func previous(_ highlighted: Int, typed: String, suggestions: [String]) -> Int {
        let shown = shownCount(typed: typed, suggestions: suggestions)
        if highlighted == customRow || highlighted >= shown { return shown > 0 ? shown - 1 : highlighted }
        return max(0, highlighted - 1)
    }

    /// The highlight one step down: past the last suggestion shown is the custom row, when offered.
    public static func next(_ highlighted: Int, typed: String, suggestions: [String]) -> Int {
        let shown = shownCount(typed: typed, suggestions: suggestions)
        if highlighted == customRow { return customRow }
        if highlighted + 1 < shown { return highlighted + 1 }
        return offersCustom(typed: typed, suggestions: suggestions) ? customRow : max(0, shown - 1)
    }
}
