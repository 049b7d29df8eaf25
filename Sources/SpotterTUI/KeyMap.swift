/// Where a key is read: the screen or overlay that has the keyboard. Some layer over others
/// (the form's exercise field over its text editing over the form), see `AppState.keyContexts`.
public enum KeyContext: Sendable, Equatable, Hashable, CaseIterable {
    /// The two panes, no overlay.
    case browse
    /// Typing a `/` filter.
    case filter
    /// Typing a new workout's name.
    case newWorkout
    /// `P`: the bar and plates owned, typed on the bottom bar.
    case plates
    /// `B`: a weigh-in, typed on the bottom bar.
    case bodyWeight
    /// `W`: the weigh-ins.
    case weighIns
    /// Any text being typed: the filter, the workout name, the form's text fields.
    case textField
    /// The set form, whichever field has focus.
    case form
    /// The form's exercise field: the arrows browse the type-ahead.
    case exerciseField
    /// The form's kind field: the arrows and initials choose a kind.
    case kindField
    /// An exercise's whole history.
    case history
    /// "Delete …?"
    case confirmDelete
    case help
    /// The "Start routine" list.
    case routinePicker
    /// A routine's plan being edited: its exercises and planned sets.
    case routineEditor
    /// The editor's form for one exercise or one planned set.
    case routineForm
    /// Typing a routine's name (a new routine, or a rename).
    case routineName
    /// Esc in the editor with changes not saved yet: discard, save or keep editing.
    case confirmDiscard
    /// The terminal is below 80x24: only the "too small" notice is on screen.
    case tooSmall
    /// `C`: the values another device's edit replaced.
    case conflicts
    /// `e` on the workouts pane: its name and notes.
    case workoutEdit
    /// A finished workout's summary.
    case workoutSummary
    /// `c`: an exercise's chart and records.
    case progress
    /// `Y`: the training calendar.
    case calendar
    /// `V`: weekly volume per muscle.
    case muscleVolume
}

/// What a key does, whatever key it is.
public enum KeyAction: Sendable, Equatable, Hashable {
    // The panes.
    case quit, showHelp, logSet, logSetIntoSelected, editSet, showExerciseHistory, deleteSelected, startWorkout
    case toggleAirplane, toggleStar, cycleDisplayUnit, skipRest, extendRest, toggleDebug, syncNow
    case retryRejected, discardRejected, startFilter, startRoutine, saveAsRoutine
    case moveDown, moveUp, pageDown, pageUp, moveToFirst, moveToLast
    case switchPane, focusWorkouts, focusSets, openWorkout, back, editPlates, otherUnit
    case logBodyWeight, toggleSuperset, showWeighIns
    // Overlays.
    case closeHelp
    case closeHistory, historyNextPage, historyPreviousPage, historyFirstPage, historyLastPage
    case confirmDelete, keepItem
    /// Enter: save the form, create the workout, keep the filter.
    case submit
    /// Esc: close the form, cancel the workout, clear the filter.
    case cancel
    case nextField, previousField, nextSuggestion, previousSuggestion, formHistory, starSuggestion, planWarmups
    case previousKind, nextKind
    case edit(TextEdit)
    // The routine list and editor.
    case editRoutine, newRoutine, renameRoutine, deleteRoutine
    case editRoutineRow, addExercise, addPlannedSet, removeRoutineRow, moveExerciseDown, moveExerciseUp
    case saveRoutine, discardChanges, keepEditing
    // Conflicts.
    case showConflicts, takeConflict, dismissConflict
    // A workout's name, notes and end.
    case finishWorkout
    /// `o`: the note on the selected set's exercise in its workout.
    case noteExercise
    /// Take back this device's last action (again: the one before).
    case undo
    // Progress: the chart and records, the calendar, the volume per muscle.
    case showProgress, showCalendar, showMuscleVolume
    case cycleMetric, cycleRange, previousPoint, nextPoint, switchProgressPage, morePerWeek, fewerPerWeek
}

