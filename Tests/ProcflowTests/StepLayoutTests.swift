import Foundation
import Testing

@testable import Procflow

/// What a step of a large run takes: the values kept for each of 100,000 steps to the run's
/// end, where its memory is highest.
@Suite("What a step keeps")
struct StepLayoutTests {
    @Test func aPatternIsSmallAndStillSaysItsLiteralPath() throws {
        // A step's list of one pattern: 80 bytes with malloc's, where 56-byte patterns took 96.
        #expect(MemoryLayout<GlobPattern>.stride <= 32)
        let cases: [(text: String, literal: String, isLiteral: Bool)] = [
            ("src/main.c", "src/main.c", true),
            ("a/./b", "a/./b", true),
            (#"src/\[x\].c"#, "src/[x].c", true),
            (#"/abs/\*.c"#, "/abs/*.c", true),
            ("src/*.c", "src/*", false),
            ("/abs/**/x?.c", "/abs/*/*", false),
        ]
        for (text, literal, isLiteral) in cases {
            let pattern = try GlobPattern(text)
            #expect(pattern.literalPath == literal, "\(text)")
            #expect(pattern.isLiteral == isLiteral, "\(text)")
            #expect(pattern.text == text)
        }
        // A literal path keeps its wildcard characters.
        #expect(try GlobPattern(literal: "a*b").literalPath == "a*b")
        #expect(try GlobPattern("a/b") == GlobPattern("a/b"))
        #expect(try GlobPattern("a/b") != GlobPattern("a/c"))
    }

    @Test func aStepsOneSourceGeneratedFileAndOffsetAreInline() throws {
        // The offsets of `generates` were an array (an allocation of 48 bytes a step), and each
        // list of patterns one of 64: held inline, one of each is no allocation.
        #expect(MemoryLayout<Caching>.size <= 98)
        var caching = Caching()
        caching.sources = [try GlobPattern("in/1.txt")]
        caching.generates = [try GlobPattern("out/1.txt")]
        let one: OneOrMore<GlobPattern> = caching.sourcePatterns
        #expect(one.map(\.text) == ["in/1.txt"] && caching.sources.map(\.text) == ["in/1.txt"])
        #expect(caching.generatedPatterns.map(\.text) == ["out/1.txt"])
        let copy = caching
        caching.sources += [try GlobPattern("*.h")]
        #expect(caching.sourcePatterns.map(\.text) == ["in/1.txt", "*.h"])
        #expect(copy.sources.map(\.text) == ["in/1.txt"] && copy != caching)
        caching.sources = []
        #expect(caching.sourcePatterns.isEmpty && caching.declaresFiles)
        caching.generates = []
        #expect(!caching.declaresFiles && caching == Caching())
        var offsets: OneOrMore<Int> = [42]
        #expect(Array(offsets) == [42])
        offsets.append(7)
        #expect(Array(offsets) == [42, 7] && offsets == OneOrMore([42, 7]))
        // Where a problem with an entry is: its own offset, kept through the plan.
        let text =
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "true", "#
            + #""generates": ["x", "y"]}]}"#
        let workflow = try WorkflowLoader.load(bytes: Array(text.utf8), file: "flow.json")
        let loaded = try #require(workflow.steps.first).caching
        let first = try #require(text.range(of: #""x""#)).lowerBound.utf16Offset(in: text)
        let second = try #require(text.range(of: #""y""#)).lowerBound.utf16Offset(in: text)
        #expect(Array(loaded.generatesOffsets) == [first, second])
        #expect(loaded.generatedPatterns.map(\.text) == ["x", "y"])
    }

    @Test func aShellStepKeepsItsServiceOutOfLine() {
        // Few steps are services: every step's kind took 105 bytes with the service inline.
        #expect(MemoryLayout<Shell>.size <= 80)
        var shell = Shell(command: .script("serve"), environment: [], inputs: [], output: .none)
        #expect(shell.service == nil)
        shell.service = Service(ready: .port(8080), timeout: 5)
        let copy = shell
        shell.service?.timeout = 9
        #expect(shell.service?.ready == .port(8080) && shell.service?.timeout == 9)
        #expect(copy.service?.timeout == 5)
        shell.service = nil
        #expect(shell.service == nil && copy.service != nil)
    }

    @Test func whatFewStepsSetIsKeptOutOfLineAndChangesAsAValue() throws {
        // 336 bytes inline with them (with a source and a generated pattern inline): the
        // description, mutex, retry, timeout, forEach, image and placement took 80 of them in
        // every step.
        #expect(Step.fieldsSize <= 264)
        let text = """
            {"procedures": [
              {"id": "plain", "kind": "shell", "run": "true"},
              {"id": "rare", "kind": "shell", "run": "true", "description": "d", "timeout": 5,
               "mutex": "m", "retry": {"attempts": 2}, "image": "alpine",
               "continueOnError": true}
            ]}
            """
        let workflow = try WorkflowLoader.load(bytes: Array(text.utf8), file: "flow.json")
        var plain = try #require(workflow.steps.first)
        let rare = try #require(workflow.steps.last)
        #expect(!plain.holdsRareFields)
        #expect(plain.description == nil && plain.timeout == nil && plain.mutex.isEmpty)
        #expect(plain.retry == nil && plain.image == nil && plain.forEach == nil)
        #expect(plain.placement == Placement() && !plain.continueOnError)
        #expect(rare.holdsRareFields)
        #expect(rare.description == "d" && rare.timeout == 5 && rare.mutex == ["m"])
        #expect(rare.retry?.attempts == 2 && rare.image == "alpine" && rare.continueOnError)
        // Set, changed and cleared on one step; its copy keeps what it had.
        let copy = plain
        plain.timeout = 9
        plain.mutex.append("x")
        plain.description = "now"
        #expect(plain.holdsRareFields && !copy.holdsRareFields)
        #expect(plain.timeout == 9 && plain.mutex == ["x"] && plain.description == "now")
        #expect(copy.timeout == nil && copy.mutex.isEmpty && copy.description == nil)
        plain.timeout = nil
        plain.mutex = []
        #expect(plain.holdsRareFields && plain.description == "now")
        plain.description = nil
        #expect(!plain.holdsRareFields)
        var moved = rare
        moved.image = nil
        #expect(moved.image == nil && rare.image == "alpine" && moved.retry?.attempts == 2)
    }

    @Test func aListOfPathsHoldsItsOnePathInline() throws {
        // A String inline, not an array: no allocation for the one source most steps have.
        #expect(MemoryLayout<PathList>.size == MemoryLayout<String>.size + 1)
        var paths: PathList = []
        #expect(paths.isEmpty && paths.count == 0)
        paths.append("/w/a")
        #expect(Array(paths) == ["/w/a"] && paths == PathList(["/w/a"]))
        paths.append("/w/b")
        paths.append("/w/c")
        #expect(Array(paths) == ["/w/a", "/w/b", "/w/c"] && paths[2] == "/w/c")
        #expect(PathList(["/x"]) != PathList(["/y"]))
        #expect(PathList(["/x"]) != PathList(["/x", "/y"]))

        let files = IncrementalStep.Files(
            [try GlobPattern("in/1.txt"), try GlobPattern("*.h")], in: "/w")
        #expect(Array(files.paths) == ["/w/in/1.txt"])
        #expect(files.patterns.map(\.text) == ["*.h"])
        #expect(files.contains("/w/in/1.txt", in: "/w") && files.contains("/w/x.h", in: "/w"))
        #expect(!files.contains("/w/in/2.txt", in: "/w"))
    }

    @Test func aListOfFilesKeepsItsPathsAsTheWorkflowNamesThem() throws {
        // From the step's directory, where a string holds most without an allocation of its
        // own (an absolute path of a large workflow took 80 bytes); absolute when asked for.
        let list = try ["in/1.txt", "./a/../b.txt", "/abs/c.txt", "../up.txt", "d/", "/w/e.txt"]
            .map { try GlobPattern(literal: $0) }
        let files = IncrementalStep.Files(list, in: "/w")
        #expect(files.keptPaths == ["in/1.txt", "b.txt", "/abs/c.txt", "/up.txt", "d", "e.txt"])
        #expect(
            Array(files.paths) == [
                "/w/in/1.txt", "/w/b.txt", "/abs/c.txt", "/up.txt", "/w/d", "/w/e.txt",
            ])
        #expect(files.pathCount == 6)
        #expect(files.contains("/w/in/1.txt", in: "/w") && files.contains("/w/d/x", in: "/w"))
        #expect(files.contains("/abs/c.txt", in: "/w") && !files.contains("/w/in/1", in: "/w"))
        #expect(!files.contains("/w/dx", in: "/w"))
        // Compared without being made absolute.
        let absolute = Array(files.paths)
        #expect(files.isEachPath(among: absolute + ["/other"]))
        #expect(!files.isEachPath(among: Array(absolute.dropFirst())))
        #expect(!files.isEachPath(among: ["/w/in/1.tx", "/w/in/1.txt2", "/x/in/1.txt"]))
        let atRoot = IncrementalStep.Files([try GlobPattern(literal: "a/b")], in: "/")
        #expect(atRoot.keptPaths == ["a/b"] && atRoot.isEachPath(among: ["/a/b"]))
        #expect(!atRoot.isEachPath(among: ["//a/b", "/a/bb", "a/b"]))
        // Each path as `resolve` makes it absolute, wherever the directory is.
        for directory in ["/", "/w", "/w/./x", "/w/../y", "/w//z"] {
            let files = IncrementalStep.Files(list, in: directory)
            #expect(Array(files.paths) == list.map { resolve($0.literalPath, in: directory) })
        }
    }

    @Test func theFilesHashedAreNamedFromTheWorkflowsDirectory() throws {
        let fixture = try WorkflowFixture("{}")
        defer { fixture.remove() }
        let directory = fixture.directory.path
        for name in ["in.txt", "sub/deep.txt"] {
            try FileManager.default.createDirectory(
                atPath: directory + "/" + (name as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true)
            try name.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
        let outside = directory + "-outside.txt"
        try "x".write(toFile: outside, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        let files = FileDigests(mostlyIn: directory)
        var digests: [Digest?] = []
        for path in [directory + "/in.txt", directory + "/sub/deep.txt", outside] {
            digests.append(
                files.observe(path, status: files.status(of: path), recorded: nil).digest)
        }
        #expect(Set(files.hashedKeys) == ["in.txt", "sub/deep.txt", outside])
        #expect(digests == ["in.txt", "sub/deep.txt", "x"].map { SHA256.hash(Array($0.utf8)) })
        // Asked again by its path, each is the one hashed.
        let again = files.observe(
            directory + "/sub/deep.txt", status: files.status(of: directory + "/sub/deep.txt"),
            recorded: nil)
        #expect(again.digest == digests[1])
    }

    @Test func theFilesHashedAreKeptForTwoGenerationsAtMost() throws {
        // A run of 100,000 steps kept all 200,000 files it hashed to its end (16 MB): the last
        // two generations are kept, and a file of an older one is read again if asked for.
        let fixture = try WorkflowFixture("{}")
        defer { fixture.remove() }
        let directory = fixture.directory.path
        let paths = (0..<10).map { "\(directory)/f\($0).txt" }
        for (number, path) in paths.enumerated() {
            try "\(number)".write(toFile: path, atomically: true, encoding: .utf8)
        }
        let files = FileDigests(mostlyIn: directory, generation: 4)
        func digest(_ path: String) -> Digest? {
            files.observe(path, status: files.status(of: path), recorded: nil).digest
        }
        let first = paths.map(digest)
        #expect(first == (0..<10).map { SHA256.hash(Array("\($0)".utf8)) })
        let kept = files.hashedKeys
        #expect(kept.count <= 8 && kept.count > 4)
        #expect(Set(kept).isSuperset(of: (6..<10).map { "f\($0).txt" }))
        #expect(!kept.contains("f0.txt"))
        // Asked again, each is what it is now: the first read again, the last as kept.
        try "changed".write(toFile: paths[0], atomically: true, encoding: .utf8)
        #expect(digest(paths[0]) == SHA256.hash(Array("changed".utf8)))
        #expect(digest(paths[9]) == first[9])
        #expect(files.hashedKeys.count <= 8)
    }

    @Test func manyIncrementalStepsAreFinishedAsTheyAreDrafted() throws {
        // Past the first steps drafted ahead, each is finished as it is drafted: the same
        // steps, in file order, as each made on its own.
        let count = IncrementalStep.draftedAhead + 5
        let steps = (0..<count).map {
            #"{"id": "s\#($0)", "kind": "shell", "run": "touch out/\#($0)", "sources": ["in/\#($0)"], "generates": ["out/\#($0)"]}"#
        }
        let fixture = try WorkflowFixture(
            """
            {"cacheKey": ["v1"], "procedures": [
              {"id": "plain", "kind": "shell", "run": "true"},
              \(steps.joined(separator: ",\n"))
            ]}
            """)
        defer { fixture.remove() }
        let workflow = try WorkflowLoader.load(path: fixture.directory.path + "/" + fixture.file)
        let context = IncrementalStep.Context(workflow, directory: fixture.directory.path)
        let all = IncrementalStep.all(in: workflow, context: context, excluding: ["s1"])
        #expect(Array(all.keys) == (0..<count).filter { $0 != 1 }.map { "s\($0)" })
        for step in workflow.steps.dropFirst() where step.id != "s1" {
            let alone = try #require(IncrementalStep(step, context: context))
            let made = try #require(all[step.id])
            #expect(made.definition == alone.definition && made.environment == alone.environment)
            #expect(Array(made.sources.paths) == Array(alone.sources.paths))
        }
    }

    @Test func aStepsSourcesMadeAgainAreThoseItsIncrementalStepHas() throws {
        // What the snapshot after a run asks of each step, made again from the step rather
        // than kept for the run.
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "plain", "kind": "shell", "run": "cat a", "sources": ["a", "src/*.c"]},
              {"id": "in", "kind": "shell", "run": "cat b", "sources": ["b", "../c"],
               "cwd": "sub", "env": {"X": "1"}},
              {"id": "copy", "kind": "file", "op": "copy", "source": "d", "path": "e",
               "sources": ["f"], "cache": true},
              {"id": "get", "kind": "http", "url": "http://x/"},
              {"id": "none", "kind": "shell", "run": "true"}
            ]}
            """)
        defer { fixture.remove() }
        let workflow = try WorkflowLoader.load(path: fixture.directory.path + "/" + fixture.file)
        let context = IncrementalStep.Context(workflow, directory: fixture.directory.path)
        for step in workflow.steps {
            let made = IncrementalStep.sources(
                of: step, workflowDirectory: context.workflowDirectory)
            let kept = IncrementalStep(step, context: context)?.sources
            #expect((made == nil) == (kept == nil), "\(step.id)")
            #expect(made.map { Array($0.paths) } == kept.map { Array($0.paths) }, "\(step.id)")
            #expect(made?.patterns.map(\.text) == kept?.patterns.map(\.text), "\(step.id)")
        }
        let copy = try #require(workflow.steps.first { $0.id == "copy" })
        #expect(
            IncrementalStep.sources(of: copy, workflowDirectory: context.workflowDirectory).map {
                Array($0.paths)
            } == [
                fixture.directory.path + "/f", fixture.directory.path + "/d",
            ])
    }

    @Test func incrementalStepsOfOneKindShareWhereTheyRun() throws {
        // Its environment's digest and entries and its directory were 56 bytes inline: a
        // reference to what most steps share takes 8. (Its two lists of files hold where their
        // paths are named from: 153 bytes, 192 with malloc's, 208 before.)
        #expect(IncrementalStep.fieldsSize <= 153)
        let fixture = try WorkflowFixture(
            """
            {"vars": {"V": "1"}, "env": {"E": "2"}, "procedures": [
              {"id": "a", "kind": "shell", "run": "touch a", "generates": ["a"],
               "output": "json"},
              {"id": "b", "kind": "shell", "run": "touch b", "generates": ["b"]},
              {"id": "own", "kind": "shell", "run": "touch c", "generates": ["c"],
               "env": {"X": "3"}},
              {"id": "in", "kind": "shell", "run": "touch d", "generates": ["d"], "cwd": "sub"},
              {"id": "r1", "kind": "file", "op": "render", "text": "{{V}}", "path": "r1.txt",
               "input": {"from": "a"}, "cache": true},
              {"id": "r2", "kind": "file", "op": "render", "text": "{{V}}", "path": "r2.txt",
               "input": {"from": "a"}, "cache": true},
              {"id": "w1", "kind": "file", "op": "write", "path": "w1.txt", "content": "x",
               "cache": true},
              {"id": "w2", "kind": "file", "op": "write", "path": "w2.txt", "content": "y",
               "cache": true}
            ]}
            """)
        defer { fixture.remove() }
        let workflow = try WorkflowLoader.load(path: fixture.directory.path + "/" + fixture.file)
        let directory = fixture.directory.path
        let context = IncrementalStep.Context(workflow, directory: directory)
        let steps = IncrementalStep.all(in: workflow, context: context)
        let step = { (id: String) in try #require(steps[id]) }
        #expect(try step("a").settingBox === step("b").settingBox)
        #expect(try step("r1").settingBox === step("r2").settingBox)
        #expect(try step("w1").settingBox === step("w2").settingBox)
        #expect(try step("a").settingBox !== step("r1").settingBox)
        #expect(try step("a").settingBox !== step("own").settingBox)
        #expect(try step("a").settingBox !== step("in").settingBox)
        // Each says what it did when each step held its own.
        #expect(try step("a").environment == context.environment)
        #expect(try step("a").environmentEntries.map(\.name) == ["env E", "variable V"])
        #expect(try step("a").directory == directory)
        #expect(
            try step("own").environment
                == IncrementalStep.digest(
                    of: [("V", "1"), ("E", "2"), ("X", "3")]))
        #expect(
            try step("own").environmentEntries.map(\.name) == ["env E", "env X", "variable V"])
        #expect(try step("in").directory == directory + "/sub")
        #expect(try step("in").environment == context.environment)
        #expect(try step("r1").environment == context.variables)
        #expect(try step("r1").environmentEntries.map(\.name) == ["variable V"])
        #expect(try step("w1").environment == IncrementalStep.digest(of: []))
        #expect(try step("w1").environmentEntries.isEmpty)
        #expect(try step("w1").directory == directory)
    }
}
