import Testing

@testable import Procflow

@Suite("Depfiles")
struct DepfileTests {

    @Test func gccOutputWithContinuationsAndPhonyTargets() throws {
        let text = """
            obj/lapi.o: src/lapi.c src/lprefix.h src/lua.h \\
             src/luaconf.h src/lapi.h
            src/lprefix.h:
            src/lua.h:

            """
        #expect(
            try Depfile.prerequisites(in: Array(text.utf8)) == [
                "src/lapi.c", "src/lprefix.h", "src/lua.h", "src/luaconf.h", "src/lapi.h",
            ])
    }

    @Test func escapesAndWindowsLineEndings() throws {
        let text = "out.o: my\\ file.c a\\#b.h $$HOME.h \\\r\n  c.h\r\n# a comment\n"
        #expect(
            try Depfile.prerequisites(in: Array(text.utf8)) == [
                "my file.c", "a#b.h", "$HOME.h", "c.h",
            ])
    }

    @Test func severalTargetsAndRulesEachNameCountedOnce() throws {
        let text = "a.o b.o: x.h y.h\nc.o: y.h z.h\n"
        #expect(try Depfile.prerequisites(in: Array(text.utf8)) == ["x.h", "y.h", "z.h"])
    }

    @Test func aLineWithoutAColonIsAnError() {
        #expect(throws: Depfile.Problem(message: "line 1: a target without ':'")) {
            try Depfile.prerequisites(in: Array("just words\n".utf8))
        }
        #expect(throws: Depfile.Problem(message: "line 1: ':' without a target before it")) {
            try Depfile.prerequisites(in: Array(": x.h\n".utf8))
        }
    }

    @Test func anEmptyFileHasNoPrerequisites() throws {
        #expect(try Depfile.prerequisites(in: []) == [])
    }
}