/// A line of hints a binding shows up in.
public enum HintBar: Sendable, Equatable, Hashable, CaseIterable {
    /// The bottom bar over the panes, and its shorter form for narrow terminals.
    case browse, browseNarrow
    /// The bottom bar when the selected set was rejected.
    case rejectedSet
    /// The set form's last line.
    case form
    /// The bottom bar while typing a filter / a workout name / confirming a delete.
    case filter, newWorkout, confirmDelete, plates, bodyWeight, weighIns
    /// The history view's footer, and the help screen's.
    case history, help
    /// The "terminal too small" notice.
    case tooSmall
    /// The routine list's footer, the editor's bottom bar, its form's last line, the routine
    /// name dialog's, and the bottom bar asking what to do with unsaved changes.
    case routinePicker, routineEditor, routineForm, routineName, confirmDiscard
    /// The conflicts list's footer.
    case conflicts
    /// The workout form's and the finished workout's last lines.
    case workoutEdit, workoutSummary
    /// The progress screens' last lines.
    case progress, calendar, muscleVolume
}

/// A binding's text on one hint bar: "n log set".
public struct Hint: Sendable, Equatable {
    public var bar: HintBar
    public var text: String
}

/// How a binding is listed on the help screen.
public enum HelpPlacement: Sendable, Equatable {
    /// A line of its own: "n  log into today's workout …".
    case line(key: String, text: String)
    /// Joined to the line before with " / ", keys and texts alike: "r / x  retry / discard …".
    case alternative(key: String, text: String)
    /// Added to the line before after a ";": "?  this help;  q  quit".
    case also(key: String, text: String)
    /// Part of the line named `row`, texts joined with ", ": "In the form  Enter saves, …".
    case fragment(row: String, text: String)
    /// Listed by the line before it (the same move, another key: ↑ beside j k).
    case sameLine
}

/// One key binding: the keys, where they work, what they do, and how hints and help say so.
public struct KeyBinding: Sendable, Equatable {
    public var keys: [Key]
    public var context: KeyContext
    public var action: KeyAction
    public var hints: [Hint]
    /// Nil: not on the help screen (overlay keys, which name themselves in their own hints).
    public var help: HelpPlacement?

    init(
        _ keys: [Key], _ context: KeyContext, _ action: KeyAction, hints: [Hint] = [], help: HelpPlacement? = nil
    ) {
        self.keys = keys
        self.context = context
        self.action = action
        self.hints = hints
        self.help = help
    }
}

/// A line of the help screen: the key column and its text.
public struct HelpLine: Sendable, Equatable {
    public var key: String
    public var text: String
}

/// Every key binding of the UI, each once. The reducer dispatches through it; the hint bars
/// and the help screen are drawn from it, so what the screen says is what the keys do.
public enum KeyMap {
    private static func c(_ character: Character) -> Key { .character(character) }

