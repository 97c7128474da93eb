import Foundation
import Testing

@testable import Procflow

/// SplitMix64: a small deterministic generator, so a failing mutation can be replayed.
struct FuzzRandom: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Fuzzing the loader")
struct FuzzTests {
    static let interesting: [[UInt8]] = [
        Array("{".utf8), Array("}".utf8), Array("[".utf8), Array("]".utf8), Array("\"".utf8),
        Array(",".utf8), Array(":".utf8), Array("\\".utf8), Array("null".utf8),
        Array("-0.5e9".utf8),
        Array("\"id\"".utf8), Array("\"kind\"".utf8), Array("\"dependsOn\": [\"x\"]".utf8),
        Array("{\"from\": \"a\"}".utf8), Array("${x}".utf8), [0xFF], [0xC3], [0x00],
        [0xEF, 0xBB, 0xBF],
    ]

    /// One random edit of `bytes`: delete, duplicate, insert, replace or swap a span.
    static func mutate(_ bytes: [UInt8], using random: inout FuzzRandom) -> [UInt8] {
        guard !bytes.isEmpty else { return interesting.randomElement(using: &random)! }
        var bytes = bytes
        let start = Int.random(in: 0..<bytes.count, using: &random)
        let length = min(bytes.count - start, Int.random(in: 1...16, using: &random))
        switch Int.random(in: 0..<5, using: &random) {
        case 0: bytes.removeSubrange(start..<start + length)
        case 1: bytes.insert(contentsOf: bytes[start..<start + length], at: start)
        case 2: bytes.insert(contentsOf: interesting.randomElement(using: &random)!, at: start)
        case 3: bytes[start] = UInt8.random(in: 0...255, using: &random)
        default:
            let other = Int.random(in: 0..<bytes.count, using: &random)
            bytes.swapAt(start, other)
        }
        return bytes
    }

    @Test func mutatedWorkflowsLoadOrFailWithLocatedErrors() throws {
        var seeds: [[UInt8]] = try shippedWorkflows.map {
            Array(try Data(contentsOf: packageRoot.appendingPathComponent("workflows/\($0)")))
        }
        seeds.append(
            Array(try Data(contentsOf: fixtures.appendingPathComponent("graph/workflow.json"))))
        var random = FuzzRandom(state: 0x5EED_2026)
        var failures: [String] = []
        var outcomes = (valid: 0, invalid: 0)
        for iteration in 0..<3_000 {
            var bytes = seeds[iteration % seeds.count]
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                bytes = Self.mutate(bytes, using: &random)
            }
            do {
                _ = try WorkflowLoader.load(bytes: bytes, file: "fuzz.json", overrides: [])
                outcomes.valid += 1
            } catch {
                outcomes.invalid += 1
                for diagnostic in error.diagnostics
                where diagnostic.location == nil || diagnostic.message.isEmpty {
                    failures.append("iteration \(iteration): \(diagnostic)")
                }
                if error.diagnostics.isEmpty {
                    failures.append("iteration \(iteration): no diagnostics")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        // The mutations reach both outcomes, so both paths are exercised.
        #expect(outcomes.valid > 0)
        #expect(outcomes.invalid > 1_000)
    }
}
