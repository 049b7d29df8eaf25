import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The write end of the signal self-pipe, read by the C signal handler.
// nonisolated(unsafe): written once by `SignalPipe.install()` on the UI thread before any
// handler is installed and reset only after every handler is removed; the handler only reads it.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Turns SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGCONT and SIGWINCH into bytes on a pipe the
/// input loop polls, so the real work (endwin, suspend, redraw) happens on the UI thread, never in a
/// handler. SIGQUIT (Ctrl-\, or a pasted 0x1C byte the terminal turns into one) is taken and
/// ignored: its default would dump core with the terminal still raw.
/// The process has other threads (the engine, Swift's executors), so a signal may land on any
/// of them and never interrupt the UI thread's poll(): the pipe is what wakes it.
final class SignalPipe {
    static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGCONT, SIGWINCH]
    let readEnd: Int32
    private let writeEnd: Int32

    init?() {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        readEnd = fds[0]
        writeEnd = fds[1]
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Installs the handlers (before curses starts, so curses keeps its hands off these signals).
    func install() {
        signalPipeWriteEnd = writeEnd
        for signal in Self.handled { Self.installHandler(signal) }
    }

    static func installHandler(_ number: Int32) {
        _ = signal(number) { received in
            var byte = UInt8(truncatingIfNeeded: received)
            let fd = signalPipeWriteEnd
            if fd >= 0 { _ = write(fd, &byte, 1) }
        }
    }

    /// Restores the default dispositions.
    func uninstall() {
        for number in Self.handled { _ = signal(number, SIG_DFL) }
        signalPipeWriteEnd = -1
    }

    /// Signals received since the last call, in order.
    func drain() -> [Int32] {
        var buffer = [UInt8](repeating: 0, count: 32)
        var signals: [Int32] = []
        while true {
            let count = read(readEnd, &buffer, buffer.count)
            if count <= 0 { break }
            signals += buffer.prefix(count).map { Int32($0) }
        }
        return signals
    }

    /// Stops the process the way Ctrl-Z would by default; returns once it is continued.
    func stopProcess() {
        _ = signal(SIGTSTP, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTSTP)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        kill(getpid(), SIGTSTP)
        Self.installHandler(SIGTSTP)
    }
}