    /// In the order the hint bars and the help screen list them.
    public static let bindings: [KeyBinding] = [
        KeyBinding(
            [c("U")], .browse, .undo,
            help: .line(key: "U", text: "undo the last log, edit, delete, rename or finish")),
        KeyBinding(
            [c("F")], .browse, .finishWorkout,
            help: .line(key: "F", text: "finish the workout (e on a workout: name, notes)")),
        KeyBinding(
            [c("o")], .browse, .noteExercise,
            help: .line(key: "o", text: "a note on the selected set's exercise in this workout")),
        KeyBinding([.enter], .workoutEdit, .submit, hints: [Hint(bar: .workoutEdit, text: "Enter save")]),
        KeyBinding(
            [.tab, .backTab], .workoutEdit, .nextField, hints: [Hint(bar: .workoutEdit, text: "Tab name/notes")]),
        KeyBinding([.escape], .workoutEdit, .cancel, hints: [Hint(bar: .workoutEdit, text: "Esc cancel")]),
        KeyBinding(
            [.enter, .escape, c("q")], .workoutSummary, .cancel,
            hints: [Hint(bar: .workoutSummary, text: "Enter or Esc close")]),
        KeyBinding(
            [c("C")], .browse, .showConflicts,
            help: .line(key: "C", text: "conflicts: edits another device replaced (Enter takes back)")),
        KeyBinding([.enter], .conflicts, .takeConflict, hints: [Hint(bar: .conflicts, text: "Enter take back")]),
        KeyBinding([c("x")], .conflicts, .dismissConflict, hints: [Hint(bar: .conflicts, text: "x dismiss")]),
        KeyBinding([c("j"), .down], .conflicts, .moveDown, hints: [Hint(bar: .conflicts, text: "j/k move")]),
        KeyBinding([c("k"), .up], .conflicts, .moveUp),
        KeyBinding([.escape, c("q"), c("C")], .conflicts, .cancel, hints: [Hint(bar: .conflicts, text: "Esc close")]),
        // The panes.
        KeyBinding(
            [c("n")], .browse, .logSet,
            hints: [Hint(bar: .browse, text: "n log set"), Hint(bar: .browseNarrow, text: "n log")],
            help: .line(key: "n", text: "log into today's workout (or start one), prefilled")),
        KeyBinding(
            [c("N")], .browse, .logSetIntoSelected,
            help: .line(key: "N", text: "log a set into the selected workout (an old one too)")),
        KeyBinding(
            [c("r")], .browse, .retryRejected, hints: [Hint(bar: .rejectedSet, text: "r retry")],
            help: .line(key: "r", text: "retry")),
        KeyBinding(
            [c("x")], .browse, .discardRejected, hints: [Hint(bar: .rejectedSet, text: "x discard")],
            help: .alternative(key: "x", text: "discard a rejected set")),
        KeyBinding(
            [c("e")], .browse, .editSet,
            hints: [
                Hint(bar: .browse, text: "e edit"), Hint(bar: .browseNarrow, text: "e edit"),
                Hint(bar: .rejectedSet, text: "e edit"),
            ],
            help: .line(key: "e", text: "edit the set")),
        // From the workouts pane (or with no set) h is "left", as in vi.
        KeyBinding(
            [c("h")], .browse, .showExerciseHistory,
            help: .alternative(key: "h", text: "its exercise's history (^O in the form)")),
        KeyBinding(
            [c("d")], .browse, .deleteSelected,
            hints: [
                Hint(bar: .browse, text: "d delete"), Hint(bar: .browseNarrow, text: "d delete"),
                Hint(bar: .rejectedSet, text: "d delete"),
            ],
            help: .line(key: "d", text: "delete the selected set or workout (asks first)")),
        KeyBinding(
            [c("w")], .browse, .startWorkout,
            hints: [Hint(bar: .browse, text: "w workout"), Hint(bar: .browseNarrow, text: "w workout")],
            help: .line(key: "w", text: "start a new workout")),
        KeyBinding(
            [c("P")], .browse, .editPlates,
            help: .line(key: "P", text: "the bar and plates you own, per unit (Tab: kg/lb)")),
        KeyBinding(
            [c("R")], .browse, .startRoutine,
            help: .line(key: "R", text: "routines: Enter start, e edit, n new, r rename, d delete")),
        KeyBinding(
            [c("S")], .browse, .saveAsRoutine,
            help: .line(key: "S", text: "save the workout as a routine (started from one: update it)")),
        KeyBinding(
            [c("a")], .browse, .toggleAirplane,
            hints: [Hint(bar: .browse, text: "a airplane"), Hint(bar: .browseNarrow, text: "a airplane")],
            help: .line(key: "a", text: "airplane mode on/off (changes stay queued)")),
        KeyBinding(
            [c("f")], .browse, .toggleStar, hints: [Hint(bar: .browse, text: "f star")],
            help: .line(key: "f", text: "star / unstar the selected set's exercise")),
        KeyBinding(
            [c("D")], .browse, .toggleDebug,
            hints: [Hint(bar: .browse, text: "D debug")],
            help: .line(key: "D", text: "debug pane: the newest 20 outbox operations")),
        // The toolkit: supersets and body weight (after the keys every session uses).
        KeyBinding(
            [c("L")], .browse, .toggleSuperset,
            help: .line(key: "L", text: "superset the exercise with the one before it (again: out)")),
        KeyBinding(
            [c("W")], .browse, .showWeighIns,
            help: .line(key: "W", text: "your weigh-ins: Enter change, d delete, n new")),
        KeyBinding(
            [c("B")], .browse, .logBodyWeight,
            help: .line(key: "B", text: "log your body weight (bodyweight lifts count it)")),
        // Progress (after the keys every session uses, like the toolkit's).
        KeyBinding(
            [c("c")], .browse, .showProgress,
            help: .line(key: "c", text: "the set's exercise: chart and records (^G in the form)")),
        KeyBinding(
            [c("Y")], .browse, .showCalendar,
            help: .line(key: "Y", text: "training calendar and streak")),
        KeyBinding(
            [c("V")], .browse, .showMuscleVolume, help: .line(key: "V", text: "weekly sets and volume per muscle")),
        KeyBinding(
            [c("s")], .browse, .syncNow,
            hints: [Hint(bar: .browse, text: "s sync"), Hint(bar: .browseNarrow, text: "s sync")],
            help: .alternative(key: "s", text: "sync now")),
        KeyBinding([c("t")], .browse, .skipRest, help: .line(key: "t", text: "rest timer: skip")),
        KeyBinding(
            [c("+")], .browse, .extendRest, help: .alternative(key: "+", text: "add 30 s (spotter config rest)")),
        KeyBinding(
            [c("u")], .browse, .cycleDisplayUnit, help: .line(key: "u", text: "show weights in kg, lb, or as logged")),
        KeyBinding(
            [c("/")], .browse, .startFilter, hints: [Hint(bar: .browse, text: "/ filter")],
            help: .line(key: "/", text: "filter the focused pane; Esc clears")),
        // Esc also closes the debug pane, then clears the message.
        KeyBinding([.escape], .browse, .back, help: .sameLine),
        KeyBinding([c("j"), .down], .browse, .moveDown, help: .line(key: "j k ↑ ↓", text: "move")),
        KeyBinding([c("k"), .up], .browse, .moveUp, help: .sameLine),
        KeyBinding([c("g"), .home], .browse, .moveToFirst, help: .also(key: "g G", text: "first / last")),
        KeyBinding([c("G"), .end], .browse, .moveToLast, help: .sameLine),
        KeyBinding([.pageDown], .browse, .pageDown, help: .also(key: "PgDn PgUp", text: "a page")),
        KeyBinding([.pageUp], .browse, .pageUp, help: .sameLine),
        KeyBinding(
            [.tab, .backTab], .browse, .switchPane, help: .line(key: "Tab", text: "switch between workouts and sets")),
        KeyBinding([.left], .browse, .focusWorkouts, help: .sameLine),
        KeyBinding([c("l"), .right], .browse, .focusSets, help: .sameLine),
        KeyBinding([.enter], .browse, .openWorkout, help: .sameLine),
        KeyBinding(
            [c("?")], .browse, .showHelp,
            hints: [Hint(bar: .browse, text: "? help"), Hint(bar: .browseNarrow, text: "? help")],
            help: .line(key: "?", text: "this help")),
        KeyBinding(
            [c("q")], .browse, .quit,
            hints: [Hint(bar: .browse, text: "q quit"), Hint(bar: .browseNarrow, text: "q quit")],
            help: .also(key: "q", text: "quit")),

        // The set form.
        KeyBinding(
            [.enter], .form, .submit, hints: [Hint(bar: .form, text: "Enter save")],
            help: .fragment(row: "In the form", text: "Enter saves")),
        KeyBinding(
            [.tab, .down], .form, .nextField, hints: [Hint(bar: .form, text: "Tab next")],
            help: .fragment(row: "In the form", text: "Tab/S-Tab move")),
        KeyBinding([.backTab, .up], .form, .previousField),
        // Editing, in every text field.
        KeyBinding(
            [.control("u")], .textField, .edit(.clear), hints: [Hint(bar: .form, text: "^U clear")],
            help: .fragment(row: "In the form", text: "^U clears")),
        KeyBinding([.backspace], .textField, .edit(.deleteBackward)),
        KeyBinding([.delete], .textField, .edit(.deleteForward)),
        KeyBinding([.left], .textField, .edit(.moveLeft)),
        KeyBinding([.right], .textField, .edit(.moveRight)),
        KeyBinding([.home], .textField, .edit(.moveToStart)),
        KeyBinding([.end], .textField, .edit(.moveToEnd)),
        KeyBinding([.control("f")], .form, .starSuggestion, hints: [Hint(bar: .form, text: "^F star")]),
        KeyBinding([.control("o")], .form, .formHistory, hints: [Hint(bar: .form, text: "^O history")]),
        KeyBinding([.control("g")], .form, .showProgress),
        KeyBinding(
            [.control("w")], .form, .planWarmups,
            help: .fragment(row: "Warm-ups", text: "^W in the set form plans them before a first work set")),
        KeyBinding(
            [.escape], .form, .cancel, hints: [Hint(bar: .form, text: "Esc")],
            help: .fragment(row: "In the form", text: "Esc cancels")),
        KeyBinding([.down], .exerciseField, .nextSuggestion),
        KeyBinding([.up], .exerciseField, .previousSuggestion),
        KeyBinding([.left], .kindField, .previousKind),
        KeyBinding([.right, c(" ")], .kindField, .nextKind),

        // The filter and the new workout's name.
        KeyBinding([.enter], .filter, .submit, hints: [Hint(bar: .filter, text: "Enter take")]),
        KeyBinding([.down], .filter, .nextSuggestion, hints: [Hint(bar: .filter, text: "↓↑ pick")]),
        KeyBinding([.up], .filter, .previousSuggestion),
        KeyBinding([.escape], .filter, .cancel, hints: [Hint(bar: .filter, text: "Esc clear")]),
        KeyBinding(
            [.enter], .newWorkout, .submit,
            hints: [Hint(bar: .newWorkout, text: "Enter create (empty: named after the time of day)")]),
        KeyBinding([.escape], .newWorkout, .cancel, hints: [Hint(bar: .newWorkout, text: "Esc cancel")]),
        KeyBinding([.enter], .plates, .submit, hints: [Hint(bar: .plates, text: "Enter save")]),
        KeyBinding([.tab], .plates, .otherUnit, hints: [Hint(bar: .plates, text: "Tab kg/lb")]),
        KeyBinding([.escape], .plates, .cancel, hints: [Hint(bar: .plates, text: "Esc cancel")]),
        KeyBinding([.enter], .bodyWeight, .submit, hints: [Hint(bar: .bodyWeight, text: "Enter log")]),
        KeyBinding([.tab], .bodyWeight, .otherUnit, hints: [Hint(bar: .bodyWeight, text: "Tab kg/lb")]),
        KeyBinding([.escape], .bodyWeight, .cancel, hints: [Hint(bar: .bodyWeight, text: "Esc cancel")]),
        KeyBinding(
            [.enter, c("e")], .weighIns, .submit, hints: [Hint(bar: .weighIns, text: "Enter change")]),
        KeyBinding([c("d")], .weighIns, .deleteSelected, hints: [Hint(bar: .weighIns, text: "d delete")]),
        KeyBinding([c("n")], .weighIns, .logSet, hints: [Hint(bar: .weighIns, text: "n new")]),
        KeyBinding([c("j"), .down], .weighIns, .moveDown, hints: [Hint(bar: .weighIns, text: "j/k move")]),
        KeyBinding([c("k"), .up], .weighIns, .moveUp),
        KeyBinding([.escape, c("q"), c("W")], .weighIns, .cancel, hints: [Hint(bar: .weighIns, text: "Esc close")]),

        // Delete confirmation.
        KeyBinding(
            [c("y"), c("Y")], .confirmDelete, .confirmDelete, hints: [Hint(bar: .confirmDelete, text: "y yes")]),
        KeyBinding(
            [c("n"), c("N"), .escape, c("q")], .confirmDelete, .keepItem,
            hints: [Hint(bar: .confirmDelete, text: "n no")]),

        // The history view.
        KeyBinding(
            [.pageDown, c("j"), .down, c(" ")], .history, .historyNextPage,
            hints: [Hint(bar: .history, text: "j/k PgDn/PgUp page")]),
        KeyBinding([.pageUp, c("k"), .up], .history, .historyPreviousPage),
        KeyBinding([.home, c("g")], .history, .historyFirstPage, hints: [Hint(bar: .history, text: "g/G first/last")]),
        KeyBinding([.end, c("G")], .history, .historyLastPage),
        KeyBinding([c("c")], .history, .showProgress, hints: [Hint(bar: .history, text: "c chart")]),
        KeyBinding(
            [.escape, c("q"), c("h"), .enter], .history, .closeHistory, hints: [Hint(bar: .history, text: "Esc close")]),

        // An exercise's progress: the chart and, on Tab, the records.
        KeyBinding([c("m")], .progress, .cycleMetric, hints: [Hint(bar: .progress, text: "m metric")]),
        KeyBinding([c("r")], .progress, .cycleRange, hints: [Hint(bar: .progress, text: "r range")]),
        KeyBinding(
            [.left, c("h")], .progress, .previousPoint, hints: [Hint(bar: .progress, text: "h/l move")]),
        KeyBinding([.right, c("l")], .progress, .nextPoint),
        KeyBinding([.home, c("g")], .progress, .moveToFirst),
        KeyBinding([.end, c("G")], .progress, .moveToLast),
        KeyBinding([.tab], .progress, .switchProgressPage, hints: [Hint(bar: .progress, text: "Tab chart/records")]),
        KeyBinding([.escape, c("q"), c("c")], .progress, .cancel, hints: [Hint(bar: .progress, text: "Esc close")]),
        // The training calendar.
        KeyBinding(
            [.left, c("h")], .calendar, .previousPoint, hints: [Hint(bar: .calendar, text: "hjkl move")]),
        KeyBinding([.right, c("l")], .calendar, .nextPoint),
        KeyBinding([.up, c("k")], .calendar, .moveUp),
        KeyBinding([.down, c("j")], .calendar, .moveDown),
        KeyBinding([.enter], .calendar, .submit, hints: [Hint(bar: .calendar, text: "Enter the day's workouts")]),
        KeyBinding([.pageUp, c("[")], .calendar, .pageUp, hints: [Hint(bar: .calendar, text: "[/] year")]),
        KeyBinding([.pageDown, c("]")], .calendar, .pageDown),
        KeyBinding([c("+")], .calendar, .morePerWeek, hints: [Hint(bar: .calendar, text: "+/- streak goal")]),
        KeyBinding([c("-")], .calendar, .fewerPerWeek),
        KeyBinding([.escape, c("q"), c("Y")], .calendar, .cancel, hints: [Hint(bar: .calendar, text: "Esc close")]),
        // Weekly volume per muscle.
        KeyBinding([c("j"), .down], .muscleVolume, .moveDown, hints: [Hint(bar: .muscleVolume, text: "j/k scroll")]),
        KeyBinding([c("k"), .up], .muscleVolume, .moveUp),
        KeyBinding(
            [.escape, c("q"), c("V")], .muscleVolume, .cancel, hints: [Hint(bar: .muscleVolume, text: "Esc close")]),

        // The routine list.
        KeyBinding([.enter], .routinePicker, .submit, hints: [Hint(bar: .routinePicker, text: "Enter start")]),
        KeyBinding([c("e")], .routinePicker, .editRoutine, hints: [Hint(bar: .routinePicker, text: "e edit")]),
        KeyBinding([c("n")], .routinePicker, .newRoutine, hints: [Hint(bar: .routinePicker, text: "n new")]),
        KeyBinding([c("r")], .routinePicker, .renameRoutine, hints: [Hint(bar: .routinePicker, text: "r rename")]),
        KeyBinding([c("d")], .routinePicker, .deleteRoutine, hints: [Hint(bar: .routinePicker, text: "d delete")]),
        KeyBinding([c("j"), .down], .routinePicker, .moveDown, hints: [Hint(bar: .routinePicker, text: "j/k move")]),
        KeyBinding([c("k"), .up], .routinePicker, .moveUp),
        KeyBinding([.escape, c("q")], .routinePicker, .cancel, hints: [Hint(bar: .routinePicker, text: "Esc close")]),

        // The routine editor.
        KeyBinding(
            [.enter, c("e")], .routineEditor, .editRoutineRow, hints: [Hint(bar: .routineEditor, text: "Enter edit")]),
        KeyBinding([c("a")], .routineEditor, .addExercise, hints: [Hint(bar: .routineEditor, text: "a add exercise")]),
        KeyBinding([c("+")], .routineEditor, .addPlannedSet, hints: [Hint(bar: .routineEditor, text: "+ set")]),
        KeyBinding(
            [c("d"), c("-")], .routineEditor, .removeRoutineRow, hints: [Hint(bar: .routineEditor, text: "d remove")]),
        KeyBinding(
            [c("J")], .routineEditor, .moveExerciseDown, hints: [Hint(bar: .routineEditor, text: "J/K reorder")]),
        KeyBinding([c("K")], .routineEditor, .moveExerciseUp),
        KeyBinding([c("j"), .down], .routineEditor, .moveDown),
        KeyBinding([c("k"), .up], .routineEditor, .moveUp),
        KeyBinding([c("s")], .routineEditor, .saveRoutine, hints: [Hint(bar: .routineEditor, text: "s save")]),
        KeyBinding([.escape, c("q")], .routineEditor, .cancel, hints: [Hint(bar: .routineEditor, text: "Esc close")]),
        // Its form: one exercise's settings, or one planned set's values.
        KeyBinding([.enter], .routineForm, .submit, hints: [Hint(bar: .routineForm, text: "Enter apply")]),
        KeyBinding([.tab, .down], .routineForm, .nextField, hints: [Hint(bar: .routineForm, text: "Tab next")]),
        KeyBinding([.backTab, .up], .routineForm, .previousField),
        KeyBinding([.escape], .routineForm, .cancel, hints: [Hint(bar: .routineForm, text: "Esc cancel")]),
        // A routine's name.
        KeyBinding([.enter], .routineName, .submit, hints: [Hint(bar: .routineName, text: "Enter save")]),
        KeyBinding([.escape], .routineName, .cancel, hints: [Hint(bar: .routineName, text: "Esc cancel")]),
        // Unsaved changes.
        KeyBinding(
            [c("y"), c("Y")], .confirmDiscard, .discardChanges, hints: [Hint(bar: .confirmDiscard, text: "y discard")]),
        KeyBinding([c("s")], .confirmDiscard, .saveRoutine, hints: [Hint(bar: .confirmDiscard, text: "s save")]),
        KeyBinding(
            [c("n"), c("N"), .escape, c("q")], .confirmDiscard, .keepEditing,
            hints: [Hint(bar: .confirmDiscard, text: "n keep editing")]),

        // Help: scrolls when the terminal is shorter than it.
        KeyBinding([c("j"), .down], .help, .moveDown, hints: [Hint(bar: .help, text: "j/k scroll")]),
        KeyBinding([c("k"), .up], .help, .moveUp),
        KeyBinding([.pageDown, c(" ")], .help, .pageDown),
        KeyBinding([.pageUp], .help, .pageUp),
        KeyBinding([c("g"), .home], .help, .moveToFirst),
        KeyBinding([c("G"), .end], .help, .moveToLast),
        KeyBinding(
            [.escape, c("?"), c("q"), .enter], .help, .closeHelp, hints: [Hint(bar: .help, text: "Esc or ? closes")]),

        // Too small: nothing else is on screen, so no other key acts unseen.
        KeyBinding([c("q")], .tooSmall, .quit, hints: [Hint(bar: .tooSmall, text: "q to quit")]),
    ]

