import Testing

@testable import ProcedureKit

@Suite("ProcedureKitError")
struct ProcedureKitErrorTests {

    @Test(arguments: [
        (
            ProcedureKitError.conditionFailed(), ProcedureKitError.Context.conditionFailed,
            "A condition failed."
        ),
        (
            .conditionDependenciesFailed(condition: TrueCondition(name: "ready")),
            .conditionDependenciesFailed("ready"),
            "A dependency of the condition ready failed."
        ),
        (
            .conditionDependenciesCancelled(condition: TrueCondition(name: "ready")),
            .conditionDependenciesCancelled("ready"),
            "A dependency of the condition ready was cancelled."
        ),
        (.dependenciesFailed(), .dependenciesFailed, "A dependency failed."),
        (.dependenciesCancelled(), .dependenciesCancelled, "A dependency was cancelled."),
        (
            .dependency(finishedWithError: nil), .dependencyFinishedWithError,
            "The dependency finished with an error."
        ),
        (
            .dependency(cancelledWithError: nil), .dependencyCancelledWithError,
            "The dependency was cancelled."
        ),
        (
            .parent(cancelledWithError: nil), .parentCancelledWithError,
            "The parent group was cancelled."
        ),
        (
            .requirementNotSatisfied(), .requirementNotSatisfied,
            "A requirement was not satisfied: no input was available."
        ),
        (.timedOut(after: 2), .timedOut(2), "The procedure timed out after 2 s."),
        (
            .programmingError(reason: "no queue"), .programmingError("no queue"),
            "Programming error: no queue."
        ),
        (.unknown, .unknown, "An unknown error occurred."),
    ])
    func factoriesSetTheContextAndMessagesReadAsSentences(
        error: ProcedureKitError, context: ProcedureKitError.Context, message: String
    ) {
        #expect(error.context == context)
        #expect(error.description == message)
    }

    @Test func theUnderlyingErrorIsKeptAndQuoted() {
        let error = ProcedureKitError.dependency(finishedWithError: TestError(tag: "disk full"))
        #expect(error.error as? TestError == TestError(tag: "disk full"))
        #expect(
            error.description
                == "The dependency finished with an error: TestError(tag: \"disk full\")")
    }
}
