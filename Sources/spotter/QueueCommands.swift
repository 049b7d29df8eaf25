import ArgumentParser
import Foundation
import SpotterCore
import SpotterStore
import SpotterSync

/// `spotter status`
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "The account, queue counts (stranded included), airplane mode, last sync and metrics.")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "One JSON document on stdout.") var json = false

    func run() async throws {
        let store = try global.openStore(readOnly: true)
        let counts = try store.queries.queueCounts()
        let stranded = try store.accounts.strandedQueues()
        let strandedCount = stranded.reduce(0) { $0 + $1.operations }
        let airplane = AirplaneSwitch.read(store)
        let lastSync = try store.preferences.meta(MetaKey.lastSyncAt)
        // The server refused this device's token at its last try: nothing is sent until a login.
        let signInNeeded = try store.preferences.meta(store.authRequiredKey) != nil
        let metrics = try store.queries.syncMetrics()
        let conflicts = try store.conflicts.openCount()
        let server = store.owner.server ?? "embedded"
        let readOnly = store.saveRefusal()
        let diskFull = store.diskFullReason()
        if json {
            var metricFields = metrics.counters.mapValues { JSONValue.int(Int64($0)) }
            metricFields["latency_p50_ms"] = JSONValue(metrics.latencyP50ms)
            metricFields["latency_p95_ms"] = JSONValue(metrics.latencyP95ms)
            printJSON(
                .object([
                    "pending": .int(Int64(counts.pending)), "in_flight": .int(Int64(counts.inFlight)),
                    "failed": .int(Int64(counts.failed)), "blocked": .int(Int64(counts.blocked)),
                    "gave_up_no_answer": .int(Int64(counts.gaveUp)),
                    "waiting_on_no_answer": .int(Int64(counts.blockedOnNoAnswer)),
                    "stranded": .int(Int64(strandedCount)), "stranded_for": .array(stranded.map(Render.strandedJSON)),
                    "account": Render.ownerJSON(store.owner), "airplane": .bool(airplane),
                    "last_sync_at": JSONValue(lastSync), "server": .string(server), "metrics": .object(metricFields),
                    "conflicts": .int(Int64(conflicts)), "read_only": JSONValue(readOnly),
                    "disk_full": JSONValue(diskFull), "sign_in_needed": .bool(signInNeeded),
                ]))
            return
        }
        if let readOnly { print("database   read-only: \(shownName(readOnly))") }
        if let diskFull { print("disk       \(shownName(diskFull))") }
        print("account    \(store.owner)")
        if signInNeeded { print("sign-in    needed: the server refused this device's token (spotter login)") }
        print("pending    \(counts.pending)\(counts.inFlight > 0 ? " (\(counts.inFlight) in flight)" : "")")
        print("failed     \(counts.failed)")
        print("blocked    \(counts.blocked)")
        if counts.gaveUp + counts.blockedOnNoAnswer > 0 {
            print(
                "\(OutboxMachine.gaveUpPrefix) \(counts.gaveUp)"
                    + (counts.blockedOnNoAnswer > 0 ? " (and \(counts.blockedOnNoAnswer) waiting on them)" : "")
                    + ": queued again when the server next answers")
        }
        print("stranded   \(strandedCount)")
        for queue in stranded {
            print("  \(queue.operations) wait for \(queue.owner): \(resolveHint(for: queue.owner))")
        }
        if conflicts > 0 { print("conflicts  \(conflicts) (spotter conflicts)") }
        print("airplane   \(airplane ? "on" : "off")")
        print("last sync  \(lastSync ?? "never")")
        print("server     \(server)")
        for (name, value) in metrics.counters.sorted(by: { $0.key < $1.key }) {
            print("\(name.padding(toLength: 26, withPad: " ", startingAt: 0)) \(value)")
        }
        if let p50 = metrics.latencyP50ms, let p95 = metrics.latencyP95ms {
            print(
                "enqueue→success  p50 \(Formatting.number(p50.rounded())) ms, p95 \(Formatting.number(p95.rounded())) ms"
            )
        }
    }
}

/// `spotter outbox`
struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "outbox", abstract: "The newest outbox operations.")

    @OptionGroup var global: GlobalOptions
    @Option(help: "How many rows.") var limit = 20
    @Flag(help: "One JSON document on stdout.") var json = false

    func run() async throws {
        guard limit > 0 else { throw CLIError("--limit must be at least 1", code: 2) }
        let store = try global.openStore(readOnly: true)
        let ops = try store.queries.outbox(limit: limit)
        if json {
            printJSON(.object(["operations": .array(ops.map(Render.operationJSON))]))
            return
        }
        for op in ops { print(Render.operationLine(op)) }
    }
}

