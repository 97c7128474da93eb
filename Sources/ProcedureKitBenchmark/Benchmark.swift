import Foundation
import ProcedureKit
import Synchronization

final class Probe: Sendable {
    let counts = Mutex((current: 0, peak: 0))
}

@main
struct Benchmark {
    static func main() {
        let probe = Probe()
        let queue = ProcedureQueue(maxConcurrentOperationCount: 4)
        let start = Date()
        let ops = (0..<8).map { i in BlockProcedure {
            probe.counts.withLock { $0.current += 1; $0.peak = max($0.peak, $0.current) }
            print("start \(i) \(Date().timeIntervalSince(start)) \(Thread.current)")
            usleep(50_000)
            probe.counts.withLock { $0.current -= 1 }
        } }
        queue.addOperations(ops)
        queue.waitUntilAllOperationsAreFinished()
        print(probe.counts.withLock { $0.peak })
    }
}