    /// What `key` does in the first of `contexts` (innermost first) that binds it.
    public static func action(for key: Key, in contexts: [KeyContext]) -> KeyAction? {
        for context in contexts {
            if let action = table[context]?[key] { return action }
        }
        return nil
    }

    /// The bindings by context and key, built once from `bindings`.
    private static let table: [KeyContext: [Key: KeyAction]] = {
        var table: [KeyContext: [Key: KeyAction]] = [:]
        for binding in bindings {
            for key in binding.keys where table[binding.context]?[key] == nil {
                table[binding.context, default: [:]][key] = binding.action
            }
        }
        return table
    }()

    /// The key that does `action` in `context`, as messages name it ("press a to turn it off"):
    /// the first key of its binding.
    public static func name(of action: KeyAction, in context: KeyContext = .browse) -> String {
        guard let key = bindings.first(where: { $0.context == context && $0.action == action })?.keys.first else {
            return "?"
        }
        return name(of: key)
    }

    /// How a key is written on screen: "n", "^U", "Enter".
    public static func name(of key: Key) -> String {
        switch key {
        case .character(let character): String(character)
        case .control(let letter): "^" + letter.uppercased()
        case .enter: "Enter"
        case .escape: "Esc"
        case .tab: "Tab"
        case .backTab: "S-Tab"
        case .backspace: "Backspace"
        case .delete: "Delete"
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .home: "Home"
        case .end: "End"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .focusIn: "focus-in"
        case .focusOut: "focus-out"
        }
    }

