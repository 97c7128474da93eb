import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A file transform as a procedure: read, write, copy, render a template, select from JSON,
/// replace text, or concatenate files.
///
/// Paths are used as given (the workflow builder makes them absolute, relative to the workflow
/// file). Every write is atomic: the content goes to a temporary file in the destination's
/// directory, which is then renamed over the destination, so a failure or a cancellation never
/// leaves a half-written file. Missing directories are created.
public final class FileProcedure: Procedure, StepPortsProcedure, @unchecked Sendable {
    // @unchecked Sendable: mutable state lives in `ports`, a `Locked` mutex.

    /// What to do; relative paths are relative to the working directory of procflow.
    public enum Operation: Sendable {
        case read(path: String, format: OutputFormat)
        case write(path: String, content: String?)
        case copy(source: String, destination: String)
        /// `{{name}}` placeholders filled from the input object, then from `variables`.
        case render(template: FileOperation.Template, path: String?, variables: [String: String])
        case select(pointer: JSONPointer)
        case replace(find: String, replacement: String)
        case concat(paths: [String], path: String?)
    }

    /// What it does.
    public let operation: Operation
    /// The input and output.
    public let ports = Locked(StepPorts())

    /// A procedure that performs `operation`.
    public init(_ operation: Operation) {
        self.operation = operation
        super.init()
    }

    public override func execute() {
        do {
            finish(withResult: .success(try perform()))
        } catch {
            finish(withResult: .failure(error))
        }
    }

    private func perform() throws(StepError) -> JSONValue {
        let input = self.input.value
        switch operation {
        case .read(let path, let format):
            let bytes = try Self.read(path)
            guard format == .json else { return .string(String(decoding: bytes, as: UTF8.self)) }
            do {
                return try JSONParser.parse(bytes).plain
            } catch {
                let location = SourceText(bytes: bytes).location(ofOffset: error.offset)
                throw StepError(
                    .invalidJSON,
                    "\(path):\(location.line):\(location.column): invalid JSON: \(error.message)")
            }
        case .write(let path, let content):
            guard let text = content ?? input?.text else { throw missingInput() }
            try Self.writeAtomically(Array(text.utf8), to: path, isCancelled: { isCancelled })
            return .null
        case .copy(let source, let destination):
            try Self.writeAtomically(
                try Self.read(source), to: destination, isCancelled: { isCancelled })
            return .null
        case .render(let template, let path, let variables):
            guard let input else { throw missingInput() }
            let text: String
            switch template {
            case .text(let inline): text = inline
            case .file(let file): text = String(decoding: try Self.read(file), as: UTF8.self)
            }
            let rendered = try Self.render(text, input: input, variables: variables)
            if let path {
                try Self.writeAtomically(
                    Array(rendered.utf8), to: path, isCancelled: { isCancelled })
            }
            return .string(rendered)
        case .select(let pointer):
            guard let input else { throw missingInput() }
            guard let value = input.value(at: pointer) else {
                throw StepError(.input, "the input has no value at \(pointer)")
            }
            return value
        case .replace(let find, let replacement):
            guard let input else { throw missingInput() }
            guard case .string(let text) = input else {
                throw StepError(.input, "replace needs a text input, not \(input.typeDescription)")
            }
            return .string(text.replacingOccurrences(of: find, with: replacement))
        case .concat(let paths, let path):
            var bytes: [UInt8] = []
            for file in paths { bytes += try Self.read(file) }
            if let path { try Self.writeAtomically(bytes, to: path, isCancelled: { isCancelled }) }
            return .string(String(decoding: bytes, as: UTF8.self))
        }
    }

    private func missingInput() -> StepError {
        StepError(.input, "no input arrived")
    }

    // MARK: - Files

    static func read(_ path: String) throws(StepError) -> [UInt8] {
        switch POSIXIO.readFile(path) {
        case .success(let bytes): return bytes
        case .failure(let error): throw StepError(.file, "cannot read \(path): \(error.message)")
        }
    }

    /// Writes `bytes` to `path` atomically (``POSIXIO/writeAtomically(_:to:mode:directoryMode:temporaryDirectory:sync:isCancelled:)``).
    ///
    /// - Throws: a ``StepError`` naming the path and the reason; `path` is untouched.
    private static func writeAtomically(
        _ bytes: [UInt8], to path: String, isCancelled: () -> Bool
    ) throws(StepError) {
        do {
            try POSIXIO.writeAtomically(bytes, to: path, isCancelled: isCancelled)
        } catch {
            throw StepError(.file, error.message)
        }
    }

    // MARK: - Templates

    /// Fills `{{name}}` and `{{a.b}}` placeholders: from the input object first, then from the
    /// variables. A string value goes in as is, any other as JSON text.
    static func render(_ template: String, input: JSONValue, variables: [String: String])
        throws(StepError)
        -> String
    {
        var result = ""
        var rest = Substring(template)
        while let open = rest.range(of: "{{") {
            result += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                throw StepError(.input, "the template has an unclosed {{")
            }
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            let path = JSONPointer(tokens: name.split(separator: ".").map(String.init))
            if let value = input.value(at: path), !name.isEmpty {
                result += value.text
            } else if let value = variables[name] {
                result += value
            } else {
                throw StepError(
                    .input,
                    "the template uses {{\(name)}}, which is neither in the input nor a variable")
            }
            rest = rest[close.upperBound...]
        }
        return result + rest
    }
}
