import Testing

@testable import Procflow

@Suite("Names used as keys")
struct NamePatternTests {
    @Test(arguments: ["PATH", "_private", "a1", "CC_VERSION", "x"])
    func environmentVariableNamesOfLettersDigitsAndUnderscoresAreValid(name: String) {
        #expect(NamePattern.environmentVariable.problem(with: name) == nil)
    }

    /// A digit first, a space, a dash, a non-ASCII letter (whose bytes are not ASCII letters),
    /// nothing at all.
    @Test(arguments: ["1A", "NOT A NAME", "A-B", "CAFÉ", "É", ""])
    func otherNamesAreNotEnvironmentVariableNames(name: String) {
        #expect(NamePattern.environmentVariable.problem(with: name) != nil)
    }
}
