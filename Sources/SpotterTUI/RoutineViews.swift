import Foundation
import SpotterCore
import SpotterStore

extension Renderer {
    /// One planned row of a workout started from a routine: dimmed, its targets, "planned" (with
    /// why the targets are what they are) or "skipped" in the status column.
    static func drawPlannedRow(
        _ row: PlannedRow, weight: String, selected: Bool, focused: Bool, columns: SetColumns, _ g: Glyphs,
        display: WeightUnit? = nil, _ buffer: inout ScreenBuffer, x: Int, y: Int, inner: Int
    ) {
        var base = CellStyle.dim
        if selected {
            base.reverse = focused
            base.bold = !focused
        }
        buffer.fill(x: x, y: y, count: inner, style: base)
        // A rep range as a lifter writes it ("10–15"); the column is as wide as the widest range.
        let range = PlannedSet.repsText(row.reps, row.repsMax)
        let reps = range.count <= columns.reps ? range : "\(row.reps)+"
        let text =
            rowText(
                position: kindLabel(row.kind, normal: row.superset.map { "S\($0)" } ?? "·"), exercise: row.exercise,
                weight: weight, reps: reps, rpe: row.rpe, columns: columns, g) + "   "
        let column = x + buffer.put(text, x: x, y: y, style: base, maxWidth: inner)
        let room = x + inner - column
        guard room > 0 else { return }
        buffer.put(
            AppState.plannedStatus(row, display: display).clipped(to: room, ellipsis: g.ellipsis), x: column, y: y,
            style: base,
            maxWidth: room)
    }

    /// The "Start routine" list of `R`.
    static func drawRoutinePicker(_ picker: RoutinePicker, _ state: AppState, _ buffer: inout ScreenBuffer) {
        let g = state.glyphs
        let width = min(max(72, state.columns / 2), state.columns - 4)
        let listRows = max(1, min(picker.routines.count, state.rows - 8))
        let height = listRows + 4
        let x = (state.columns - width) / 2
        let y = max(1, (state.rows - height) / 2)
        for row in y..<(y + height) { buffer.fill(x: x, y: row, count: width) }
        drawBox(&buffer, g, x: x, y: y, width: width, height: height, title: "Start routine", focused: true)
        if picker.routines.isEmpty {
            let text =
                picker.loaded ? "No routines yet: n makes one (or S saves a workout as one)" : "Loading…"
            buffer.put(text.clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: y + 1, style: .dim)
        }
        let offset = scrollOffset(selected: picker.selected, count: picker.routines.count, visibleRows: listRows)
        for index in offset..<min(picker.routines.count, offset + listRows) {
            let routine = picker.routines[index].routine
            let sets = routine.exercises.reduce(0) { $0 + $1.sets.count }
            let selected = index == picker.selected
            let line =
                "\(selected ? g.selected : " ") \(routine.name)  \(g.middleDot) \(Formatting.counted(routine.exercises.count, "exercise")), \(Formatting.counted(sets, "set"))"
            buffer.put(
                line.clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: y + 1 + index - offset,
                style: selected ? .reverse : .plain)
        }
        buffer.put(
            KeyMap.hints(.routinePicker).clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2,
            y: y + height - 2, style: .dim)
    }

