import Foundation
import Testing

@testable import ProcedureKit

/// Asks to be repeated until the repeat has made `limit` procedures, recording each question.
private final class RepeatableProcedure: Procedure, Repeatable, @unchecked Sendable {
    // @unchecked Sendable: adds constants only, one of them a thread-safe recorder.
    let limit: Int
    let questions: Recorder<String>?

    init(name: String = "RepeatableProcedure", limit: Int = 5, questions: Recorder<String>? = nil) {
        self.limit = limit
        self.questions = questions
        super.init()
        self.name = name
    }

    func shouldRepeat(count: Int) -> Bool {
        questions?.append("\(name ?? "") asked at \(count)")
        return count < limit
    }
}

/// The original's RepeatableRepeatProcedureTests.
@Suite("Repeatable")
struct RepeatableTests {

    @Test func repeatsUntilTheProcedureSaysNotTo() {
        let repeated = RepeatProcedure { RepeatableProcedure() }
        ProcedureQueue().addOperation(repeated)
        waitForFinish(repeated)
        #expect(repeated.error == nil)
        #expect(repeated.count == 5)
    }

    @Test func stopsAtTheMaximumFirst() {
        let repeated = RepeatProcedure(max: 4) { RepeatableProcedure() }
        ProcedureQueue().addOperation(repeated)
        waitForFinish(repeated)
        #expect(repeated.error == nil)
        #expect(repeated.count == 4)
    }

    @Test func asksTheProcedureThatHasJustFinished() {
        let questions = Recorder<String>()
        let made = Recorder<Int>()
        let repeated = RepeatProcedure { () -> RepeatableProcedure? in
            made.append(1)
            return RepeatableProcedure(name: "p\(made.count)", limit: 3, questions: questions)
        }
        ProcedureQueue().addOperation(repeated)
        waitForFinish(repeated)
        #expect(questions.all == ["p1 asked at 1", "p2 asked at 2", "p3 asked at 3"])
        #expect(repeated.count == 3)
    }
}
