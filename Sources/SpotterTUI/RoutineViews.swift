import Foundation
import SpotterCore
import SpotterStore

extension Renderer {
    /// One planned row of a workout started from a routine: dimmed, its targets, "planned" (with
    /// why the targets are what they are) or "skipped" in the status column.
    static func drawPlannedRow(
        _ row: PlannedRow, weight: String, selected: Bool, focused: Bool, columns: SetColumns, _ g: Glyphs,
        _ buffer: inout ScreenBuffer, x: Int, y: Int, inner: Int
    ) {
        var base = CellStyle.dim
        if selected {
            base.reverse = focused
            base.bold = !focused
        }
        buffer.fill(x: x, y: y, count: inner, style: base)
        let position: String
        switch row.kind {
        case .normal: position = row.superset.map { "S\($0)" } ?? "·"
        case .warmup: position = "W"
        case .failure: position = "F"
        case .drop: position = "D"
        }
        var text =
            " " + position.leftPadded(to: columns.position) + " "
            + row.exercise.padded(to: columns.exercise, ellipsis: g.ellipsis) + " "
        text += weight.leftPadded(to: columns.weight) + " "
        // A rep range as a lifter writes it ("8-12"); "8+" only when the range does not fit.
        let range = row.repsMax.map { "\(row.reps)-\($0)" }
        let reps = range.map { $0.count <= columns.reps ? $0 : "\(row.reps)+" } ?? String(row.reps)
        text += reps.leftPadded(to: columns.reps) + " "
        text += (row.rpe.map(Formatting.number) ?? "").padded(to: columns.rpe) + " "
        text += "   "
        let column = x + buffer.put(text, x: x, y: y, style: base, maxWidth: inner)
        let room = x + inner - column
        guard room > 0 else { return }
        buffer.put(
            AppState.plannedStatus(row).clipped(to: room, ellipsis: g.ellipsis), x: column, y: y, style: base,
            maxWidth: room)
    }

    /// The "Start routine" list of `R`.
    static func drawRoutinePicker(_ picker: RoutinePicker, _ state: AppState, _ buffer: inout ScreenBuffer) {
        let g = state.glyphs
        let width = min(max(60, state.columns / 2), state.columns - 4)
        let listRows = max(1, min(picker.routines.count, state.rows - 8))
        let height = listRows + 4
        let x = (state.columns - width) / 2
        let y = max(1, (state.rows - height) / 2)
        for row in y..<(y + height) { buffer.fill(x: x, y: row, count: width) }
        drawBox(&buffer, g, x: x, y: y, width: width, height: height, title: "Start routine", focused: true)
        if picker.routines.isEmpty {
            let text =
                picker.loaded ? "No routines yet: spotter routine create NAME (or --from-workout ID)" : "Loading…"
            buffer.put(text.clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: y + 1, style: .dim)
        }
        let offset = scrollOffset(selected: picker.selected, count: picker.routines.count, visibleRows: listRows)
        for index in offset..<min(picker.routines.count, offset + listRows) {
            let routine = picker.routines[index].routine
            let sets = routine.exercises.reduce(0) { $0 + $1.sets.count }
            let selected = index == picker.selected
            let line =
                "\(selected ? g.selected : " ") \(routine.name)  \(g.middleDot) \(routine.exercises.count) exercises, \(sets) sets"
            buffer.put(
                line.clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: y + 1 + index - offset,
                style: selected ? .reverse : .plain)
        }
        buffer.put(
            "Enter start  j/k move  Esc cancel".clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2,
            y: y + height - 2, style: .dim)
    }
}