    /// The routine editor: every exercise with its settings, its planned sets under it.
    static func drawRoutineEditor(_ editor: RoutineEditor, _ state: AppState, _ buffer: inout ScreenBuffer) {
        let g = state.glyphs
        // Over both panes, the header and the bottom bar (its keys, a refusal) left in view.
        let x = 0
        let y = 1
        let width = state.columns
        let height = state.rows - 2
        for row in y..<(y + height) { buffer.fill(x: x, y: row, count: width) }
        var title = "Edit routine \(g.middleDot) \(editor.routine.name)"
        if editor.isDirty { title += " \(g.middleDot) unsaved" }
        drawBox(&buffer, g, x: x, y: y, width: width, height: height, title: title, focused: true)
        let inner = width - 4
        let rows = editor.rows
        let listTop = y + 1
        // The last inner row is for a refusal.
        let listRows = max(1, height - 3)
        if rows.isEmpty {
            let add = KeyMap.name(of: .addExercise, in: .routineEditor)
            buffer.put(
                "No exercises yet: \(add) adds one".clipped(to: inner, ellipsis: g.ellipsis), x: x + 2, y: listTop,
                style: .dim)
        }
        let offset = scrollOffset(selected: editor.selected, count: rows.count, visibleRows: listRows)
        for index in offset..<min(rows.count, offset + listRows) {
            let selected = index == editor.selected
            let line: String
            var style = CellStyle.plain
            switch rows[index] {
            case .exercise(let number):
                line = exerciseLine(editor.routine.exercises[number], number: number, g)
                style = .bold
            case .set(let number, let set):
                let exercise = editor.routine.exercises[number]
                line = plannedSetLine(exercise.sets[set], number: set, unit: exercise.unit)
            }
            if selected { style = .reverse }
            buffer.fill(x: x + 1, y: listTop + index - offset, count: width - 2, style: selected ? .reverse : .plain)
            buffer.put(
                line.clipped(to: inner, ellipsis: g.ellipsis), x: x + 2, y: listTop + index - offset, style: style)
        }
        if let error = editor.error {
            buffer.put(
                error.clipped(to: inner, ellipsis: g.ellipsis), x: x + 2, y: y + height - 2,
                style: .colored(.red, bold: true))
        }
        if let form = editor.form { drawRoutineForm(form, editor, state, &buffer) }
    }

    /// "1. Bench Press (Barbell)  ·  linear +2.5 kg  ·  rest 120 s  ·  superset 1"
    static func exerciseLine(_ exercise: RoutineExercise, number: Int, _ g: Glyphs) -> String {
        var details = [exercise.progression.rawValue]
        if exercise.progression != .fixed {
            details[0] += " +\(Formatting.weight(exercise.increment, unit: exercise.unit))"
        }
        details.append(exercise.restSeconds.map { "rest \($0) s" } ?? "routine's rest")
        if let superset = exercise.superset { details.append("superset \(superset)") }
        return "\(number + 1). \(exercise.exercise) \(g.middleDot) "
            + details.joined(separator: " \(g.middleDot) ")
    }

    /// "     2  warmup      60 kg    8-12 reps  RPE 8"
    static func plannedSetLine(_ set: PlannedSet, number: Int, unit: WeightUnit) -> String {
        let target: String
        if let weight = set.weight {
            target = Formatting.weight(weight, unit: unit)
        } else if let percent = set.percentOfOneRepMax {
            target = "\(Formatting.number(percent))% e1RM"
        } else {
            target = "no weight"
        }
        var line =
            "    " + String(number + 1).leftPadded(to: 2) + "  " + set.kind.rawValue.padded(to: 7) + " "
            + target.leftPadded(to: 10) + "  " + "\(set.repsText) reps".padded(to: 10)
        if let rpe = set.rpe { line += "  RPE \(Formatting.number(rpe))" }
        return line
    }