/// `spotter airplane on|off|toggle`
struct Airplane: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "airplane", abstract: "Simulate going offline: no network I/O while on.")

    enum Mode: String, ExpressibleByArgument, CaseIterable { case on, off, toggle }

    @OptionGroup var global: GlobalOptions
    @Argument(help: "on, off or toggle.") var mode: Mode

    func run() async throws {
        let store = try global.openStore()
        let on: Bool
        switch mode {
        case .on: on = true
        case .off: on = false
        case .toggle: on = !AirplaneSwitch.read(store)
        }
        try store.preferences.setAirplane(on)
        print("airplane \(on ? "on" : "off")")
        if !on { try await EagerSync.attempt(global: global, store: store) }
    }
}

/// `spotter retry OP_ID | --all-failed`
struct Retry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "retry", abstract: "Send failed operations again.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The operation's id.") var opID: String?
    @Flag(name: .customLong("all-failed"), help: "Every failed operation.") var allFailed = false

    func run() async throws {
        let store = try global.openStore()
        switch (opID, allFailed) {
        case (let opID?, false):
            try store.queue.retry(opID: opID.lowercased())
        case (nil, true):
            print("retrying \(try store.queue.retryAllFailed()) operation(s)")
        default:
            throw CLIError("give either an OP_ID or --all-failed", code: 2)
        }
        try await EagerSync.attempt(global: global, store: store)
    }
}

/// `spotter discard OP_ID`
struct Discard: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discard",
        abstract:
            "Give up on a failed operation (names what goes and asks; --yes without a terminal); a rejected set or workout is removed locally."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The operation's id.") var opID: String
    @Flag(help: "Do not ask: discard what it names (needed without a terminal).") var yes = false

    func run() async throws {
        let store = try global.openStore()
        let opID = opID.lowercased()
        // Everything that goes is named first; nothing goes unasked.
        let preview = try store.queries.discardPreview(opID: opID)
        if !yes {
            guard isatty(STDIN_FILENO) == 1 else {
                printError("spotter: this \(preview.summary)")
                printError("spotter: not discarded: pass --yes to confirm")
                throw ExitCode(2)
            }
            print("This \(preview.summary).")
            FileHandle.standardOutput.write(Data("Discard? [y/N] ".utf8))
            guard let answer = readLine(),
                ["y", "yes"].contains(answer.lowercased().trimmingCharacters(in: .whitespaces))
            else {
                print("nothing discarded")
                return
            }
        }
        try store.queue.discard(opID: opID)
        let done = preview.summary.replacingFirst("discards", "discarded").replacingFirst(
            "stops sending", "stopped sending")
        print(done.prefix(1).uppercased() + done.dropFirst())
    }
}

/// The airplane switch as a command acts on it.
enum AirplaneSwitch {
    /// A switch that cannot be read counts as on (nothing is sent on a guess), and the command
    /// says so once, with how to set it again.
    static func read(_ store: SpotterStore) -> Bool {
        store.preferences.airplaneIsOn { error in
            printError("spotter: \(StoreError.oneLine(error)); counted as on until `spotter airplane on|off` sets it")
        }
    }
}

/// The one bounded sync attempt a write command makes after enqueueing:
/// only with a remote server (without one, writes only enqueue and `spotter sync` does the rest),
/// at most 2 seconds, and never a failure — the operation is safe in the outbox either way.
enum EagerSync {
    static func attempt(global: GlobalOptions, store: SpotterStore) async throws {
        // A switch that cannot be read counts as on: nothing leaves on a guess.
        guard store.owner.server != nil, !store.preferences.airplaneIsOn() else { return }
        var configuration = SyncConfiguration()
        configuration.requestTimeout = 2
        guard
            let session = try? await SyncSession.start(
                global: global, store: store, configuration: configuration, accountCheckTimeout: 2,
                logger: commandLogger("spotter.sync"))
        else { return }
        _ = await session.engine.drain(timeout: 2)
        await session.shutdown()
    }
}

