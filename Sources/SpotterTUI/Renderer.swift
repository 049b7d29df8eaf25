import Foundation
import SpotterCore
import SpotterStore
import SpotterSync

/// Text and the style it is drawn in: a header segment, the sync badge.
public struct StyledText: Sendable, Equatable {
    public var text: String
    public var style: CellStyle

    public init(_ text: String, _ style: CellStyle) {
        self.text = text
        self.style = style
    }
}

/// Draws `AppState` into a `ScreenBuffer`. A pure function of the state: no clock, no locale,
/// no store, so a test can assert on exactly what a user would see.
public enum Renderer {
    /// Renders a whole frame into a fresh buffer of the state's size.
    public static func render(_ state: AppState) -> ScreenBuffer {
        var buffer = ScreenBuffer(width: state.columns, height: state.rows)
        render(state, into: &buffer)
        return buffer
    }

    /// Renders a whole frame into `buffer` (reused between frames to avoid reallocating).
    public static func render(_ state: AppState, into buffer: inout ScreenBuffer) {
        if buffer.width != state.columns || buffer.height != state.rows {
            buffer = ScreenBuffer(width: state.columns, height: state.rows)
        } else {
            buffer.clear()
        }
        if state.isTooSmall {
            drawTooSmall(state, &buffer)
            return
        }
        drawHeader(state, &buffer)
        let top = 1
        let bottom = state.rows - 1  // the hint bar's row
        var panesBottom = bottom
        if state.debugVisible {
            let available = bottom - top
            // 20 rows, a column header and a top border; the bottom border only when it fits.
            let wanted = 20 + 3
            let debugHeight = available - wanted >= 6 ? wanted : available
            panesBottom = bottom - debugHeight
            drawDebugPane(state, &buffer, top: panesBottom, height: debugHeight)
        }
        if panesBottom - top >= 3 {
            let workoutsWidth = workoutsPaneWidth(columns: state.columns)
            drawWorkoutsPane(state, &buffer, x: 0, y: top, width: workoutsWidth, height: panesBottom - top)
            drawSetsPane(
                state, &buffer, x: workoutsWidth, y: top, width: state.columns - workoutsWidth,
                height: panesBottom - top)
        }
        drawBottomBar(state, &buffer)
        switch state.overlay {
        case .setForm(let form): drawForm(form, state, &buffer)
        case .help: drawHelp(state, &buffer)
        case .history(let view): drawHistory(view, state, &buffer)
        case .routinePicker(let picker): drawRoutinePicker(picker, state, &buffer)
        case .routineEditor(let editor): drawRoutineEditor(editor, state, &buffer)
        case .routineName(let input): drawRoutineName(input, state, &buffer)
        case .conflicts(let view): drawConflicts(view, state, &buffer)
        case .weighIns(let view): drawWeighIns(view, state, &buffer)
        case .progress(let view): drawProgress(view, state, &buffer)
        case .calendar(let view): drawCalendar(view, state, &buffer)
        case .muscleVolume(let view): drawMuscleVolume(view, state, &buffer)
        case .workoutEdit(let form): drawWorkoutEdit(form, state, &buffer)
        case .workoutSummary(let view): drawWorkoutSummary(view, state, &buffer)
        case .confirmDelete, .newWorkout, .plates, .bodyWeight, .none: break
        }
        // Messages and names carry symbols of their own ("100 kg × 5", "Log set · new workout",
        // an emoji in a workout's name): a terminal without UTF-8 gets ASCII for every cell.
        if state.glyphs == .ascii { buffer.transliterateToASCII() }
    }

    static func workoutsPaneWidth(columns: Int) -> Int {
        min(max(22, columns / 5), 36)
    }

    // MARK: Header

    /// The sync badge text and colour.
    public static func badge(_ state: AppState) -> StyledText {
        let g = state.glyphs
        if state.counts.failed > 0 {
            return StyledText("\(g.warning) \(state.counts.failed) failed", .colored(.red, bold: true))
        }
        // Not refused: no answer came. They go back to the queue when the server answers.
        let gaveUp = state.counts.gaveUp + state.counts.blockedOnNoAnswer
        if gaveUp > 0 && state.counts.pending == 0 {
            return StyledText(
                "\(g.warning) \(gaveUp) \(OutboxMachine.gaveUpPrefix)", .colored(.yellow, bold: true))
        }
        if state.airplane {
            return StyledText(
                "\(g.airplane) Airplane \(g.middleDot) \(state.counts.pending) queued", .colored(.yellow, bold: true)
            )
        }
        if state.counts.pending > 0 {
            if state.readOnly != nil {
                return StyledText("\(state.counts.pending) unsent (read-only)", .colored(.yellow, bold: true))
            }
            if case .diskFull = state.connectivity {
                return StyledText(
                    "\(g.warning) disk full \(g.middleDot) \(state.counts.pending) unsent", .colored(.red, bold: true))
            }
            if !state.syncAvailable { return StyledText("\(state.counts.pending) queued (no sync)", .colored(.yellow)) }
            // The server refused the token: nothing is being sent until the user signs in again.
            if state.connectivity == .signInRequired {
                return StyledText(
                    "\(state.counts.pending) unsent \(g.middleDot) spotter login", .colored(.red, bold: true))
            }
            if badgeSaysOffline(state) {
                // Offline reads as offline: what waits, and when the next try comes (the persisted time).
                let left = state.nextRetryAt.map { secondsUntil($0, from: state.now, rounding: .up) } ?? 0
                let retry = left > 0 ? "retry in \(left) s" : "retrying\(g.ellipsis)"
                return StyledText(
                    "\(g.offline) offline \(g.middleDot) \(state.counts.pending) queued \(g.middleDot) \(retry)",
                    .colored(.yellow, bold: true)
                )
            }
            let spin = g.spinner[state.spinnerFrame % g.spinner.count]
            return StyledText(
                "\(g.syncing) Syncing\(g.ellipsis) \(state.counts.pending) \(spin)", .colored(.cyan, bold: true))
        }
        // Nothing is "Synced" while an operation waits behind a failed one, or for another account.
        if state.counts.blocked > 0 {
            return StyledText("\(g.warning) \(state.counts.blocked) blocked", .colored(.red, bold: true))
        }
        let stranded = state.stranded.reduce(0) { $0 + $1.operations }
        if stranded > 0 { return StyledText("\(stranded) queued for another account", .colored(.yellow, bold: true)) }
        // All sent, but what the server has for this device may not all be here: no room to write it.
        if case .diskFull = state.connectivity {
            return StyledText("\(g.warning) disk full \(g.middleDot) not all received", .colored(.red, bold: true))
        }
        // All sent, but the server's changes did not all arrive (the feed refused or did not read).
        if state.feedProblem != nil {
            return StyledText("\(g.warning) not all received", .colored(.yellow, bold: true))
        }
        return StyledText("\(g.synced) Synced", .colored(.green, bold: true))
    }

