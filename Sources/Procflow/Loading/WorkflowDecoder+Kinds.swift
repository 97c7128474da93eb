/// Decoding the fields of each kind of procedure but file procedures.
extension WorkflowDecoder {
    func decodeShell(_ object: inout ObjectReader) -> Shell? {
        var command: Shell.Command?
        switch (object.has("run"), object.has("argv")) {
        case (true, true):
            report.error(
                "give either \"run\" (a script for /bin/sh -c) or \"argv\" (a program and its arguments), not both",
                at: object.offset, object.pointer)
            _ = object.node("run")
            _ = object.node("argv")
        case (true, false):
            command = object.string("run", nonEmpty: true).map(Shell.Command.script)
        case (false, true):
            if let argv = object.strings("argv", substitute: true) {
                if argv.isEmpty || argv[0].isEmpty {
                    let node = object.node("argv")!
                    report.error(
                        "\"argv\" must start with a program to run", at: node.node.offset,
                        node.pointer)
                } else {
                    command = .argv(argv)
                }
            }
        case (false, false):
            object.missing("run", " (or \"argv\"): the command a shell procedure runs")
        }
        let cwd = object.string("cwd", nonEmpty: true, substitute: true)
        let environment =
            object.stringMap("env", names: .environmentVariable, substitute: true) ?? []
        var inputs: [(String, Wire)] = []
        if let (node, pointer) = object.node("inputs") {
            if case .object(let members) = node.value {
                for member in members {
                    let memberPointer = pointer.appending(member.key)
                    if let problem = NamePattern.environmentVariable.problem(with: member.key) {
                        report.error(problem, at: member.keyOffset, memberPointer)
                    } else if inputs.contains(where: { $0.0 == member.key }) {
                        report.error(
                            "duplicate field \"\(member.key)\"", at: member.keyOffset, memberPointer
                        )
                    } else if let wire = decodeWire(member.value, at: memberPointer) {
                        inputs.append((member.key, wire))
                    }
                }
            } else {
                report.error(
                    "expected an object of wires such as {\"NAME\": {\"from\": \"id\"}}, found \(node.typeDescription)",
                    at: node.offset, pointer)
            }
        }
        let output = object.choice("output", of: OutputFormat.self) ?? .none
        let interpreter = decodeInterpreter(&object, for: command)
        let service = decodeService(&object)
        let jobserver = object.bool("jobserver")
        guard let command else { return nil }
        var shell = Shell(
            command: command, interpreter: interpreter ?? .sh, cwd: cwd,
            environment: environment, inputs: inputs, output: output, service: service)
        shell.jobserver = jobserver ?? true
        return shell
    }

    /// The `shell` field: `"sh"`, `"bash"`, `"python3"`, or an argv the script is appended to.
    func decodeInterpreter(_ object: inout ObjectReader, for command: Shell.Command?)
        -> Shell.Interpreter?
    {
        guard let (node, pointer) = object.node("shell") else { return nil }
        if case .argv = command {
            report.error(
                "\"shell\" runs a \"run\" script; \"argv\" runs its program without one",
                at: node.offset, pointer)
            return nil
        }
        let names = ["sh", "bash", "python3"]
        switch node.value {
        case .string("sh"): return .sh
        case .string("bash"): return .bash
        case .string("python3"): return .python3
        case .string(let name):
            report.error(
                "unknown shell \"\(name)\": expected \"sh\", \"bash\", \"python3\", or a command such as [\"pwsh\", \"-Command\"] that the script is appended to\(Suggestion.hint(for: name, in: names))",
                at: node.offset, pointer)
        case .array(let items):
            let words = items.compactMap { item -> String? in
                if case .string(let word) = item.value { return word }
                return nil
            }
            if words.count == items.count, let first = words.first, !first.isEmpty {
                return .command(words)
            }
            report.error(
                "expected a command as an array of strings starting with a program, such as [\"pwsh\", \"-Command\"]",
                at: node.offset, pointer)
        default:
            report.error(
                "expected \"sh\", \"bash\", \"python3\" or an array of strings, found \(node.typeDescription)",
                at: node.offset, pointer)
        }
        return nil
    }

