import Testing

@testable import Procflow

@Suite("The environment a run's commands share")
struct SharedEnvironmentTests {
    /// The strings `withStrings` hands exec, in the order given.
    private static func strings(_ shared: SharedEnvironment, over own: [String: String])
        -> [String]
    {
        shared.withStrings(over: own) { pointers in
            var strings: [String] = []
            var index = 0
            while let string = pointers[index] {
                strings.append(String(cString: string))
                index += 1
            }
            return strings
        }
    }

    @Test func aCommandsOwnVariablesAreLaidOverTheSharedOnesEachNameOnce() {
        let shared = SharedEnvironment(["PATH": "/bin", "HOME": "/root", "PWD": "/elsewhere"])
        let strings = Self.strings(shared, over: ["PWD": "/work", "STEP": "a=b", "HOME": ""])
        #expect(strings.sorted() == ["HOME=", "PATH=/bin", "PWD=/work", "STEP=a=b"])
        // The shared strings are rendered once and stay as they were for the next command.
        #expect(
            Self.strings(shared, over: [:]).sorted() == [
                "HOME=/root", "PATH=/bin", "PWD=/elsewhere",
            ])
        #expect(Self.strings(SharedEnvironment([:]), over: ["A": "1"]) == ["A=1"])
        #expect(Self.strings(.none, over: [:]).isEmpty)
    }

    @Test func aLaunchReadsItsWholeEnvironmentOwnVariablesFirst() {
        var launch = CommandLaunch(
            executable: "/bin/true", arguments: ["true"], environment: ["A": "1", "B": "2"],
            workingDirectory: nil, stdin: nil, captureStdout: false, captureLimit: 0,
            gracePeriod: 1, pipeGracePeriod: 0.2)
        launch.ownEnvironment = ["B": "3", "C": "4"]
        #expect(launch.environment == ["A": "1", "B": "3", "C": "4"])
        #expect(launch.environmentValue("B") == "3")
        #expect(launch.environmentValue("A") == "1")
        #expect(launch.environmentValue("D") == nil)
    }
}