    /// Whether the badge reads "offline · N queued · retry in S s": operations wait and the last
    /// try could not reach the server (failures and airplane mode have badges of their own).
    static func badgeSaysOffline(_ state: AppState) -> Bool {
        guard case .offline = state.connectivity else { return false }
        return state.counts.failed == 0 && !state.airplane && state.counts.pending > 0 && state.syncAvailable
    }

    /// Whether the badge reads "disk full · N unsent" or "disk full · not all received" (see `badge`).
    static func badgeSaysDiskFull(_ state: AppState) -> Bool {
        guard case .diskFull = state.connectivity, state.counts.failed == 0, !state.airplane else { return false }
        let counts = state.counts
        if counts.pending > 0 { return state.readOnly == nil && state.syncAvailable }
        return counts.gaveUp + counts.blockedOnNoAnswer == 0 && counts.blocked == 0
            && state.stranded.allSatisfy { $0.operations == 0 }
    }

    static func connectivityLabel(_ state: AppState) -> StyledText {
        let g = state.glyphs
        if state.readOnly != nil { return StyledText("\(g.warning) read-only", .colored(.red, bold: true)) }
        if state.airplane { return StyledText("\(g.offline) airplane", .colored(.yellow)) }
        if !state.syncAvailable { return StyledText("\(g.offline) local only", .dim) }
        switch state.connectivity {
        case .online: return StyledText("\(g.online) online", .colored(.green))
        case .offline: return StyledText("\(g.offline) offline", .colored(.red))
        case .airplane: return StyledText("\(g.offline) airplane", .colored(.yellow))
        case .signInRequired: return StyledText("\(g.warning) sign in needed", .colored(.red, bold: true))
        case .diskFull: return StyledText("\(g.warning) disk full", .colored(.red, bold: true))
        case nil: return StyledText("\(g.offline) connecting", .dim)
        }
    }

    static func drawHeader(_ state: AppState, _ buffer: inout ScreenBuffer) {
        let g = state.glyphs
        var title = " Spotter"
        if let workout = state.currentWorkout {
            title +=
                " \(g.middleDot) \(DisplayText.standalone(workout.summary.workout.name)) (\(workout.longDateLabel))"
        }
        var segments: [StyledText] = []
        if !state.account.isEmpty { segments.append(StyledText(state.account, .dim)) }
        // When the badge says "offline" or "disk full" itself, the connectivity label would only repeat it.
        if !badgeSaysOffline(state), !badgeSaysDiskFull(state) { segments.append(connectivityLabel(state)) }
        segments.append(badge(state))
        if !state.conflicts.isEmpty {
            let count = state.conflicts.count
            segments.append(
                StyledText("\(g.warning) \(count) conflict\(count == 1 ? "" : "s") (C)", .colored(.yellow, bold: true)))
        }
        if let rest = state.restRemaining {
            segments.append(
                StyledText(String(format: "rest %02d:%02d", rest / 60, rest % 60), .colored(.magenta, bold: true)))
        }
        let rightWidth = segments.reduce(0) { $0 + DisplayWidth.of($1.text) } + 3 * (segments.count - 1) + 1
        let titleRoom = max(0, state.columns - rightWidth - 2)
        buffer.put(title.clipped(to: titleRoom, ellipsis: g.ellipsis), x: 0, y: 0, style: .bold)
        var x = state.columns - rightWidth
        for (index, segment) in segments.enumerated() {
            x += buffer.put(segment.text, x: x, y: 0, style: segment.style)
            if index < segments.count - 1 { x += 3 }
        }
    }

    // MARK: Boxes

    static func drawBox(
        _ buffer: inout ScreenBuffer, _ glyphs: Glyphs, x: Int, y: Int, width: Int, height: Int, title: String,
        focused: Bool, bottomBorder: Bool = true
    ) {
        guard width >= 2, height >= 2 else { return }
        let border = focused ? CellStyle(color: .cyan, bold: true) : CellStyle.plain
        buffer.put(String(glyphs.topLeft), x: x, y: y, style: border)
        buffer.fill(glyphs.horizontal, x: x + 1, y: y, count: width - 2, style: border)
        buffer.put(String(glyphs.topRight), x: x + width - 1, y: y, style: border)
        buffer.put(" \(title) ".clipped(to: width - 4, ellipsis: glyphs.ellipsis), x: x + 1, y: y, style: border)
        let last = bottomBorder ? y + height - 1 : y + height
        for row in (y + 1)..<last {
            buffer.put(String(glyphs.vertical), x: x, y: row, style: border)
            buffer.put(String(glyphs.vertical), x: x + width - 1, y: row, style: border)
        }
        if bottomBorder {
            buffer.put(String(glyphs.bottomLeft), x: x, y: y + height - 1, style: border)
            buffer.fill(glyphs.horizontal, x: x + 1, y: y + height - 1, count: width - 2, style: border)
            buffer.put(String(glyphs.bottomRight), x: x + width - 1, y: y + height - 1, style: border)
        }
    }

    /// First visible index so `selected` stays on screen in a list of `visibleRows`.
    static func scrollOffset(selected: Int, count: Int, visibleRows: Int) -> Int {
        guard visibleRows > 0, count > visibleRows else { return 0 }
        return min(max(0, selected - visibleRows + 1), count - visibleRows)
    }

    // MARK: Workouts pane