    /// The hints of one bar, in table order, two spaces apart: "Enter save  Tab next  …".
    public static func hints(_ bar: HintBar) -> String {
        bindings.flatMap { $0.hints.filter { $0.bar == bar }.map(\.text) }.joined(separator: "  ")
    }

    /// Lines of the help screen that are no key: the marks in the sets table, the account.
    static let helpNotes: [HelpLine] = [
        HelpLine(key: "PR / RR", text: "est. 1RM record (1-12 reps) / rep record, when performed"),
        HelpLine(key: "Account", text: "spotter login --server URL --token T (then restart)"),
    ]

    /// The help screen: the bindings' lines in table order, then the notes.
    public static let helpLines: [HelpLine] = {
        var lines: [HelpLine] = []
        for binding in bindings {
            switch binding.help {
            case .line(let key, let text):
                lines.append(HelpLine(key: key, text: text))
            case .alternative(let key, let text):
                guard let last = lines.popLast() else { continue }
                lines.append(HelpLine(key: "\(last.key) / \(key)", text: "\(last.text) / \(text)"))
            case .also(let key, let text):
                guard let last = lines.popLast() else { continue }
                lines.append(HelpLine(key: last.key, text: "\(last.text);  \(key)  \(text)"))
            case .fragment(let row, let text):
                if let index = lines.firstIndex(where: { $0.key == row }) {
                    lines[index].text += ", \(text)"
                } else {
                    lines.append(HelpLine(key: row, text: text))
                }
            case .sameLine, nil:
                break
            }
        }
        return lines + helpNotes
    }()
}
