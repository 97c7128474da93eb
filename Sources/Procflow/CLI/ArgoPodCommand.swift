import Foundation

/// `procflow argo-pod loop|gather …`: the two pieces of a `forEach` that the pods of an
/// exported Argo workflow run, with the code the exporter uses for items the file gives:
/// `loop` makes the loop entries of a list another step gave, `gather` makes the step's
/// output from what its instances gave. Not listed in `procflow help`: the exporter writes
/// these command lines, people do not.
struct ArgoPodCommand: ParsableCommand {
    /// It takes no option: the case is there for the type to have a raw value, and
    /// `allCases` leaves it out.
    enum Option: String, CommandOption {
        case unused

        var spec: OptionSpec { .flag(rawValue, help: "") }
        static var allCases: [Option] { [] }
    }

    enum Action: String, CaseIterable {
        case loop
        case gather
    }

    static let name = "argo-pod"
    static let abstract = "What the pods of an exported Argo workflow run for a forEach."
    static let discussion: String? = """
        loop SPEC LIST OUT writes OUT/loop, the Argo loop entries of the JSON array in the
        file LIST for the forEach SPEC describes, and OUT/count. gather SPEC RESULTS OUT COUNT
        writes to OUT the JSON array of the COUNT instances' outputs, from Argo's aggregate of
        their output parameters in the file RESULTS (COUNT is a file holding the number).
        procflow export --to argo writes these command lines into the manifest.
        """
    static let arguments = [
        CommandDescription.Argument(name: "action", help: "loop or gather."),
        CommandDescription.Argument(
            name: "spec", help: "What the exporter says of the step, as JSON."),
        CommandDescription.Argument(
            name: "input", help: "The list (loop) or the aggregate (gather)."),
        CommandDescription.Argument(name: "output", help: "Where to write."),
        CommandDescription.Argument(
            name: "count", help: "The file holding the number of instances (gather).",
            isOptional: true),
    ]

    let action: Action
    let spec: JSONValue
    let input: String
    let output: String
    let count: String?

    init(_ arguments: ParsedArguments<Option>) throws(ArgumentError) {
        let words = arguments.positionals
        guard let action = Action(rawValue: words[0]) else {
            throw ArgumentError(message: "Unknown action '\(words[0])': expected loop or gather")
        }
        guard let spec = try? JSONParser.parse(Array(words[1].utf8)).plain else {
            throw ArgumentError(message: "the spec is not JSON")
        }
        if action == .gather, words.count < 5 {
            throw ArgumentError(message: "Missing expected argument '<count>'")
        }
        self.action = action
        self.spec = spec
        input = words[2]
        output = words[3]
        count = words.count > 4 ? words[4] : nil
    }

    func run(console: Console) -> Int32 {
        do {
            switch action {
            case .loop: try loop()
            case .gather: try gather()
            }
            return CommandLineTool.ExitStatus.success
        } catch {
            console.writeError("procflow: \(error.description)\n")
            return CommandLineTool.ExitStatus.failure
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private func read(_ path: String) throws(Failure) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "cannot read \(path)")
        }
        return [UInt8](data)
    }

    private func write(_ text: String, to path: String) throws(Failure) {
        do {
            try POSIXIO.writeAtomically(Array(text.utf8), to: path)
        } catch {
            throw Failure(description: error.message)
        }
    }

    /// The entries of the list, as ``ArgoLoop`` makes them, and their number; the same
    /// refusals as procflow's own `forEach`.
    private func loop() throws(Failure) {
        guard let loop = ArgoLoop(manifest: spec) else {
            throw Failure(description: "the spec is not a loop's")
        }
        guard case .object(let fields) = spec, case .string(let format)? = fields["format"],
            case .string(let select)? = fields["select"], let pointer = JSONPointer(parsing: select)
        else { throw Failure(description: "the spec is not a loop's") }
        let bytes = try read(input)
        var list: JSONValue = .string(String(decoding: bytes, as: UTF8.self))
        if format == OutputFormat.json.rawValue {
            do {
                list = try JSONParser.parse(bytes).plain
            } catch {
                throw Failure(description: "the list is not JSON: \(error.message)")
            }
        }
        if !pointer.isRoot {
            guard let selected = list.value(at: pointer) else {
                throw Failure(description: "\(loop.step): the list has no value at \(pointer)")
            }
            list = selected
        }
        guard case .array(let items) = list else {
            throw Failure(
                description:
                    "\(loop.step): forEach needs a list of items, and the wire gave \(list.typeDescription)"
            )
        }
        guard items.count <= Workflow.maximumInstancesPerForEach else {
            throw Failure(
                description:
                    "\(loop.step): the wire gave \(formatCount(items.count)) items; a forEach makes at most \(formatCount(Workflow.maximumInstancesPerForEach)) instances"
            )
        }
        try write(JSONWriter.string(.array(loop.entries(items))), to: output + "/loop")
        try write(String(items.count), to: output + "/count")
    }

    /// The step's output, from the aggregate.
    private func gather() throws(Failure) {
        guard case .object(let fields) = spec, case .string(let step)? = fields["step"],
            case .string(let name)? = fields["format"], let format = OutputFormat(rawValue: name),
            case .bool(let tolerated)? = fields["tolerated"], let count
        else { throw Failure(description: "the spec is not a gathering's") }
        let countText = String(decoding: try read(count), as: UTF8.self)
        guard let number = Int(countText.trimmingCharacters(in: .whitespacesAndNewlines)),
            number >= 0
        else { throw Failure(description: "the count is not a number: \(countText)") }
        let bytes = try read(input)
        let results: JSONValue
        do {
            results = try JSONParser.parse(bytes).plain
        } catch {
            throw Failure(description: "the aggregate is not JSON: \(error.message)")
        }
        let value: JSONValue
        do {
            value = try ArgoLoop.gather(
                results, count: number, format: format, tolerated: tolerated, step: step)
        } catch {
            throw Failure(description: error.description)
        }
        try write(JSONWriter.string(value), to: output)
    }
}
