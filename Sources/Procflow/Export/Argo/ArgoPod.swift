import Foundation

/// The two pieces of a `forEach` that the pods of an exported Argo workflow run through
/// `procflow argo-pod` (see ``ArgoLoop``): making a list's loop entries, and gathering the
/// step's output from what its instances gave.
enum ArgoPod {
    /// Why a pod's piece failed, in a sentence.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private static func parse(_ text: String) throws(Failure) -> JSONValue {
        do {
            return try JSONParser.parse(Array(text.utf8)).plain
        } catch {
            throw Failure(description: "the spec is not JSON: \(error.message)")
        }
    }

    private static func read(_ path: String) throws(Failure) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "cannot read \(path)")
        }
        return [UInt8](data)
    }

    private static func write(_ text: String, to path: String) throws(Failure) {
        do {
            try POSIXIO.writeAtomically(Array(text.utf8), to: path)
        } catch {
            throw Failure(description: error.message)
        }
    }

    /// Writes `output/loop`, the entries of the list in the file `list` as ``ArgoLoop``
    /// makes them, and `output/count`, their number; with the refusals of procflow's own
    /// `forEach`. `spec` is the loop's ``ArgoLoop/manifest`` with the wire's `format` and
    /// `select`.
    static func loop(spec text: String, list input: String, output: String) throws(Failure) {
        let spec = try parse(text)
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

    /// Writes to `output` the step's output, from Argo's aggregate in the file `results` and
    /// the number of instances in the file `count`. `spec` names the step, its output's
    /// format and whether its instances' failures are tolerated.
    static func gather(spec text: String, results input: String, output: String, count: String)
        throws(Failure)
    {
        guard case .object(let fields) = try parse(text), case .string(let step)? = fields["step"],
            case .string(let name)? = fields["format"], let format = OutputFormat(rawValue: name),
            case .bool(let tolerated)? = fields["tolerated"]
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
