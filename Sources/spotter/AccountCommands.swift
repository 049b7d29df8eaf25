import ArgumentParser
import Foundation
import SpotterCore
import SpotterStore
import SpotterSync

/// `spotter login --server URL --token T`
struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Check a server and token, store them as your account, and adopt this device's queue.",
        discussion: """
            Stores the account in $XDG_CONFIG_HOME/spotter/config.json (mode 0600). Every command and the UI \
            then sync with it unless --server/--token or SPOTTER_SERVER/SPOTTER_TOKEN say otherwise. What was \
            logged on this device with no account is adopted into it, once; another account's queue never is.
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        guard let rawServer = global.explicitServer, let token = global.explicitToken else {
            throw CLIError("login needs --server URL and --token TOKEN", code: 2)
        }
        let server: String
        do { server = try ServerURL.normalised(rawServer) } catch { throw CLIError(error.description, code: 2) }
        // Airplane mode means no network I/O, a login's check of the token included (and a switch
        // that cannot be read counts as on).
        if (try? global.openStore(readOnly: true))?.preferences.airplaneIsOn() ?? true {
            throw CLIError("airplane mode is on: no request is sent until `spotter airplane off`; nothing was saved")
        }
        let check = await AccountCheck.ask(HTTPSyncTransport(baseURL: server, token: token), timeout: 10)
        let user: String
        switch check {
        case .user(let name): user = name
        case .refused: throw CLIError("\(server) refused the token (401); nothing was saved")
        case .unreachable(let why): throw CLIError("cannot reach \(server): \(why); nothing was saved")
        }
        let base = try SpotterStore.open(path: global.databasePath, userID: QueueOwner.deviceID)
        let fingerprint = QueueOwner.fingerprint(token: token)
        let target = GlobalOptions.Target(server: server, rawServer: rawServer, token: token, source: .flag)
        let account = try AccountCheck.settle(
            base, server: server, tokenFingerprint: fingerprint, check: check,
            legacyOwners: global.legacyOwners(of: target))
        try AccountConfig(server: server, token: token, user: user).save()
        let adoption = try account.accounts.adoptDeviceData()
        // The server took this token just now: a refusal noted for an earlier one is over.
        try account.preferences.setMeta(account.authRequiredKey, nil)
        print("logged in as \(user) at \(server) (saved in \(AccountConfig.path))")
        if adoption.operations > 0 {
            print(
                "\(adoption.operations) queued operations will sync to \(user) at \(server) "
                    + "(\(adoption.sets) sets and \(adoption.workouts) workouts logged on this device)")
        }
        let queued = try account.queries.queueCounts()
        if queued.pending + queued.failed + queued.blocked + queued.gaveUp + queued.blockedOnNoAnswer > 0 {
            print("\(queued.pending) queued for \(user); run `spotter sync` to send them")
        } else if try account.preferences.meta(account.pullCursorKey) == nil {
            // Nothing of this account has been fetched on this device yet: say how to get it.
            print("run `spotter sync` to fetch \(user)'s workouts from \(server)")
        }
        for queue in try account.accounts.strandedQueues() {
            print("\(queue.operations) operations wait for \(queue.owner): \(resolveHint(for: queue.owner))")
        }
    }
}

/// `spotter logout`
struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Forget the stored account; its queued operations wait for it on this device.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let config = try? AccountConfig.load()
        guard try AccountConfig.remove() else {
            print("not logged in (no \(AccountConfig.path))")
            return
        }
        guard let config else {
            print("forgot the account file \(AccountConfig.path)")
            return
        }
        let owner = QueueOwner.account(server: config.server, user: config.user)
        print("logged out of \(owner)")
        let store = try SpotterStore.open(path: global.databasePath, userID: owner.storedID)
        let counts = try store.queries.queueCounts()
        let waiting = counts.pending + counts.failed + counts.blocked + counts.gaveUp + counts.blockedOnNoAnswer
        if waiting > 0 {
            print("\(waiting) operations wait for \(config.user): \(resolveHint(for: owner))")
        }
    }
}

/// `spotter whoami`
struct Whoami: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami", abstract: "The account this device syncs with, and from where.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let target = try global.target()
        let store = try global.openStore(readOnly: true)
        let origin =
            switch target.source {
            case .config: "from \(AccountConfig.path)"
            case .flag: "from --server"
            case .environment: "from SPOTTER_SERVER"
            case .embedded: "no account: spotter login --server URL --token TOKEN"
            }
        print("\(store.owner) (\(origin))")
    }
}
