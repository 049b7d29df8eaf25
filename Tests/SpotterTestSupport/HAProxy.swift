import AsyncHTTPClient
import Foundation

/// HAProxy (Debian's `haproxy`) in front of two instances, with the repository's own
/// `deploy/haproxy.cfg` — the file the README's recipe and the scale bench use. Where HAProxy is
/// not installed, `unavailableReason` says so and its tests are reported skipped, never passed.
public final class HAProxy: Sendable {
    /// Where the balancer listens: `http://127.X.Y.Z:PORT`, a loopback address of its own.
    public let baseURL: String
    private let child: ChildProcess

    /// The repository's configuration file.
    public static let configPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/haproxy.cfg").path

    static let executable = ["/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Why HAProxy cannot run here, or nil when it can.
    public static var unavailableReason: String? {
        if executable == nil { return "haproxy is not installed (apt-get install haproxy)" }
        if !FileManager.default.fileExists(atPath: configPath) { return "\(configPath) is missing" }
        return nil
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private init(baseURL: String, child: ChildProcess) {
        self.baseURL = baseURL
        self.child = child
    }

    /// Starts HAProxy on a free port of a loopback address of its own in front of two instances
    /// (`http://host:port` base URLs), and waits until both pass its health check (at most 10 s).
    ///
    /// Not 127.0.0.1: the port is found free and then released before HAProxy binds it, and a
    /// server of a test running beside this one, binding 127.0.0.1 port 0, could take it meanwhile
    /// — the health check would then pass against that server (every test account has the same
    /// token) and this test's device would write into the other test. Nothing else here binds
    /// 127.X.Y.Z (all of 127.0.0.0/8 is loopback).
    public static func start(before instances: (String, String)) async throws -> HAProxy {
        guard let executable else { throw Failure(description: unavailableReason ?? "no haproxy") }
        let host = "127.\(Int.random(in: 100...199)).\(Int.random(in: 1...254)).\(Int.random(in: 1...254))"
        let port = try freePort(on: host)
        func address(_ base: String) -> String { base.replacingOccurrences(of: "http://", with: "") }
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = ["-f", configPath, "-db"]
        var environment = ProcessInfo.processInfo.environment
        environment["SPOTTER_LB_BIND"] = "\(host):\(port)"
        environment["SPOTTER_INSTANCE_1"] = address(instances.0)
        environment["SPOTTER_INSTANCE_2"] = address(instances.1)
        child.environment = environment
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        let proxy = HAProxy(baseURL: "http://\(host):\(port)", child: child)
        // Up when /healthz answers through it twice in a row (round-robin: once from each).
        var good = 0
        for _ in 0..<200 where good < 2 {
            guard child.isRunning else { throw Failure(description: "haproxy exited with \(child.terminationStatus)") }
            good = await healthy(proxy.baseURL) ? good + 1 : 0
            if good < 2 { try await Task.sleep(for: .milliseconds(50)) }
        }
        guard good >= 2, child.isRunning else {
            proxy.stop()
            throw Failure(description: "haproxy did not pass /healthz within 10 s (or exited)")
        }
        return proxy
    }

    public func stop() {
        child.terminate()
        child.waitUntilExit()
    }

    static func healthy(_ base: String) async -> Bool {
        let request = HTTPClientRequest(url: base + "/healthz")
        guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(2)) else { return false }
        _ = try? await response.body.collect(upTo: 1 << 16)
        return response.status.code == 200
    }

    /// A port nothing listens on now at `host`: bound to 0 and released.
    static func freePort(on host: String) throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr(host)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw Failure(description: "bind: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw Failure(description: "getsockname: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
