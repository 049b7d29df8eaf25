import Foundation

/// Latency samples in nanoseconds, summarised as the bench reports them.
struct Samples {
    private(set) var nanos: [UInt64] = []

    init(capacity: Int) { nanos.reserveCapacity(capacity) }

    mutating func time<T>(_ work: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try work()
        nanos.append(DispatchTime.now().uptimeNanoseconds - start)
        return result
    }

    mutating func record(_ nanoseconds: UInt64) { nanos.append(nanoseconds) }

    func percentileMicros(_ p: Double) -> Double {
        guard !nanos.isEmpty else { return 0 }
        let sorted = nanos.sorted()
        let index = min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded()))
        return (Double(sorted[index]) / 1000 * 10).rounded() / 10
    }
}

/// Seconds taken by `work`. With `SPOTTER_PERF_CONTROL` naming the control FIFO of
/// `perf record --control fifo:PATH -D -1`, the profiler runs only while timed work does, so a
/// profile shows the part measured and not its set-up (`SPOTTER_PERF_WINDOW=N`: only the Nth
/// timed stretch, such as the batched drain and not the naive loop after it).
func seconds(_ work: () async throws -> Void) async rethrows -> Double {
    let profiled = PerfControl.beginWindow()
    defer { if profiled { PerfControl.send("disable") } }
    let start = DispatchTime.now().uptimeNanoseconds
    try await work()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// `seconds` for synchronous work (the release compiler cannot split some async functions that
/// time many closures; a synchronous part has no such function).
func syncSeconds(_ work: () throws -> Void) rethrows -> Double {
    let profiled = PerfControl.beginWindow()
    defer { if profiled { PerfControl.send("disable") } }
    let start = DispatchTime.now().uptimeNanoseconds
    try work()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

enum PerfControl {
    static let path = ProcessInfo.processInfo.environment["SPOTTER_PERF_CONTROL"]
    static let window = ProcessInfo.processInfo.environment["SPOTTER_PERF_WINDOW"].flatMap { Int($0) }
    nonisolated(unsafe) private static var windows = 0

    /// Starts the profiler for this timed stretch, if it is one to profile.
    static func beginWindow() -> Bool {
        guard path != nil else { return false }
        windows += 1  // the bench's parts run one after another
        guard window == nil || window == windows else { return false }
        send("enable")
        return true
    }

    static func send(_ command: String) {
        guard let path, let handle = FileHandle(forWritingAtPath: path) else { return }
        handle.write(Data((command + "\n").utf8))
        try? handle.close()
    }
}

func rounded(_ value: Double, _ places: Int = 1) -> Double {
    let scale = pow(10, Double(places))
    return (value * scale).rounded() / scale
}

func machineDescription() -> [String: String] {
    var info: [String: String] = [
        "cores": "\(ProcessInfo.processInfo.activeProcessorCount)",
        "memory_gib": "\(Int((Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824).rounded()))",
        "os": ProcessInfo.processInfo.operatingSystemVersionString,
    ]
    #if DEBUG
        info["build"] = "debug"
    #else
        info["build"] = "release"
    #endif
    if let cpu = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
        let line = cpu.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
        let name = line.split(separator: ":", maxSplits: 1).last
    {
        info["cpu"] = name.trimmingCharacters(in: .whitespaces)
    }
    return info
}
