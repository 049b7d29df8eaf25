import Foundation
import SpotterCore
import SpotterStore

/// `W`: the weigh-ins, newest first: Enter changes the selected one (on the `B` prompt), `d`
/// twice deletes it, `n` logs a new one.
public struct WeighInsView: Sendable, Equatable {
    public var entries: [BodyWeightEntry]
    public var selected = 0
    /// `d` was pressed once: a second `d` deletes the selected weigh-in, any other key keeps it.
    public var confirmingDelete = false

    public init(entries: [BodyWeightEntry], selected: Int = 0) {
        self.entries = entries
        self.selected = min(selected, max(0, entries.count - 1))
    }

    /// "81.4 after breakfast": what the `B` prompt shows to change a weigh-in.
    static func promptText(_ entry: BodyWeight) -> String {
        Formatting.number(entry.weight) + (entry.notes.map { " \($0)" } ?? "")
    }

    /// "2026-11-20 07:30  81.4 kg  after breakfast  [pending]"
    static func line(_ entry: BodyWeightEntry) -> String {
        var line = entry.summary
        switch entry.syncState {
        case .synced: break
        case .pending: line += "  [pending]"
        case .rejected: line += "  [rejected]"
        }
        return line
    }
}

extension AppState {
    mutating func reduceWeighIns(_ view: WeighInsView, _ action: KeyAction?) -> [AppEffect] {
        var view = view
        let confirming = view.confirmingDelete
        view.confirmingDelete = false
        switch action {
        case .cancel:
            overlay = .none
            return []
        case .moveDown:
            view.selected = min(max(0, view.entries.count - 1), view.selected + 1)
        case .moveUp:
            view.selected = max(0, view.selected - 1)
        case .editSet, .submit:
            guard view.entries.indices.contains(view.selected) else { return [] }
            let entry = view.entries[view.selected].bodyWeight
            var input = BodyWeightInput(
                unit: entry.unit, prefill: WeighInsView.promptText(entry),
                last: "changing the weigh-in of \(BodyWeightDate.shown(entry.measuredAt))")
            input.editing = entry.id
            overlay = .bodyWeight(input)
            return []
        case .deleteSelected:
            guard view.entries.indices.contains(view.selected) else { return [] }
            if confirming { return [.deleteBodyWeight(id: view.entries[view.selected].bodyWeight.id)] }
            view.confirmingDelete = true
        case .logSet:
            return [.loadBodyWeight]
        default:
            break
        }
        overlay = .weighIns(view)
        return []
    }
}

extension Renderer {
    static func drawWeighIns(_ view: WeighInsView, _ state: AppState, _ buffer: inout ScreenBuffer) {
        let g = state.glyphs
        let width = min(max(60, state.columns * 2 / 3), state.columns - 4)
        let listRows = max(1, min(max(1, view.entries.count), state.rows - 8))
        let height = listRows + 4
        let x = (state.columns - width) / 2
        let y = max(1, (state.rows - height) / 2)
        for row in y..<(y + height) { buffer.fill(x: x, y: row, count: width) }
        drawBox(
            &buffer, g, x: x, y: y, width: width, height: height,
            title: "Body weight \(g.middleDot) \(view.entries.count)", focused: true)
        if view.entries.isEmpty {
            buffer.put(
                "No weigh-ins yet: n logs one".clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: y + 1,
                style: .dim)
        }
        let offset = scrollOffset(selected: view.selected, count: view.entries.count, visibleRows: listRows)
        for index in offset..<min(view.entries.count, offset + listRows) {
            let selected = index == view.selected
            buffer.put(
                "\(selected ? g.selected : " ") \(WeighInsView.line(view.entries[index]))".clipped(
                    to: width - 4, ellipsis: g.ellipsis),
                x: x + 2, y: y + 1 + index - offset, style: selected ? .reverse : .plain)
        }
        let footer =
            view.confirmingDelete
            ? "Delete the selected weigh-in? d again deletes it, any other key keeps it" : KeyMap.hints(.weighIns)
        buffer.put(
            footer.clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: y + height - 2,
            style: view.confirmingDelete ? CellStyle(color: .red, bold: true) : .dim)
    }
}