    static func drawWorkoutsPane(
        _ state: AppState, _ buffer: inout ScreenBuffer, x: Int, y: Int, width: Int, height: Int
    ) {
        let g = state.glyphs
        var title = "Workouts"
        if !state.workoutFilter.isEmpty { title += " /\(state.workoutFilter)" }
        drawBox(&buffer, g, x: x, y: y, width: width, height: height, title: title, focused: state.focus == .workouts)
        let inner = width - 2
        let visibleRows = height - 2
        let items = state.visibleWorkouts
        if items.isEmpty {
            let text = state.workoutFilter.isEmpty ? "No workouts yet" : "No workout matches '\(state.workoutFilter)'"
            buffer.put(
                (" " + text).clipped(to: inner, ellipsis: g.ellipsis), x: x + 1, y: y + 1, style: .dim, maxWidth: inner)
            return
        }
        let offset = scrollOffset(selected: state.selectedWorkout, count: items.count, visibleRows: visibleRows)
        for row in 0..<min(visibleRows, items.count - offset) {
            let index = offset + row
            let item = items[index]
            let selected = index == state.selectedWorkout
            let marker = selected ? g.selected : " "
            let day = item.dayLabel
            let dayWidth = max(6, DisplayWidth.of(day))
            var status = ""
            var statusStyle = CellStyle.plain
            switch item.summary.syncState {
            case .rejected:
                status = g.rejected
                statusStyle = .colored(.red, bold: true)
            case .pending:
                status = g.pending
                statusStyle = .colored(.yellow)
            case .synced:
                break
            }
            let statusWidth = status.isEmpty ? 0 : DisplayWidth.of(status) + 1
            let nameWidth = max(1, inner - 2 - dayWidth - 1 - statusWidth)
            let line = "\(marker) " + item.summary.workout.name.padded(to: nameWidth, ellipsis: g.ellipsis) + " "
            let rowY = y + 1 + row
            var style = CellStyle.plain
            if selected { style = state.focus == .workouts ? .reverse : .bold }
            buffer.fill(x: x + 1, y: rowY, count: inner, style: style)
            var column = x + 1
            column += buffer.put(line, x: column, y: rowY, style: style, maxWidth: inner)
            if !status.isEmpty {
                var s = statusStyle
                s.reverse = style.reverse
                column += buffer.put(status, x: column, y: rowY, style: s)
                column += 1
            }
            buffer.put(
                day.leftPadded(to: dayWidth), x: column, y: rowY, style: selected ? style : .dim,
                maxWidth: x + 1 + inner - column)
        }
    }

    // MARK: Sets pane

    /// Column widths of the sets table for an inner width.
    struct SetColumns {
        var position = 3
        var exercise: Int
        /// As wide as the widest weight on screen, from 8 up to 10 ("4409.25 lb", the 2000 kg
        /// limit shown in lb): a big weight shows whole, and the usual ones leave the exercise
        /// name its room at 80 columns.
        var weight: Int
        var reps = 4
        var rpe = 3
        var pr = 2
        var status: Int

        init(inner: Int, widestWeight: Int = 8, widestReps: Int = 4) {
            weight = min(max(8, widestWeight), 10)
            // A planned rep range "10–15" shows whole: the column grows to 5 for it.
            reps = min(max(4, widestReps), 5)
            // Leading space, #, exercise, weight, reps, RPE and PR with one space between each.
            let fixed = 1 + 3 + 1 + 1 + weight + 1 + reps + 1 + 3 + 1 + 2 + 1
            let rest = max(0, inner - fixed)
            exercise = min(max(8, rest - 7), 34)
            status = max(0, rest - exercise)
        }

        func header() -> String {
            "#".leftPadded(to: position) + " " + "Exercise".padded(to: exercise) + " " + "Weight".leftPadded(to: weight)
                + " "
                + "Reps".leftPadded(to: reps) + " " + "RPE".padded(to: rpe) + " " + "  " + " " + "Status"
        }
    }

    static func drawSetsPane(_ state: AppState, _ buffer: inout ScreenBuffer, x: Int, y: Int, width: Int, height: Int) {
        let g = state.glyphs
        var title = "Sets"
        if let workout = state.currentWorkout {
            title += " \(g.middleDot) \(DisplayText.standalone(workout.summary.workout.name))"
        }
        if !state.setFilter.isEmpty { title += " /\(state.setFilter)" }
        drawBox(&buffer, g, x: x, y: y, width: width, height: height, title: title, focused: state.focus == .sets)
        let inner = width - 2
        // The selected set's exercise's note in this workout, on the pane's last line.
        let note =
            state.focus == .sets
            ? state.currentSet.flatMap { row in
                state.currentWorkout?.summary.workout.exerciseNotes?[row.set.exercise].map { (row.set.exercise, $0) }
            } : nil
        let visibleRows = height - 3 - (note == nil ? 0 : 1)
        if let (exercise, text) = note {
            let line = " \(g.noteMark) \(exercise): " + Self.oneLine(text)
            buffer.put(
                line.clipped(to: inner, ellipsis: g.ellipsis), x: x + 1, y: y + height - 2, style: .dim,
                maxWidth: inner)
        }
        let rows = state.visibleSets
        let total = state.setsPaneCount
        let offset = scrollOffset(selected: state.selectedSet, count: total, visibleRows: visibleRows)
        let shown = offset < rows.count ? rows[offset..<min(rows.count, offset + visibleRows)] : []
        let weights = shown.map { Formatting.weight($0.set.weight, unit: $0.set.unit, shownIn: state.displayUnit) }
        // Planned rows follow the logged sets; only those on screen are formatted, as for sets.
        let plannedShown = max(0, offset - rows.count)..<max(0, min(total, offset + visibleRows) - rows.count)
        let plannedWeights = state.visiblePlanned[plannedShown].map {
            Formatting.weight($0.weight, unit: $0.unit, shownIn: state.displayUnit)
        }
        let columns = SetColumns(
            inner: inner, widestWeight: (weights + plannedWeights).map(\.count).max() ?? 8,
            widestReps: state.visiblePlanned[plannedShown].map { PlannedSet.repsText($0.reps, $0.repsMax).count }.max()
                ?? 4)
        buffer.put(
            (" " + columns.header()).clipped(to: inner, ellipsis: g.ellipsis), x: x + 1, y: y + 1,
            style: CellStyle(bold: true, underline: false), maxWidth: inner)
        if total == 0 {
            let text: String
            if !state.setFilter.isEmpty {
                text = "No set matches /\(state.setFilter)"
            } else if state.currentWorkout == nil, !state.workoutFilter.isEmpty {
                text = "No workout matches '\(state.workoutFilter)'. Esc clears the filter."
            } else if state.currentWorkout == nil {
                text =
                    "No workouts yet. Press \(KeyMap.name(of: .logSet)) to log a set, \(KeyMap.name(of: .startWorkout)) to start a workout."
            } else {
                text = "No sets yet. Press \(KeyMap.name(of: .logSet)) to log one."
            }
            buffer.put(
                (" " + text).clipped(to: inner, ellipsis: g.ellipsis), x: x + 1, y: y + 2, style: .dim, maxWidth: inner)
            return
        }
        let numbers = setNumbers(state.sets)
        for row in 0..<min(visibleRows, total - offset) {
            let index = offset + row
            if index < rows.count {
                drawSetRow(
                    rows[index], number: numbers[rows[index].set.id] ?? rows[index].set.position, weight: weights[row],
                    selected: index == state.selectedSet,
                    focused: state.focus == .sets, columns: columns, g, &buffer, x: x + 1, y: y + 2 + row, inner: inner)
            } else {
                drawPlannedRow(
                    state.visiblePlanned[index - rows.count],
                    weight: plannedWeights[index - rows.count - plannedShown.lowerBound],
                    selected: index == state.selectedSet, focused: state.focus == .sets, columns: columns, g,
                    display: state.displayUnit, &buffer, x: x + 1, y: y + 2 + row, inner: inner)
            }
        }
    }

