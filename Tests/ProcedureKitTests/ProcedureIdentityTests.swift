import Testing

@testable import ProcedureKit

/// `Procedure.identity`, as the original has it (issue 26, "API missing here").
@Suite("Procedure identity")
struct ProcedureIdentityTests {
    @Test func isTheInstanceAndItsName() {
        let procedure = TestProcedure(name: "build")
        #expect(procedure.identity == procedure.identity)
        #expect(procedure.identity.identity == ObjectIdentifier(procedure))
        #expect(procedure.identity.name == "build")
        #expect(procedure.identity.description.hasPrefix("build #"))
        #expect(procedure.identity != TestProcedure(name: "build").identity)
    }
}
