import ArgumentParser
import Foundation
import SpotterCore
import SpotterStore

/// Options every command takes: where the database is and which server to sync with.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "Database file (env SPOTTER_DB; default $XDG_DATA_HOME/spotter/spotter.db).")
    var db: String?

    @Option(name: .long, help: "Sync server URL (env SPOTTER_SERVER; default: an embedded server on 127.0.0.1).")
    var server: String?

    @Option(name: .long, help: "Bearer token for --server (env SPOTTER_TOKEN).")
    var token: String?

    var databasePath: String {
        if let db { return db }
        let env = ProcessInfo.processInfo.environment
        if let path = env["SPOTTER_DB"], !path.isEmpty { return path }
        let dataHome =
            env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
        return (dataHome as NSString).appendingPathComponent("spotter/spotter.db")
    }

    var serverURL: String? {
        if let server { return server }
        let value = ProcessInfo.processInfo.environment["SPOTTER_SERVER"]
        return value?.isEmpty == false ? value : nil
    }

    var serverToken: String? {
        if let token { return token }
        let value = ProcessInfo.processInfo.environment["SPOTTER_TOKEN"]
        return value?.isEmpty == false ? value : nil
    }

    /// The outbox owner: the embedded server's one local user, or an id derived from the
    /// remote server and token, so switching accounts never replays another user's queue.
    var userID: String {
        guard let url = serverURL else { return "local" }
        return "remote-" + ContentID.uuid("\(url)|\(serverToken ?? "")").wireString.prefix(16)
    }

    func openStore() throws -> SpotterStore {
        do {
            return try SpotterStore.open(path: databasePath, userID: userID)
        } catch let error as StoreError {
            throw error
        } catch {
            throw CLIError("cannot open database \(databasePath): \(error)")
        }
    }
}
