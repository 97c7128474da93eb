import Foundation

/// How the instances of a `forEach` shell step reach Argo: one loop entry per item, holding
/// what differs between instances, and the step's output gathered back from what they gave.
///
/// Argo fills `{{item.NAME}}` into a looped task's arguments only, so the parts of the command
/// that take the item — words of an `argv`, `env` values, the item itself in the environment
/// and the instance's id (`PROCFLOW_STEP`) — become parameters of the step's template, and each
/// entry gives their values for one item, base64-encoded like every value (Argo would read a
/// `{{` in them). Entries also carry `index`, `run` (`false` only in the stand-in entry of an
/// empty list: Argo skips a task looping over nothing, which would leave its outputs unset)
/// and `fail` (why the instance could not be made, if it could not).
///
/// The exporter makes the entries of items the file gives; a pod makes those of items another
/// step gives (`procflow argo-pod loop`), with this same code, so the two agree.
struct ArgoLoop {
    /// What one parameter of an instance is.
    enum Field {
        /// A text of the step with the item filled in, as procflow fills it.
        case text(String)
        /// The item, as the command's environment has it: a string as is, else JSON text.
        case item
        /// The instance's id, `id[index]`.
        case instanceID
    }

    /// The step's id.
    var step: String
    /// The name the item has in the step's fields.
    var variable: String
    /// The parameters that differ between instances, by name (`argv-0`, `env-NAME`).
    var fields: [(name: String, value: Field)]

    /// The entry of item number `index`. An item the fields cannot take (a field it lacks)
    /// gives an entry whose `fail` says why, and no values.
    func entry(index: Int, item: JSONValue) -> JSONValue {
        var entry: [String: JSONValue] = [
            "index": .string(String(index)), "run": .string("true"), "fail": .string(""),
        ]
        for (name, field) in fields {
            let value: String
            switch field {
            case .item: value = item.text
            case .instanceID: value = ForEach.instanceID(of: step, at: index)
            case .text(let text):
                switch VariableSubstitution.fillItem(text, variable, into: item) {
                case .success(let filled): value = filled
                case .failure(let problem):
                    return Self.failing(
                        index: index, fields: fields,
                        reason: Self.describe(problem, variable: variable, index: index))
                }
            }
            entry[name] = .string(Data(value.utf8).base64EncodedString())
        }
        return .object(entry)
    }

    /// The entries of `items`: one per item, or, for none, the stand-in that runs nothing.
    func entries(_ items: [JSONValue]) -> [JSONValue] {
        guard !items.isEmpty else { return [standIn] }
        return items.enumerated().map { entry(index: $0, item: $1) }
    }

    /// The entry of an empty list: every parameter there, empty, and `run` false.
    var standIn: JSONValue {
        var entry: [String: JSONValue] = [
            "index": .string("-1"), "run": .string("false"), "fail": .string(""),
        ]
        for (name, _) in fields { entry[name] = .string("") }
        return .object(entry)
    }

    private static func failing(
        index: Int, fields: [(name: String, value: Field)], reason: String
    ) -> JSONValue {
        var entry: [String: JSONValue] = [
            "index": .string(String(index)), "run": .string("true"),
            "fail": .string(Data(reason.utf8).base64EncodedString()),
        ]
        for (name, _) in fields { entry[name] = .string("") }
        return .object(entry)
    }

    /// The words procflow says when an instance cannot be made.
    private static func describe(
        _ problem: VariableSubstitution.Problem, variable: String, index: Int
    ) -> String {
        switch problem {
        case .noField(let reference), .unknown(let reference):
            return
                "item \(index) has no field \"\(reference.dropFirst(variable.count + 1))\" (${\(reference)})"
        case .unterminated:
            return "an unterminated variable reference"
        }
    }

    // MARK: - The loop's description, for the pod

    /// The loop as the pod that makes entries reads it.
    var manifest: JSONValue {
        .object([
            "step": .string(step), "variable": .string(variable),
            "fields": .array(
                fields.map { name, field in
                    switch field {
                    case .text(let text):
                        return .object(["name": .string(name), "text": .string(text)])
                    case .item: return .object(["name": .string(name), "item": .bool(true)])
                    case .instanceID: return .object(["name": .string(name), "id": .bool(true)])
                    }
                }),
        ])
    }

    /// The loop `manifest` describes; `nil` for anything else.
    init?(manifest: JSONValue) {
        guard case .object(let object) = manifest, case .string(let step)? = object["step"],
            case .string(let variable)? = object["variable"],
            case .array(let list)? = object["fields"]
        else { return nil }
        var fields: [(name: String, value: Field)] = []
        for field in list {
            guard case .object(let entry) = field, case .string(let name)? = entry["name"] else {
                return nil
            }
            if case .string(let text)? = entry["text"] {
                fields.append((name, .text(text)))
            } else if entry["item"] == .bool(true) {
                fields.append((name, .item))
            } else if entry["id"] == .bool(true) {
                fields.append((name, .instanceID))
            } else {
                return nil
            }
        }
        self.init(step: step, variable: variable, fields: fields)
    }

    init(step: String, variable: String, fields: [(name: String, value: Field)]) {
        self.step = step
        self.variable = variable
        self.fields = fields
    }

    // MARK: - Gathering

    /// Why gathering the instances' outputs failed.
    struct GatherError: Error, CustomStringConvertible {
        let description: String
    }

    /// The step's output: the array of its `count` instances' outputs in item order, from
    /// Argo's aggregate of the instances that succeeded (`[{"index": "2", "output": BASE64}]`),
    /// `null` for the others (skipped, failed, no output). An output that is not valid JSON
    /// where the step gives JSON fails the instance: the step, unless `tolerated`.
    static func gather(
        _ results: JSONValue, count: Int, format: OutputFormat, tolerated: Bool, step: String
    ) throws(GatherError) -> JSONValue {
        guard case .array(let list) = results else {
            throw GatherError(description: "Argo's aggregate of the outputs is not a list")
        }
        var outputs = [JSONValue](repeating: .null, count: count)
        for result in list {
            guard case .object(let fields) = result, case .string(let text)? = fields["index"],
                let index = Int(text), outputs.indices.contains(index)
            else {
                throw GatherError(description: "Argo's aggregate holds an entry of no instance")
            }
            guard format != .none, case .string(let encoded)? = fields["output"] else { continue }
            guard let data = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters) else {
                throw GatherError(description: "the output of \(step)[\(index)] is not base64")
            }
            switch format {
            case .none: break
            case .text: outputs[index] = .string(String(decoding: data, as: UTF8.self))
            case .json:
                do {
                    outputs[index] = try JSONParser.parse([UInt8](data)).plain
                } catch {
                    if tolerated { continue }
                    throw GatherError(
                        description:
                            "\(ForEach.instanceID(of: step, at: index)) failed: stdout is not valid JSON: \(error.message)"
                    )
                }
            }
        }
        return .array(outputs)
    }
}
