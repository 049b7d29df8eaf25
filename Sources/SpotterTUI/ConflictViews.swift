import Foundation
import SpotterCore
import SpotterStore

/// `C`: the values another device's edit replaced (or a delete dropped), one line each; Enter
/// takes the selected one back (a new edit that syncs), `x` dismisses it.
public struct ConflictsView: Sendable, Equatable {
    public var selected = 0

    public init() {}
}

extension AppState {
    mutating func reduceConflicts(_ view: ConflictsView, _ action: KeyAction?) -> [AppEffect] {
        var view = view
        let count = conflicts.count
        switch action {
        case .cancel, .showConflicts:
            overlay = .none
            return []
        case .moveDown:
            view.selected = min(max(0, count - 1), view.selected + 1)
        case .moveUp:
            view.selected = max(0, view.selected - 1)
        case .takeConflict:
            guard conflicts.indices.contains(view.selected) else { return [] }
            return [.takeConflict(id: conflicts[view.selected].record.id)]
        case .dismissConflict:
            guard conflicts.indices.contains(view.selected) else { return [] }
            return [.dismissConflict(id: conflicts[view.selected].record.id)]
        default:
            return []
        }
        overlay = .conflicts(view)
        return []
    }
}

extension AppController {
    func performConflict(_ effect: AppEffect) throws {
        switch effect {
        case .takeConflict(let id):
            let taken = try store.conflicts.takeBack(id.wireString)
            state.say(
                "Took back \(StoredConflict.fieldName(taken.record.field)) \(StoredConflict.shown(taken.record.overridden)) for \(taken.record.label)"
            )
            afterLocalWrite()
        case .dismissConflict(let id):
            try store.conflicts.dismiss(id.wireString)
            reloadAll()
        default:
            break
        }
        if case .conflicts(var view) = state.overlay {
            if state.conflicts.isEmpty {
                state.overlay = .none
            } else {
                view.selected = min(view.selected, state.conflicts.count - 1)
                state.overlay = .conflicts(view)
            }
        }
    }
}

extension Renderer {
    static func drawConflicts(_ view: ConflictsView, _ state: AppState, _ buffer: inout ScreenBuffer) {
        let g = state.glyphs
        let width = min(max(72, state.columns * 3 / 4), state.columns - 4)
        // Two rows a conflict: what it is, then what happened.
        let perPage = max(1, (state.rows - 8) / 2)
        let listRows = max(1, min(max(1, state.conflicts.count), perPage)) * 2
        let height = listRows + 4
        let x = (state.columns - width) / 2
        let y = max(1, (state.rows - height) / 2)
        for row in y..<(y + height) { buffer.fill(x: x, y: row, count: width) }
        drawBox(
            &buffer, g, x: x, y: y, width: width, height: height,
            title: "Conflicts \(g.middleDot) \(state.conflicts.count) open", focused: true)
        if state.conflicts.isEmpty {
            buffer.put(
                "No open conflicts: no edit of yours was replaced".clipped(to: width - 4, ellipsis: g.ellipsis),
                x: x + 2, y: y + 1, style: .dim)
        }
        let offset = scrollOffset(selected: view.selected, count: state.conflicts.count, visibleRows: listRows / 2)
        for index in offset..<min(state.conflicts.count, offset + listRows / 2) {
            let selected = index == view.selected
            let conflict = state.conflicts[index]
            let row = y + 1 + (index - offset) * 2
            buffer.put(
                "\(selected ? g.selected : " ") \(conflict.record.label)".clipped(to: width - 4, ellipsis: g.ellipsis),
                x: x + 2, y: row, style: selected ? .reverse : .bold)
            buffer.put(
                "   \(conflict.change())".clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: row + 1,
                style: selected ? .plain : .dim)
        }
        buffer.put(
            KeyMap.hints(.conflicts).clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: y + height - 2,
            style: .dim)
    }
}
