import ProcedureKit

/// An incremental step: a group around the step's procedure (an attempt, or a retry of
/// attempts) that asks the cache, once the step's wired inputs have arrived, whether it must
/// run. If not, it puts back what the step generated, gives the output the last run gave,
/// and finishes without running anything: the procedure is never made. If so, it makes and
/// runs the procedure, and once that has succeeded records what the step read and made.
final class IncrementalStepProcedure: GroupProcedure, StepPortsProcedure, @unchecked Sendable {
    // @unchecked Sendable: mutable state lives in `ports` and `values`, `Locked` mutexes; the
    // rest is constant.

    /// What the cache needs of the run.
    struct Context: Sendable {
        let cache: StepCache
        /// Run the step whatever the cache says, and record it.
        let force: Bool
        let events: any StepEvents
    }

    private struct Values {
        /// Set when the step was up to date: the note on what was put back, if anything.
        var cachedNote: String??
        /// What the step runs with, to record once it has succeeded.
        var fingerprint: StepRecord?
        var startedAt: Int64 = 0
        /// Held while the step runs, to tell whether another run ran it at the same time.
        var runLock: StepRunLock?
        /// The step's procedure, once the step must run, until it has ended.
        var work: (any OutputProcedure<JSONValue>)?
        /// Whether the step's procedure was made.
        var madeWork = false
    }

    private let step: IncrementalStep
    /// Makes the step's procedure: called only if the step must run.
    private let makeWork: @Sendable () -> any StepWork
    /// Whether the procedure announces each attempt's start itself: a retry.
    private let announcesAttempts: Bool
    private let environmentInputs: ShellProcedure.EnvironmentInputs?
    private let context: Context
    private let values = Locked(Values())

    /// Wraps the procedure of `step` that `makeWork` makes if the step must run, which
    /// announces its attempts' starts if `announcesAttempts` (a retry); its wired environment
    /// values (for a shell step) are `environmentInputs`.
    init(
        _ step: IncrementalStep, environmentInputs: ShellProcedure.EnvironmentInputs?,
        context: Context, announcesAttempts: Bool,
        makeWork: @escaping @Sendable () -> any StepWork
    ) {
        self.step = step
        self.makeWork = makeWork
        self.announcesAttempts = announcesAttempts
        self.environmentInputs = environmentInputs
        self.context = context
        super.init(operations: [])
    }

    let ports = Locked(StepPorts())

    /// If the step was up to date: the note on the files put back (`.some(nil)` if none).
    var cachedNote: String?? {
        values.withLock { $0.cachedNote }
    }

    /// Whether the step's procedure was made: the step had to run.
    var madeWork: Bool {
        values.withLock { $0.madeWork }
    }

    override func execute() {
        let cache = context.cache
        var decision = decide()
        if let record = decision.record {
            do throws(CacheProblem) {
                let note = try cache.settle(decision, for: step)
                if let value = cache.value(of: record) {
                    output = .ready(.success(value))
                    values.withLock { $0.cachedNote = .some(note) }
                    return super.execute()
                }
                decision = .run(
                    reason: "its recorded output could not be read",
                    fingerprint: cache.fingerprint(step, inputs: wiredInputs()))
            } catch {
                decision = .run(
                    reason: "its files could not be put back (\(error.message))",
                    fingerprint: cache.fingerprint(step, inputs: wiredInputs()))
            }
        }
        guard case .run(let reason, let fingerprint) = decision else { return }
        let runLock = cache.beginRun(of: step)
        let work = makeWork()
        values.withLock {
            $0.fingerprint = fingerprint
            $0.startedAt = FileSystem.now()
            $0.runLock = runLock
            $0.work = work
            $0.madeWork = true
        }
        context.events.explained(step.id, reason)
        // A retry's attempts announce themselves. No cast of the procedure to a protocol:
        // the first looked its type up in every conformance of the program (a quarter of a
        // millisecond of each run that ran a step).
        if !announcesAttempts { context.events.started(step.id, attempt: 1) }
        forward(to: work)
        addChild(work)
        super.execute()
    }

    /// What the cache says now that the wired inputs have arrived.
    private func decide() -> CacheDecision {
        let inputs = wiredInputs()
        guard !context.force else {
            return .run(
                reason: "--force", fingerprint: context.cache.fingerprint(step, inputs: inputs))
        }
        return context.cache.decide(step, inputs: inputs)
    }

    private func forward<Receiver: InputProcedure<JSONValue>>(to receiver: Receiver) {
        receiver.input = input
    }

    /// The values wired into the step, by name: `input`, and a shell step's environment
    /// inputs.
    private func wiredInputs() -> [(name: String, value: JSONValue)] {
        var inputs: [(name: String, value: JSONValue)] = []
        if let value = input.value { inputs.append(("input", value)) }
        for (name, value) in environmentInputs?.all ?? [:] {
            inputs.append((name, .string(value)))
        }
        return inputs
    }

    override func procedureDidFinish(with error: (any Error)?) {
        // Closing its descriptor lets go of the step, however the run ended.
        values.withLock {
            $0.runLock = nil
            $0.work = nil
        }
        // The step stays in the run's graph to its end; what ran it is not needed any more
        // (its output is the step's now).
        releaseFinishedChildren()
        super.procedureDidFinish(with: error)
    }

    override func child(_ child: Procedure, willFinishWithError error: (any Error)?) {
        var error = error
        if error == nil, !isCancelled, let work = values.withLock({ $0.work }), child === work {
            error = recordSuccess(of: work)
        }
        super.child(child, willFinishWithError: error)
    }

    /// Takes the output of the step's procedure and records the run; the error that fails
    /// the step if the run cannot be recorded as declared.
    private func recordSuccess(of work: any OutputProcedure<JSONValue>) -> (any Error)? {
        guard case .success(let value)? = work.output.value else { return nil }
        output = .ready(.success(value))
        let (fingerprint, startedAt, runLock) = values.withLock {
            ($0.fingerprint, $0.startedAt, $0.runLock)
        }
        guard let fingerprint, let runLock else { return nil }
        do throws(CacheProblem) {
            try context.cache.record(
                step, fingerprint: fingerprint, value: value, startedAt: startedAt,
                lock: runLock)
            return nil
        } catch {
            return StepError(.file, error.message)
        }
    }
}

/// What an incremental step runs: a procedure of the step's output that takes its input.
typealias StepWork = InputProcedure<JSONValue> & OutputProcedure<JSONValue>