    func decodeHTTP(_ object: inout ObjectReader) -> HTTP? {
        let url = object.string("url", required: true, nonEmpty: true, substitute: true)
        // A forEach instance's URL is checked when the item is filled in.
        let perItem = report.itemVariable != nil && (url?.contains("${") ?? false)
        if let url, !perItem, !Self.isHTTPURL(url), let (node, pointer) = object.node("url") {
            report.error(
                "\"\(url)\" is not a valid URL: expected http:// or https:// and a host",
                at: node.offset,
                pointer)
        }
        var method = "GET"
        if let (node, pointer) = object.node("method") {
            if case .string(let name) = node.value, name.allSatisfy(\.isASCII),
                WorkflowFields.httpMethods.contains(name.uppercased())
            {
                method = name.uppercased()
            } else {
                let found =
                    if case .string(let name) = node.value { "\"\(name)\"" } else {
                        node.typeDescription
                    }
                report.error(
                    "unknown method \(found): expected one of \(WorkflowFields.httpMethods.joined(separator: ", "))",
                    at: node.offset, pointer)
            }
        }
        let headers = object.stringMap("headers", substitute: true) ?? []
        var body = object.node("body").map(\.node.plain)
        if case .string(let text)? = body, let (node, pointer) = object.node("body") {
            body = report.substitute(text, at: node.offset, pointer).map(JSONValue.string)
        }
        var expect: [Int] = []
        if let (node, pointer) = object.node("expect") {
            if case .array(let items) = node.value, !items.isEmpty {
                for (position, item) in items.enumerated() {
                    if case .number(let number) = item.value, number == number.rounded(),
                        (100...599).contains(number)
                    {
                        expect.append(Int(number))
                    } else {
                        report.error(
                            "expected an HTTP status code (100 to 599)", at: item.offset,
                            pointer.appending(position))
                    }
                }
            } else {
                report.error("expected a non-empty array of status codes", at: node.offset, pointer)
            }
        }
        let output = object.choice("output", of: OutputFormat.self) ?? .text
        guard let url else { return nil }
        return HTTP(
            method: method, url: url, headers: headers, body: body, expect: expect, output: output)
    }

    func decodeGroup(_ object: inout ObjectReader) -> Group? {
        guard let (node, pointer) = object.node("procedures") else {
            object.missing("procedures", ": the procedures the group runs")
            return nil
        }
        let steps = decodeSteps(node, at: pointer, requireSome: true)
        let inputTo = object.node("inputTo").flatMap { decodeReference($0.node, at: $0.pointer) }
        let outputFrom = object.node("outputFrom").flatMap {
            decodeReference($0.node, at: $0.pointer)
        }
        let maxConcurrency = object.integer("maxConcurrency", in: 1...10_000)
        return Group(
            steps: steps, inputTo: inputTo, outputFrom: outputFrom, maxConcurrency: maxConcurrency)
    }

    func decodeBranch(_ object: inout ObjectReader) -> Branch? {
        var on: Wire?
        if let (node, pointer) = object.node("on") {
            on = decodeWire(node, at: pointer)
        } else {
            object.missing("on", ": the wire whose value chooses the case")
        }
        var cases: [Branch.Case] = []
        if let (node, pointer) = object.node("cases") {
            if case .array(let items) = node.value, !items.isEmpty {
                for (position, item) in items.enumerated() {
                    let casePointer = pointer.appending(position)
                    guard
                        var caseObject = ObjectReader(
                            item, at: casePointer, report: report, expected: "a case object")
                    else { continue }
                    let equals = caseObject.node("equals")?.node.plain
                    if equals == nil {
                        caseObject.missing("equals", ": the value that selects this case")
                    }
                    var steps: [Step] = []
                    if let (stepsNode, stepsPointer) = caseObject.node("procedures") {
                        steps = decodeSteps(stepsNode, at: stepsPointer, requireSome: true)
                    } else {
                        caseObject.missing("procedures", ": what this case runs")
                    }
                    caseObject.reportUnread(in: "a branch case", allowed: ["equals", "procedures"])
                    if let equals { cases.append(Branch.Case(equals: equals, steps: steps)) }
                }
            } else {
                report.error("expected a non-empty array of cases", at: node.offset, pointer)
            }
        } else {
            object.missing("cases", ": the sets of procedures to choose from")
        }
        let otherwise =
            object.node("otherwise").map {
                decodeSteps($0.node, at: $0.pointer, requireSome: false)
            } ?? []
        guard let on else { return nil }
        return Branch(on: on, cases: cases, otherwise: otherwise)
    }
}
