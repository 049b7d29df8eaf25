import Foundation
import Logging
import SpotterCore
import SpotterStore
import SpotterSync

#if canImport(Glibc)
    import Glibc
#endif

/// What the full-screen UI needs from the wiring: the store it reads and writes, the engine
/// it nudges (nil: no engine, everything still works locally) and the channel it drains.
public struct TerminalUIOptions: Sendable {
    public var store: SpotterStore
    public var sync: (any SyncControlling)?
    public var events: SyncEventChannel
    /// Where logs go (never the screen); nil discards them.
    public var logFile: String?
    public var restSeconds: Int = 90
    /// Where it syncs, named in the header next to the badge.
    public var accountLabel = "this device only"
    /// The command that sends operations waiting for another account, shown when there are any.
    public var strandedHint: String?
    /// Why the database may not be written, when it is opened read-only: shown, and saves refused.
    public var readOnly: String?
    public var clock: any SpotterClock = SystemClock()

    public init(store: SpotterStore, sync: (any SyncControlling)?, events: SyncEventChannel) {
        self.store = store
        self.sync = sync
        self.events = events
    }
}

/// Runs the full-screen UI until the user quits; returns the process exit code
/// (0 on `q`, 128 + the signal on SIGINT/SIGTERM/SIGHUP, 1 when there is no usable terminal).
public func runTerminalUI(_ options: TerminalUIOptions) -> Int32 {
    let environment = ProcessInfo.processInfo.environment
    let logDescriptor = options.logFile.flatMap(FileLogHandler.openDescriptor(path:))
    let logger: Logger =
        if let logDescriptor {
            Logger(label: "spotter.tui") { [clock = options.clock] label in
                FileLogHandler(label: label, descriptor: logDescriptor, clock: clock)
            }
        } else {
            Logger(label: "spotter.tui") { _ in SwiftLogNoOpLogHandler() }
        }
    defer { if let logDescriptor { close(logDescriptor) } }

    guard let signals = SignalPipe() else {
        FileHandle.standardError.write(Data("spotter: cannot set up signal handling\n".utf8))
        return 1
    }
    signals.install()
    defer { signals.uninstall() }

    let terminal: CursesTerminal
    do {
        terminal = try CursesTerminal.start(environment: environment)
    } catch {
        FileHandle.standardError.write(Data("spotter: \(error.description)\n".utf8))
        return 1
    }
    // Anything written to stderr while curses owns the screen would scribble over it.
    let savedStderr = dup(STDERR_FILENO)
    let quietTarget = logDescriptor ?? open("/dev/null", O_WRONLY)
    if quietTarget >= 0 { dup2(quietTarget, STDERR_FILENO) }
    defer {
        terminal.stop()
        if savedStderr >= 0 {
            dup2(savedStderr, STDERR_FILENO)
            close(savedStderr)
        }
        if logDescriptor == nil, quietTarget >= 0 { close(quietTarget) }
    }
    logger.info(
        "ui started: \(terminal.columns)x\(terminal.rows), unicode=\(terminal.unicode), colors=\(terminal.colors)")

    let controller = AppController(
        store: options.store, sync: options.sync, clock: options.clock, columns: terminal.columns, rows: terminal.rows,
        glyphs: terminal.unicode ? .unicode : .ascii, restSeconds: options.restSeconds,
        logger: logger)
    controller.showAccount(options.accountLabel, strandedHint: options.strandedHint)
    if let why = options.readOnly { controller.showReadOnly(why) }
    let loop = InputLoop(
        controller: controller, terminal: terminal, signals: signals, events: options.events, logger: logger)
    let code = loop.run()
    logger.info("ui stopped with exit code \(code)")
    return code
}

/// The UI thread's loop: sleep in poll() on stdin, the engine's wake pipe and the signal pipe,
/// waking also every `watchInterval` to see whether the database changed (a commit by another
/// process wakes no descriptor) and as often as something animates; handle what woke it,
/// redraw when anything changed.
final class InputLoop {
    let controller: AppController
    let terminal: CursesTerminal
    let signals: SignalPipe
    let events: SyncEventChannel
    let logger: Logger
    private var buffer = ScreenBuffer(width: 0, height: 0)
    private var lastTick = Date.distantPast
    /// When the database was last looked at, on the monotonic clock (the app's clock may be a
    /// test's, standing still).
    private var lastWatch: UInt64 = 0
    /// How often the database is asked whether it changed: well within the quarter second in
    /// which another process's commit must be on screen.
    static let watchInterval = 150

