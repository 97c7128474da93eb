/// Reading the dotenv files a workflow names.
extension WorkflowDecoder {
    /// The variables of the dotenv files `node` lists, in order (each entry a path relative
    /// to the workflow file, or `{"path": …, "optional": true, "secret": true}`), the names of
    /// those of the files marked `secret`, and the file each name was last read from.
    func decodeDotenv(_ node: JSONNode, at pointer: JSONPointer) -> (
        variables: [(name: String, value: String)], secrets: Set<String>, files: [String: String]
    ) {
        guard case .array(let entries) = node.value else {
            report.error(
                "expected an array of dotenv files, found \(node.typeDescription)",
                at: node.offset, pointer)
            return ([], [], [:])
        }
        var variables: [(name: String, value: String)] = []
        var secrets: Set<String> = []
        var files: [String: String] = [:]
        for (position, entry) in entries.enumerated() {
            let at = pointer.appending(position)
            var path: String?
            var optional = false
            var secret = false
            if case .string(let text) = entry.value {
                path = report.substitute(text, at: entry.offset, at)
            } else if var object = ObjectReader(
                entry, at: at, report: report, expected: "a path or {\"path\": …}")
            {
                path = object.string("path", required: true, nonEmpty: true, substitute: true)
                optional = object.bool("optional") ?? false
                secret = object.bool("secret") ?? false
                object.reportUnread(in: "a dotenv entry", allowed: ["path", "optional", "secret"])
            }
            guard let path else { continue }
            let read = readDotenv(path, optional: optional, at: entry.offset, at)
            if secret { secrets.formUnion(read.map(\.name)) }
            for (name, _) in read { files[name] = path }
            variables += read
        }
        return (variables, secrets, files)
    }

    func readDotenv(_ path: String, optional: Bool, at offset: Int, _ pointer: JSONPointer)
        -> [(name: String, value: String)]
    {
        guard !report.budget.isSpent else { return [] }
        let full = resolve(path, in: directory(of: report.file))
        let name = "the dotenv file \(path)"
        let read = WorkflowFile.read(full, named: name, kind: "dotenv files")
        report.sources.noteRead(resolve(full, in: "."), content: try? read.get())
        switch read {
        case .failure(let problem):
            if optional, problem.isMissing { return [] }
            report.error(problem.message, at: offset, pointer)
            return []
        case .success(let bytes):
            if let problem = report.budget.take(bytes.count, for: name) {
                report.error(problem, at: offset, pointer)
                return []
            }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                report.error("the dotenv file \(path) is not UTF-8 text", at: offset, pointer)
                return []
            }
            switch DotenvFile.parse(text) {
            case .success(let variables): return variables
            case .failure(let problem):
                // Named as the workflow file is: relative to where procflow runs.
                let shown =
                    path.hasPrefix("/") || directory(of: report.file) == "."
                    ? path : directory(of: report.file) + "/" + path
                report.error(problem.message, in: shown, location: problem.location, nil)
                return []
            }
        }
    }
}