    /// The editor's form, over it: its fields, the exercise's type-ahead, why it was refused.
    static func drawRoutineForm(
        _ form: RoutineRowForm, _ editor: RoutineEditor, _ state: AppState, _ buffer: inout ScreenBuffer
    ) {
        let g = state.glyphs
        let suggestionRows = form.fields.contains(.exercise) ? 5 : 0
        let width = min(72, state.columns - 4)
        let height = form.fields.count + suggestionRows + 3
        let x = (state.columns - width) / 2
        let y = max(1, (state.rows - height) / 2)
        for row in y..<(y + height) { buffer.fill(x: x, y: row, count: width) }
        var title = form.title
        switch form.target {
        case .set(let index, _), .exercise(let index):
            if editor.routine.exercises.indices.contains(index) {
                title += " \(g.middleDot) \(editor.routine.exercises[index].exercise)"
            }
        case .newExercise:
            break
        }
        drawBox(&buffer, g, x: x, y: y, width: width, height: height, title: title, focused: true)
        let labelWidth = 12
        let valueX = x + 2 + labelWidth
        let valueWidth = 22
        var row = y + 1
        for field in form.fields {
            let focused = form.focus == field
            buffer.put(field.label, x: x + 2, y: row, style: focused ? .bold : .plain)
            let value = form.value(field)
            let selected = focused && form[input: field].isSelected && !value.isEmpty
            let style = selected ? CellStyle.reverse : focused ? CellStyle(underline: true) : CellStyle.plain
            buffer.fill(x: valueX, y: row, count: valueWidth, style: style)
            if focused && !field.isChoice && !selected {
                putEditing(
                    form[input: field], &buffer, x: valueX, y: row, style: style,
                    cursorStyle: CellStyle(reverse: true, underline: true), maxWidth: valueWidth, ellipsis: g.ellipsis)
            } else {
                buffer.put(
                    value.clipped(to: valueWidth, ellipsis: g.ellipsis), x: valueX, y: row, style: style,
                    maxWidth: valueWidth)
            }
            let hint = field.hint.replacingOccurrences(of: "←→", with: g == .ascii ? "<>" : "←→")
            let hintX = valueX + valueWidth + 1
            buffer.put(hint.clipped(to: x + width - 2 - hintX, ellipsis: g.ellipsis), x: hintX, y: row, style: .dim)
            row += 1
            if field == .exercise {
                if focused {
                    let typed = form[input: .exercise].text
                    let offersCustom = TypeAhead.offersCustom(typed: typed, suggestions: form.suggestions)
                    let shown = form.suggestions.prefix(offersCustom ? suggestionRows - 1 : suggestionRows)
                    for (index, name) in shown.enumerated() {
                        let highlighted = index == form.highlighted
                        buffer.put(
                            "\(highlighted ? g.selected : " ") \(name)".clipped(
                                to: width - labelWidth - 4, ellipsis: g.ellipsis),
                            x: valueX - 2, y: row + index, style: highlighted ? .reverse : .plain)
                    }
                    if offersCustom {
                        let highlighted = !form.suggestions.indices.contains(form.highlighted)
                        let name = typed.trimmingCharacters(in: .whitespaces)
                        buffer.put(
                            "\(highlighted ? g.selected : " ") + new custom exercise '\(name)'".clipped(
                                to: width - labelWidth - 4, ellipsis: g.ellipsis),
                            x: valueX - 2, y: row + shown.count, style: highlighted ? .reverse : .dim)
                    }
                }
                row += suggestionRows
            }
        }
        if let error = form.error {
            buffer.put(
                error.clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: row, style: .colored(.red, bold: true))
        }
    }

    /// The name dialog of `n` and `r` in the routine list.
    static func drawRoutineName(_ input: RoutineNameInput, _ state: AppState, _ buffer: inout ScreenBuffer) {
        let g = state.glyphs
        let width = min(64, state.columns - 4)
        let height = 5
        let x = (state.columns - width) / 2
        let y = max(1, (state.rows - height) / 2)
        for row in y..<(y + height) { buffer.fill(x: x, y: row, count: width) }
        drawBox(&buffer, g, x: x, y: y, width: width, height: height, title: input.title, focused: true)
        let used = buffer.put("Name ", x: x + 2, y: y + 1, style: .bold)
        putEditing(
            input.field, &buffer, x: x + 2 + used, y: y + 1, style: CellStyle(underline: true),
            cursorStyle: CellStyle(reverse: true, underline: true), maxWidth: width - 4 - used, ellipsis: g.ellipsis)
        if let error = input.error {
            buffer.put(
                error.clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: y + 2,
                style: .colored(.red, bold: true))
        }
        buffer.put(
            KeyMap.hints(.routineName).clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: y + 3, style: .dim)
    }
}