    /// Free text on one row: its line breaks and tabs as spaces (other controls are never stored).
    static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\t" || $0 == "\r\n" ? " " : $0 })
    }

    /// A superset's letter: A for the first of a workout, B for the second, … (S past Z).
    static func supersetLetter(_ group: Int) -> String {
        (1...26).contains(group) ? String(UnicodeScalar(UInt8(64 + group))) : "S"
    }

    /// A set's kind in the position column: W, F, D, or `normal` (its position, its superset).
    static func kindLabel(_ kind: SetKind, normal: String) -> String {
        switch kind {
        case .normal: normal
        case .warmup: "W"
        case .failure: "F"
        case .drop: "D"
        }
    }

    /// The columns a logged set and a planned one share: position, exercise, weight, reps, RPE.
    static func rowText(
        position: String, exercise: String, weight: String, reps: String, rpe: Double?, columns: SetColumns,
        _ g: Glyphs
    ) -> String {
        " " + position.leftPadded(to: columns.position) + " "
            + exercise.padded(to: columns.exercise, ellipsis: g.ellipsis) + " "
            + weight.leftPadded(to: columns.weight) + " "
            + reps.leftPadded(to: columns.reps) + " "
            + (rpe.map(Formatting.number) ?? "").padded(to: columns.rpe) + " "
    }

    /// Each set's number within its exercise in the workout, as Strong and Hevy count them: the
    /// work sets 1, 2, 3 in the order performed, warm-ups (shown as W) not counted.
    static func setNumbers(_ rows: [SetRow]) -> [UUID: Int] {
        var counts: [String: Int] = [:]
        var numbers: [UUID: Int] = [:]
        for row in rows.sorted(by: { ($0.set.position, $0.set.performedAt) < ($1.set.position, $1.set.performedAt) })
        where row.set.kind != .warmup {
            counts[row.set.exercise, default: 0] += 1
            numbers[row.set.id] = counts[row.set.exercise]
        }
        return numbers
    }

    /// One row of the sets table; `weight` is the set's weight as shown (in the lifter's unit).
    static func drawSetRow(
        _ row: SetRow, number: Int, weight: String, selected: Bool, focused: Bool, columns: SetColumns, _ g: Glyphs,
        _ buffer: inout ScreenBuffer, x: Int, y: Int, inner: Int
    ) {
        let set = row.set
        let base: CellStyle = selected ? (focused ? .reverse : .bold) : .plain
        buffer.fill(x: x, y: y, count: inner, style: base)
        // A set of a superset shows its group's letter before its number, as lifters write it: A1, B2.
        let label = set.superset.map { supersetLetter($0) + String(number) } ?? String(number)
        let text = rowText(
            position: kindLabel(set.kind, normal: label), exercise: set.exercise, weight: weight,
            reps: String(set.reps), rpe: set.rpe, columns: columns, g)
        var column = x + buffer.put(text, x: x, y: y, style: base, maxWidth: inner)
        var prStyle = CellStyle.colored(.yellow, bold: true)
        prStyle.reverse = base.reverse
        let badge =
            switch row.record {
            case .oneRepMax: "PR"
            case .reps: "RR"
            case nil: "  "
            }
        column += buffer.put(badge, x: column, y: y, style: prStyle, maxWidth: x + inner - column)
        column += 1
        let room = x + inner - column
        guard room > 0 else { return }
        var status: String
        var statusStyle: CellStyle
        switch row.syncState {
        case .synced:
            status = g.synced
            statusStyle = .colored(.green)
        case .pending:
            // A pending set that says why (it gave up without an answer, or waits on a workout
            // that did, or for the token to be checked) shows it.
            status = g.pending + (row.syncError.map { " " + $0 } ?? "")
            statusStyle = .colored(.yellow)
        case .rejected:
            status = g.rejected + " " + (row.syncError ?? "rejected")
            statusStyle = .colored(.red, bold: true)
        }
        statusStyle.reverse = base.reverse
        status = status.clipped(to: room, ellipsis: g.ellipsis)
        buffer.put(status, x: column, y: y, style: statusStyle, maxWidth: room)
    }

    // MARK: Debug pane

    /// Whole seconds from `now` to `date`, held within a century either way: a time read from a
    /// damaged row (1e300) or a server's (9.2e18 seconds away) is shown far off, never a trap.
    static func secondsUntil(
        _ date: Date, from now: Date, rounding rule: FloatingPointRoundingRule = .toNearestOrEven
    )
        -> Int
    {
        let seconds = date.timeIntervalSince(now)
        guard seconds.isFinite else { return seconds > 0 ? century : seconds < 0 ? -century : 0 }
        return Int(min(max(seconds, -Double(century)), Double(century)).rounded(rule))
    }

    static let century = 100 * 366 * 86_400

    static func relativeFormatter(_ date: Date, _ now: Date) -> String {
        let seconds = secondsUntil(date, from: now)
        if seconds <= 0 { return "now" }
        if seconds < 60 { return "in \(seconds)s" }
        if seconds < 3600 { return "in \(seconds / 60)m" }
        if seconds < 100 * 3600 { return "in \(seconds / 3600)h" }
        if seconds < 100 * 86_400 { return "in \(seconds / 86_400)d" }
        return "later"
    }

    static func drawDebugPane(_ state: AppState, _ buffer: inout ScreenBuffer, top: Int, height: Int) {
        let g = state.glyphs
        let width = state.columns
        let hasBottom = height >= 23
        let counts = state.counts
        let title =
            "Debug \(g.middleDot) outbox, newest 20 \(g.middleDot) \(counts.pending) queued, \(counts.inFlight) in flight, \(counts.failed) failed, \(counts.gaveUp + counts.blockedOnNoAnswer) gave up (no answer), \(counts.blocked) blocked"
        drawBox(
            &buffer, g, x: 0, y: top, width: width, height: height, title: title, focused: true, bottomBorder: hasBottom
        )
        let inner = width - 2
        let opWidth = 8
        let entityWidth = 16
        let kindWidth = 6
        let stateWidth = 16
        let attemptsWidth = 3
        let nextWidth = 6  // "in 59s", "in 59m", "in 3h", "now": the entity column took the other two
        let statusWidth = 4
        func line(
            _ op: String, _ entity: String, _ kind: String, _ state: String, _ attempts: String, _ next: String,
            _ status: String, _ error: String
        ) -> String {
            " " + op.padded(to: opWidth, ellipsis: "") + " " + entity.padded(to: entityWidth, ellipsis: g.ellipsis)
                + " "
                + kind.padded(to: kindWidth) + " " + state.padded(to: stateWidth) + " "
                + attempts.leftPadded(to: attemptsWidth) + " "
                + next.padded(to: nextWidth) + " " + status.padded(to: statusWidth) + " " + error
        }
        buffer.put(
            line("op", "entity", "kind", "state", "att", "next", "http", "last error").clipped(
                to: inner, ellipsis: g.ellipsis), x: 1, y: top + 1, style: .bold, maxWidth: inner)
        let rowsAvailable = height - 2 - (hasBottom ? 1 : 0)
        if state.outbox.isEmpty {
            buffer.put(
                " The outbox is empty.".clipped(to: inner, ellipsis: g.ellipsis), x: 1, y: top + 2, style: .dim,
                maxWidth: inner)
            return
        }
        for (index, op) in state.outbox.prefix(min(20, rowsAvailable)).enumerated() {
            let next: String
            if op.state == .failedTransient || op.state == .pending, let at = op.nextAttemptAt {
                next = relativeFormatter(at, state.now)
            } else {
                next = "-"
            }
            // The tail of each id: its head is the time it was made, the same for a burst of rows.
            let entity = "\(op.entityType.rawValue) \(AppState.distinctPart(of: op.entityID))"
            let text = line(
                AppState.distinctPart(of: op.opID), entity, op.kind.rawValue, op.state.rawValue,
                String(op.attemptCount), next,
                op.lastStatus.map(String.init) ?? "-", op.lastError ?? "")
            let style: CellStyle
            switch op.state {
            case .succeeded: style = .colored(.green)
            case .pending, .inFlight: style = .colored(.yellow)
            case .failedTransient: style = .colored(.magenta)
            case .failedPermanent, .blocked: style = .colored(.red)
            }
            buffer.put(
                text.clipped(to: inner, ellipsis: g.ellipsis), x: 1, y: top + 2 + index, style: style, maxWidth: inner)
        }
    }

    // MARK: Bottom bar

    static func hints(_ state: AppState) -> String {
        if case .routineEditor(let editor) = state.overlay {
            return " " + KeyMap.hints(editor.form == nil ? .routineEditor : .routineForm)
        }
        switch state.overlay {
        case .progress(let view):
            return view.page == .chart ? " " + KeyMap.hints(.progress) : " Tab chart  Esc close"
        case .calendar(let view):
            return " "
                + (view.dayWorkouts == nil ? KeyMap.hints(.calendar) : "Enter open  j/k move  Esc back to the year")
        case .muscleVolume: return " " + KeyMap.hints(.muscleVolume)
        default: break
        }
        if let row = state.currentSet, row.syncState == .rejected, state.focus == .sets {
            return " \(state.glyphs.rejected) \(row.syncError ?? "rejected")  \(KeyMap.hints(.rejectedSet))"
        }
        if let planned = state.currentPlanned {
            let keys = planned.status == .skipped ? "x unskip" : "Enter log  e edit first  x skip"
            return
                " \(keys)  \(state.glyphs.middleDot) \(planned.hint.map { Formatting.weights(in: $0, shownIn: state.displayUnit) } ?? "planned")"
        }
        let full = " " + KeyMap.hints(.browse)
        return DisplayWidth.of(full) <= bottomBarWidth(state) ? full : " " + KeyMap.hints(.browseNarrow)
    }

    /// What the bottom bar may fill: every column but the last, since the terminal's bottom-right
    /// cell cannot be written without scrolling the screen (the terminal adapter leaves it blank).
    static func bottomBarWidth(_ state: AppState) -> Int {
        max(1, state.columns - 1)
    }

    static func drawBottomBar(_ state: AppState, _ buffer: inout ScreenBuffer) {
        let y = state.rows - 1
        let width = bottomBarWidth(state)
        switch state.overlay {
        case .confirmDelete(let target):
            // The name is what gives way: the question's words and the y/n keys always show.
            let parts: (before: String, name: String, after: String)
            switch target {
            case .set(_, let description): parts = (" Delete set ", description, "?")
            case .workout(_, let name, let count):
                parts = (" Delete workout ", name, " and its \(count) set\(count == 1 ? "" : "s")?")
            case .routine(_, let name):
                parts = (" Delete routine ", name, "? Workouts started from it stay.")
            case .discard(_, _, let description):
                parts = (" This ", description, ". Discard?")
            }
            let style = CellStyle(color: .red, bold: true, reverse: true)
            buffer.fill(x: 0, y: y, count: width, style: style)
            buffer.put(
                lineKeepingKeys(
                    before: parts.before, name: parts.name, after: parts.after + "  ",
                    keys: KeyMap.hints(.confirmDelete), width: width, ellipsis: state.glyphs.ellipsis),
                x: 0, y: y, style: style, maxWidth: width)
            return
        case .plates(let input):
            // The prompt stays open on a refusal, so its reason stands just above it.
            putRefusal(state, &buffer, above: y)
            buffer.fill(x: 0, y: y, count: width, style: .reverse)
            putPrompt(
                label: " Plates \(input.unit.rawValue): ", field: input.field,
                hints: "   " + KeyMap.hints(.plates), &buffer, y: y, width: width, ellipsis: state.glyphs.ellipsis)
            return
        case .bodyWeight(let input):
            // Above the prompt: why it refused what was typed, else the last weigh-in.
            if y > 1, !putRefusal(state, &buffer, above: y), let last = input.last {
                buffer.fill(x: 0, y: y - 1, count: state.columns)
                buffer.put(
                    " " + last.clipped(to: state.columns - 1, ellipsis: state.glyphs.ellipsis), x: 0, y: y - 1,
                    style: CellStyle(dim: true))
            }
            buffer.fill(x: 0, y: y, count: width, style: .reverse)
            putPrompt(
                label: " Body weight \(input.unit.rawValue): ", field: input.field,
                hints: "   " + KeyMap.hints(.bodyWeight), &buffer, y: y, width: width, ellipsis: state.glyphs.ellipsis)
            return
        case .newWorkout(let name):
            // A refusal (a control character left out of a paste) stands just above the prompt.
            putRefusal(state, &buffer, above: y)
            buffer.fill(x: 0, y: y, count: width, style: .reverse)
            putPrompt(
                label: " New workout name: ", field: name, hints: "   " + KeyMap.hints(.newWorkout), &buffer, y: y,
                width: width, ellipsis: state.glyphs.ellipsis)
            return
        case .routineEditor(let editor) where editor.confirmingDiscard:
            let style = CellStyle(color: .red, bold: true, reverse: true)
            buffer.fill(x: 0, y: y, count: width, style: style)
            buffer.put(
                lineKeepingKeys(
                    before: " Unsaved changes to ", name: editor.routine.name, after: ".  ",
                    keys: KeyMap.hints(.confirmDiscard), width: width, ellipsis: state.glyphs.ellipsis),
                x: 0, y: y, style: style, maxWidth: width)
            return
        default:
            break
        }
        if let input = state.filterInput {
            drawFilterSuggestions(input, state, &buffer, above: y)
            putRefusal(state, &buffer, above: y)
            buffer.fill(x: 0, y: y, count: width, style: .reverse)
            let pane = input.pane == .sets ? "sets by exercise" : "workouts by name"
            putPrompt(
                label: " /", field: input.field, hints: "   filter \(pane)  \(KeyMap.hints(.filter))", &buffer, y: y,
                width: width, ellipsis: state.glyphs.ellipsis)
            return
        }
        if let message = state.message {
            let style = message.isError ? CellStyle(color: .red, bold: true) : CellStyle(color: .cyan, bold: true)
            buffer.put(
                " " + message.text.clipped(to: width - 1, ellipsis: state.glyphs.ellipsis), x: 0, y: y, style: style)
            return
        }
        let text = hints(state)
        let rejectedHint = state.currentSet?.syncState == .rejected && state.focus == .sets
        buffer.put(
            text.clipped(to: width, ellipsis: state.glyphs.ellipsis), x: 0, y: y,
            style: rejectedHint ? .colored(.red, bold: true) : .dim)
    }

    /// The filter's suggestions, in a box standing on the bottom bar under the pane it narrows:
    /// the highlighted row is what Enter keeps; the last row, when the typed text is not itself a
    /// suggestion, keeps the typed text ("all matching 'x'").
    static func drawFilterSuggestions(
        _ input: FilterInput, _ state: AppState, _ buffer: inout ScreenBuffer, above y: Int
    ) {
        let suggestions = state.filterSuggestions
        guard !suggestions.isEmpty else { return }
        let g = state.glyphs
        let offersTyped = TypeAhead.offersCustom(typed: input.text, suggestions: suggestions)
        let shown = Array(suggestions.prefix(TypeAhead.shownCount(typed: input.text, suggestions: suggestions)))
        let count = shown.count + (offersTyped ? 1 : 0)
        let paneX = input.pane == .sets ? workoutsPaneWidth(columns: state.columns) : 0
        let x = min(paneX, max(0, state.columns - 20))
        let width = min(max(20, state.columns - x - 1), 48)
        let top = y - count
        guard top >= 1, width >= 8 else { return }
        for (index, name) in shown.enumerated() {
            let highlighted = index == input.highlighted
            buffer.fill(x: x, y: top + index, count: width, style: highlighted ? .reverse : .plain)
            buffer.put(
                "\(highlighted ? g.selected : " ") \(name)".clipped(to: width, ellipsis: g.ellipsis), x: x,
                y: top + index, style: highlighted ? .reverse : .plain, maxWidth: width)
        }
        if offersTyped {
            let highlighted = input.highlighted == TypeAhead.customRow
            let typed = input.text.trimmingCharacters(in: .whitespaces)
            buffer.fill(x: x, y: top + shown.count, count: width, style: highlighted ? .reverse : .dim)
            buffer.put(
                "\(highlighted ? g.selected : " ") all matching '\(typed)'".clipped(to: width, ellipsis: g.ellipsis),
                x: x, y: top + shown.count, style: highlighted ? .reverse : .dim, maxWidth: width)
        }
    }

    /// Why the prompt at row `y` refused what came (an error message), on the row above it, which
    /// the prompt's own line has no room for; whether there was one.
    @discardableResult
    static func putRefusal(_ state: AppState, _ buffer: inout ScreenBuffer, above y: Int) -> Bool {
        guard let message = state.message, message.isError, y > 1 else { return false }
        buffer.fill(x: 0, y: y - 1, count: state.columns)
        buffer.put(
            " " + message.text.clipped(to: state.columns - 1, ellipsis: state.glyphs.ellipsis), x: 0, y: y - 1,
            style: CellStyle(color: .red, bold: true))
        return true
    }

    /// A bottom-bar line that names something: the name is clipped (with an ellipsis) so the
    /// words around it and the keys at the end always show; when even they do not fit, the whole
    /// line is clipped.
    static func lineKeepingKeys(
        before: String, name: String, after: String, keys: String, width: Int, ellipsis: String
    ) -> String {
        let fixed = DisplayWidth.of(before) + DisplayWidth.of(after) + DisplayWidth.of(keys)
        let room = width - fixed
        let shownName = name.clipped(to: max(room, DisplayWidth.of(ellipsis)), ellipsis: ellipsis)
        return (before + shownName + after + keys).clipped(to: width, ellipsis: ellipsis)
    }

    /// A prompt on the bottom bar: its label, the field being typed (scrolled so its cursor shows)
    /// and the keys, which give way to the field when the screen is too narrow for both.
    static func putPrompt(
        label: String, field: TextField, hints: String, _ buffer: inout ScreenBuffer, y: Int, width: Int,
        ellipsis: String
    ) {
        let labelWidth = DisplayWidth.of(label)
        var hints = hints
        var room = width - labelWidth - DisplayWidth.of(hints)
        if room < 12 {
            hints = ""
            room = width - labelWidth
        }
        var x = buffer.put(label, x: 0, y: y, style: .reverse, maxWidth: width)
        x += putEditing(
            field, &buffer, x: x, y: y, style: .reverse, cursorStyle: .plain, maxWidth: max(1, room), ellipsis: ellipsis
        )
        if !hints.isEmpty, x < width {
            buffer.put(
                hints.clipped(to: width - x, ellipsis: ellipsis), x: x, y: y, style: .reverse, maxWidth: width - x)
        }
    }

    /// Draws a field being typed into with its cursor: "_" after the text, or the character
    /// under the cursor in `cursorStyle`, within `maxWidth` columns. A text wider than that
    /// scrolls: the start goes out of view so the cursor and the characters just before it show
    /// (as a shell's line does), and the end is clipped with an ellipsis; whole characters only.
    /// Returns the columns written.
    @discardableResult
    static func putEditing(
        _ field: TextField, _ buffer: inout ScreenBuffer, x: Int, y: Int, style: CellStyle, cursorStyle: CellStyle,
        maxWidth: Int = Int.max, ellipsis: String = "…"
    ) -> Int {
        let parts = field.parts
        let room = maxWidth == Int.max ? max(0, buffer.width - x) : max(0, maxWidth)
        guard room > 0 else { return 0 }
        let cursorText = parts.underCursor.map { String($0) } ?? "_"
        let cursorWidth = max(1, DisplayWidth.of(cursorText))
        let beforeWidth = DisplayWidth.of(parts.beforeCursor)
        var before = parts.beforeCursor
        if beforeWidth + cursorWidth > room {
            // Scrolled: the characters nearest the cursor that fit before it.
            let available = room - cursorWidth
            var kept = parts.beforeCursor.endIndex
            var used = 0
            while kept > parts.beforeCursor.startIndex, available > 0 {
                let previous = parts.beforeCursor.index(before: kept)
                let width = DisplayWidth.of(parts.beforeCursor[previous])
                if used + width > available { break }
                used += width
                kept = previous
            }
            before = String(parts.beforeCursor[kept...])
        }
        var column = buffer.put(before, x: x, y: y, style: style, maxWidth: room)
        column += buffer.put(
            cursorText, x: x + column, y: y, style: parts.underCursor == nil ? style : cursorStyle,
            maxWidth: room - column)
        if room - column > 0, !parts.afterCursor.isEmpty {
            column += buffer.put(
                parts.afterCursor.clipped(to: room - column, ellipsis: ellipsis), x: x + column, y: y, style: style,
                maxWidth: room - column)
        }
        return column
    }

    // MARK: Overlays

    static func drawForm(_ form: SetForm, _ state: AppState, _ buffer: inout ScreenBuffer) {
        let g = state.glyphs
        let width = min(64, state.columns - 4)
        let suggestionRows = 5
        // Three sessions of history and the trend line, when there is history.
        let historyRows = form.history == nil ? 0 : 4
        let height = 2 + 1 + suggestionRows + 4 + historyRows + 1 + 1
        let x = (state.columns - width) / 2
        let y = max(1, (state.rows - height) / 2)
        for row in y..<(y + height) { buffer.fill(x: x, y: row, count: width) }
        drawBox(&buffer, g, x: x, y: y, width: width, height: height, title: form.title, focused: true)
        let labelWidth = 10
        let valueX = x + 2 + labelWidth
        let valueWidth = width - labelWidth - 4
        func field(_ field: SetForm.Field, row: Int, value: String, unit: String = "", hint: String = "") {
            let focused = form.focus == field
            buffer.put(field.label, x: x + 2, y: row, style: focused ? .bold : .plain)
            // A filled-in field that typing would replace is drawn selected.
            let selected = focused && form[input: field].isSelected && !value.isEmpty
            let style = selected ? CellStyle.reverse : focused ? CellStyle(underline: true) : CellStyle.plain
            buffer.fill(x: valueX, y: row, count: min(valueWidth, 30), style: style)
            var used =
                focused && field != .kind && !selected
                ? putEditing(
                    form[input: field], &buffer, x: valueX, y: row, style: style,
                    cursorStyle: CellStyle(reverse: true, underline: true), maxWidth: valueWidth,
                    ellipsis: g.ellipsis)
                : buffer.put(
                    value.clipped(to: valueWidth, ellipsis: g.ellipsis), x: valueX, y: row, style: style,
                    maxWidth: valueWidth)
            if !unit.isEmpty, used < valueWidth {
                // The unit stands right after the number ("200 kg") but is not part of the text:
                // Backspace edits digits.
                used += buffer.put(
                    " " + unit, x: valueX + used, y: row,
                    style: focused ? CellStyle(dim: true, underline: true) : .dim, maxWidth: valueWidth - used)
            }
            if !hint.isEmpty {
                buffer.put(
                    hint, x: valueX + max(used, min(valueWidth, 30)) + 1, y: row, style: .dim,
                    maxWidth: x + width - 2 - (valueX + max(used, 30)))
            }
        }
        var row = y + 1
        field(.exercise, row: row, value: form.exercise)
        row += 1
        if form.focus == .exercise {
            // Typed text no suggestion spells is offered as a new custom exercise, on the last row:
            // highlighted when nothing matched or the lifter went down past the last suggestion.
            let offersCustom = TypeAhead.offersCustom(typed: form.exercise, suggestions: form.suggestions)
            let shown = form.suggestions.prefix(offersCustom ? suggestionRows - 1 : suggestionRows)
            for (index, name) in shown.enumerated() {
                let highlighted = index == form.highlighted
                let star = form.starred.contains(name.lowercased()) ? g.star : " "
                let text = "\(highlighted ? g.selected : " ") \(star) \(name)"
                buffer.put(
                    text.clipped(to: valueWidth, ellipsis: g.ellipsis), x: valueX - 2, y: row + index,
                    style: highlighted ? .reverse : .plain)
            }
            if offersCustom {
                let highlighted = !form.suggestions.indices.contains(form.highlighted)
                let typed = form.exercise.trimmingCharacters(in: .whitespaces)
                buffer.put(
                    "\(highlighted ? g.selected : " ") + new custom exercise '\(typed)'".clipped(
                        to: valueWidth, ellipsis: g.ellipsis), x: valueX - 2, y: row + shown.count,
                    style: highlighted ? .reverse : .dim)
            }
        } else if let prefilled = form.prefilledFrom, form.purpose.logsNewSet {
            var note = form.prefillNote.map { "prefilled: \($0)" } ?? "no earlier \(prefilled) set: type the numbers"
            if let new = form.newCustomExercise, new == prefilled {
                note = "new custom exercise '\(new)': saving adds it (type the numbers)"
            }
            if case .logPlanned = form.purpose { note = form.prefillNote ?? "" }
            buffer.put(note.clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: row, style: .dim)
        }
        row += suggestionRows
        let unitHint =
            form.weight.lowercased().contains("k") || form.weight.lowercased().contains("l") ? "" : form.unit.rawValue
        if form.focus != .exercise, case .log = form.purpose, let ramp = form.warmupText {
            buffer.put("Warm-up", x: x + 2, y: row - 2, style: .dim)
            buffer.put(
                "^W \(ramp)".clipped(to: valueWidth, ellipsis: g.ellipsis), x: valueX, y: row - 2, style: .dim)
        }
        if form.focus != .exercise, let plates = form.platesText {
            // The plates stand just above the weight, in the rows the suggestions use while the
            // exercise is typed.
            buffer.put("Plates", x: x + 2, y: row - 1, style: .dim)
            buffer.put(plates.clipped(to: valueWidth, ellipsis: g.ellipsis), x: valueX, y: row - 1, style: .plain)
        }
        field(.weight, row: row, value: form.weight, unit: unitHint)
        field(.reps, row: row + 1, value: form.reps)
        field(.rpe, row: row + 2, value: form.rpe, hint: "optional, 1-10")
        field(
            .kind, row: row + 3, value: form.kind.rawValue,
            hint: "n/w/f/d or ←→".replacingOccurrences(of: "←→", with: g == .ascii ? "<>" : "←→"))
        row += 4
        if let history = form.history {
            var title = "Last sessions"
            if history.trend.count > 1 {
                title += "  e1RM \(sparkline(history.trend, glyphs: g)) (\(history.trend.count))"
            }
            buffer.put(title.clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: row, style: .bold)
            for (index, line) in history.lines.prefix(3).enumerated() {
                buffer.put(
                    line.clipped(to: width - 6, ellipsis: g.ellipsis), x: x + 4, y: row + 1 + index, style: .dim)
            }
            row += historyRows
        }
        if let error = form.error {
            buffer.put(
                error.clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: row, style: .colored(.red, bold: true))
        }
        row += 1
        buffer.put(
            KeyMap.hints(.form).clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: row, style: .dim)
    }

    /// Block characters for a trend, lowest to highest; ASCII without a UTF-8 locale.
    static func sparkline(_ values: [Double], glyphs: Glyphs) -> String {
        let levels: [Character] =
            glyphs == .ascii ? ["_", ".", "-", "~", "=", "+", "*", "#"] : ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
        guard let low = values.min(), let high = values.max() else { return "" }
        let span = high - low
        return String(
            values.map { value in
                let level =
                    span <= 1e-9 ? levels.count / 2 : Int(((value - low) / span * Double(levels.count - 1)).rounded())
                return levels[min(max(level, 0), levels.count - 1)]
            })
    }

    static func drawHistory(_ view: HistoryView, _ state: AppState, _ buffer: inout ScreenBuffer) {
        let g = state.glyphs
        let width = min(max(72, state.columns * 3 / 4), state.columns - 4)
        let height = state.historyPageSize + 4
        let x = (state.columns - width) / 2
        let y = max(1, (state.rows - height) / 2)
        for row in y..<(y + height) { buffer.fill(x: x, y: row, count: width) }
        let shown = view.lines.isEmpty ? 0 : view.offset + view.lines.count
        let title = "History \(g.middleDot) \(view.exercise) \(g.middleDot) \(view.total) sessions"
        drawBox(&buffer, g, x: x, y: y, width: width, height: height, title: title, focused: true)
        if view.lines.isEmpty {
            buffer.put("No sessions yet", x: x + 2, y: y + 1, style: .dim)
        }
        for (index, line) in view.lines.enumerated() {
            buffer.put(line.clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: y + 1 + index)
        }
        let footer = "\(view.lines.isEmpty ? 0 : view.offset + 1)-\(shown) of \(view.total)  \(KeyMap.hints(.history))"
        buffer.put(footer.clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: y + height - 2, style: .dim)
    }

    /// The help screen's lines, from the key map.
    static var helpLines: [HelpLine] { KeyMap.helpLines }

    static func drawHelp(_ state: AppState, _ buffer: inout ScreenBuffer) {
        let g = state.glyphs
        // As wide as the longest line (key column, text, borders), within the screen.
        let width = min((helpLines.map { DisplayWidth.of($0.text) }.max() ?? 40) + 19, state.columns - 4)
        // As many lines as fit between the header and the bottom bar; j/k scroll the rest.
        let shown = state.helpRowsShown
        let first = min(state.helpScroll, state.helpScrollLimit)
        let height = shown + 4
        let x = (state.columns - width) / 2
        let y = max(1, (state.rows - height) / 2)
        for row in y..<(y + height) { buffer.fill(x: x, y: row, count: width) }
        drawBox(&buffer, g, x: x, y: y, width: width, height: height, title: "Help", focused: true)
        for (index, line) in helpLines[first..<(first + shown)].enumerated() {
            let shownKey = g == .ascii ? line.key.replacingOccurrences(of: "↑ ↓", with: "up dn") : line.key
            buffer.put(shownKey.padded(to: 12), x: x + 2, y: y + 1 + index, style: .bold)
            buffer.put(line.text.clipped(to: width - 17, ellipsis: g.ellipsis), x: x + 15, y: y + 1 + index)
        }
        let footer =
            state.helpScrollLimit > 0
            ? "\(first + 1)-\(first + shown) of \(helpLines.count)  \(KeyMap.hints(.help))" : KeyMap.hints(.help)
        buffer.put(footer.clipped(to: width - 4, ellipsis: g.ellipsis), x: x + 2, y: y + height - 2, style: .dim)
    }

    static func drawTooSmall(_ state: AppState, _ buffer: inout ScreenBuffer) {
        let lines = [
            "Terminal too small",
            "\(state.columns)x\(state.rows), needs at least \(AppState.minimumColumns)x\(AppState.minimumRows)",
            "Enlarge the window, or press \(KeyMap.hints(.tooSmall))",
        ]
        let top = max(0, state.rows / 2 - 1)
        for (index, line) in lines.enumerated() {
            let shown = line.clipped(to: state.columns, ellipsis: state.glyphs.ellipsis)
            let x = max(0, (state.columns - DisplayWidth.of(shown)) / 2)
            buffer.put(shown, x: x, y: top + index, style: index == 0 ? .colored(.red, bold: true) : .plain)
        }
    }
}