    init(
        controller: AppController, terminal: CursesTerminal, signals: SignalPipe, events: SyncEventChannel,
        logger: Logger
    ) {
        self.controller = controller
        self.terminal = terminal
        self.signals = signals
        self.events = events
        self.logger = logger
    }

    /// Milliseconds until the next frame that changes by itself; -1: none does.
    private var timeout: Int32 {
        let state = controller.state
        guard state.needsTicks else { return -1 }
        return state.spinnerTurns ? 120 : 500
    }

    /// How long poll() may sleep: until the next animated frame or the next look at the database.
    private var pollTimeout: Int32 {
        let frame = timeout
        return frame < 0 ? Int32(Self.watchInterval) : min(frame, Int32(Self.watchInterval))
    }

    func run() -> Int32 {
        var bells = controller.state.bellRequests
        controller.handle(events.drain())
        var dirty = true
        /// Ctrl-Z (typed, or SIGTSTP from elsewhere): the terminal back to the shell, the process
        /// stopped until `fg`, then the screen redrawn at its size then.
        func suspend() {
            terminal.suspend()
            signals.stopProcess()
            terminal.resume()
            controller.resize(columns: terminal.columns, rows: terminal.rows)
            dirty = true
        }
        while true {
            if dirty {
                controller.render(into: &buffer)
                terminal.draw(buffer)
                dirty = false
            }
            if controller.shouldQuit { return 0 }
            var fds = [
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                pollfd(fd: events.wakeDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: signals.readEnd, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, nfds_t(fds.count), pollTimeout)
            if ready < 0, errno != EINTR {
                logger.error("poll failed: errno \(errno)")
                return 1
            }
            for number in signals.drain() {
                switch number {
                case SIGINT, SIGTERM, SIGHUP:
                    logger.info("signal \(number): quitting")
                    return 128 + number
                case SIGQUIT:
                    break  // Ctrl-\ (or its byte in a paste): nothing to do, and no core dump
                case SIGTSTP:
                    suspend()
                case SIGWINCH:
                    terminal.updateSize()
                    terminal.invalidate()
                    controller.resize(columns: terminal.columns, rows: terminal.rows)
                    dirty = true
                case SIGCONT:
                    terminal.invalidate()
                    controller.resumed()
                    dirty = true
                default:
                    break
                }
            }
            if fds[1].revents != 0 || ready == 0 {
                let pending = events.drain()
                if !pending.isEmpty {
                    controller.handle(pending)
                    dirty = true
                }
            }
            for input in terminal.readInput() {
                switch input {
                case .key(.control("c")):
                    // The terminal is raw: a typed Ctrl-C is a key, and quits as SIGINT does.
                    logger.info("Ctrl-C: quitting")
                    return 128 + SIGINT
                case .key(.control("z")):
                    suspend()
                case .key(let key):
                    controller.handle(key)
                case .pasted(let key):
                    controller.handlePaste(key)
                case .pastedControl(let value):
                    controller.leftOutOfPaste(value)
                case .resize(let columns, let rows):
                    controller.resize(columns: columns, rows: rows)
                }
                dirty = true
                if controller.shouldQuit { break }
            }
            let now = controller.clock.now()
            let uptime = DispatchTime.now().uptimeNanoseconds
            // A little early rather than a whole interval late: poll() may wake a hair before.
            if uptime &- lastWatch >= UInt64(Self.watchInterval - 30) * 1_000_000 {
                lastWatch = uptime
                if controller.followDatabase() { dirty = true }
            }
            if controller.state.needsTicks, now.timeIntervalSince(lastTick) * 1000 >= Double(max(timeout, 100)) {
                lastTick = now
                controller.tick()
                dirty = true
            }
            if controller.state.bellRequests != bells {
                bells = controller.state.bellRequests
                terminal.bell()
            }
        }
    }
}