/// `spotter sync`
struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract:
            "Push and pull until all is sent or time is up (exit 0 all sent and received; 3 something unsent, failed, stranded or not received)."
    )

    @OptionGroup var global: GlobalOptions
    @Option(help: "Seconds to keep trying.") var timeout: Double = 30

    func run() async throws {
        guard timeout > 0 else { throw CLIError("--timeout must be more than 0", code: 2) }
        var store: SpotterStore
        do {
            store = try global.openStore()
        } catch let error as StoreError {
            // Nothing could be sent: not a failure of the command, a queue that waits for room.
            guard case .diskFull = error else { throw error }
            printError("spotter: not all sent: \(error.description)")
            throw ExitCode(3)
        }
        let airplane = AirplaneSwitch.read(store)
        var pullFailure: String?
        var diskFull: String?
        if !airplane {
            let session = try await SyncSession.start(
                global: global, store: store, logger: commandLogger("spotter.sync"))
            _ = await session.engine.drain(timeout: timeout)
            diskFull = session.engine.diskFullReason
            pullFailure = session.engine.lastPullFailure ?? diskFull
            await session.shutdown()
            store = session.store
        }
        let counts = try store.queries.queueCounts()
        let stranded = try store.accounts.strandedQueues()
        // Operations that gave up without an answer are named only when there are some.
        let gaveUp = counts.gaveUp + counts.blockedOnNoAnswer
        print(
            "pending \(counts.pending), failed \(counts.failed), blocked \(counts.blocked), "
                + (gaveUp > 0 ? "\(OutboxMachine.gaveUpPrefix) \(gaveUp), " : "")
                + "stranded \(stranded.reduce(0) { $0 + $1.operations })"
        )
        // Sets logged here into a workout another device deleted: kept, in a restored copy.
        for restored in try store.restorations.takeUntold() { print(shownName(restored.sentence)) }
        // Values another device's edit replaced: everything is sent, but the user should know.
        let conflicts = try store.conflicts.list()
        if !conflicts.isEmpty {
            print("\(conflicts.count) conflict\(conflicts.count == 1 ? "" : "s") (spotter conflicts):")
            for conflict in conflicts.prefix(5) { print("  \(shownName(conflict.sentence()))") }
        }
        // All is sent only when nothing the user can see waits, failed or is stranded.
        // Why the queued ones are still here, as their last try met it ("connection refused").
        let lastError = try store.queries.outbox(limit: 100).first {
            ($0.state == .pending || $0.state == .failedTransient) && $0.lastError != nil
        }?.lastError
        if let diskFull, counts.pending > 0 {
            printError("spotter: not all sent: \(counts.pending) operation(s) wait: \(diskFull)")
            throw ExitCode(3)
        }
        if let reason = Self.unsentReason(
            counts: counts, stranded: stranded, owner: store.owner, airplane: airplane, lastError: lastError)
        {
            printError("spotter: not all sent: \(reason)")
            throw ExitCode(3)
        }
        // Everything went out, but this device may not have what other devices sent.
        if airplane {
            // Nothing was asked for: what another device sent is not here, whatever it is.
            printError("spotter: not all received: airplane mode is on, nothing was fetched (spotter airplane off)")
            throw ExitCode(3)
        }
        if let pullFailure {
            printError("spotter: not all received: \(pullFailure)")
            throw ExitCode(3)
        }
    }

    /// One line saying what is not sent, or nil when everything is.
    static func unsentReason(
        counts: QueueCounts, stranded: [StrandedQueue], owner: QueueOwner, airplane: Bool, lastError: String? = nil
    ) -> String? {
        var reasons: [String] = []
        if airplane, counts.pending > 0 {
            reasons.append("airplane mode is on: \(counts.pending) operation(s) stay queued (spotter airplane off)")
        } else if case .unverified(let server, _) = owner, counts.pending > 0 {
            reasons.append(
                "\(counts.pending) operation(s) wait until \(server) accepts the token (spotter sync when it is reachable)"
                    + (lastError.map { "; last try: \($0)" } ?? ""))
        } else if counts.pending > 0 {
            reasons.append(
                "\(counts.pending) operation(s) still queued for \(owner)"
                    + (lastError.map { " (last try: \($0))" } ?? ""))
        }
        if counts.failed > 0 {
            reasons.append("\(counts.failed) failed permanently (spotter outbox; spotter retry --all-failed)")
        }
        if counts.blocked > 0 { reasons.append("\(counts.blocked) blocked behind a rejected operation") }
        if counts.gaveUp + counts.blockedOnNoAnswer > 0 {
            reasons.append(
                "\(counts.gaveUp + counts.blockedOnNoAnswer) \(OutboxMachine.gaveUpPrefix) (queued again when the server next answers; spotter retry --all-failed sends them now)"
            )
        }
        for queue in stranded {
            reasons.append("\(queue.operations) wait for \(queue.owner) (\(resolveHint(for: queue.owner)))")
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }
}

extension String {
    /// The text with the first `target` replaced (the past tense of a summary once it is done).
    fileprivate func replacingFirst(_ target: String, _ replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
