import Foundation
import Synchronization

/// The faults chaos mode decided for one request.
struct ChaosDecision: Sendable {
    var fail = false
    var rateLimit = false
    var drop = false
    var latencyMS = 0
}

/// Draws chaos decisions from a seedable generator, so a `--chaos-seed` run is reproducible.
final class ChaosInjector: Sendable {
    private let options: ChaosOptions
    private let generator: Mutex<SplitMix64>

    init(_ options: ChaosOptions) {
        self.options = options
        generator = Mutex(SplitMix64(seed: options.seed ?? UInt64.random(in: .min ... .max)))
    }

    var isEnabled: Bool { options.isEnabled }

    /// Three draws per request, always, so one request's outcome never shifts the sequence of the next.
    func decide() -> ChaosDecision {
        generator.withLock { generator in
            let failDraw = generator.nextUnit()
            let rateDraw = generator.nextUnit()
            let dropDraw = generator.nextUnit()
            return ChaosDecision(
                fail: failDraw < options.failRate,
                rateLimit: rateDraw < options.rate429,
                drop: dropDraw < options.dropRate,
                latencyMS: options.latencyMS)
        }
    }
}

/// SplitMix64: small, fast, good enough for fault injection, and identical on every platform.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in [0, 1).
    mutating func nextUnit() -> Double {
        Double(next() >> 11) / Double(UInt64(1) << 53)
    }
}
