/// What decoding a workflow file needs besides the JSON: the file and the map of every file
/// loaded, for locations, the variables, to fill in, and the problems found so far.
final class DecodingContext {
    /// The file being decoded.
    let file: String
    /// Every file of the workflow: offsets in it say which file a problem is in.
    let sources: SourceMap
    /// The files that include this one, outermost first, and this one: for include cycles.
    let includeChain: [String]
    /// The levels of arrays and objects this file is nested in: those of the files that
    /// include it, up to the include entry that names it; 0 for the workflow file.
    let depth: Int
    /// What loading the workflow may still read, shared by all its files.
    let budget: ReadBudget
    /// The workflow's variables, with their values once `--var` overrides are applied.
    var variables: [String: String] = [:]
    /// Every id the file declares, including those of procedures that could not be decoded,
    /// so that references to them are not reported as unknown as well.
    var declaredIDs: [String: Int] = [:]
    /// While a `forEach` step is decoded: its item's name, whose references each instance
    /// fills in.
    var itemVariable: String?
    /// What the workflow and the groups being decoded give the steps inside them for
    /// `executor` (the groups only), `resources` and `slurm`.
    var enclosingPlacement = Placement()
    private(set) var diagnostics: [Diagnostic] = []

    init(
        file: String, sources: SourceMap, includeChain: [String], depth: Int = 0,
        budget: ReadBudget
    ) {
        self.file = file
        self.sources = sources
        self.includeChain = includeChain
        self.depth = depth
        self.budget = budget
    }

    func error(_ message: String, at offset: Int, _ pointer: JSONPointer?) {
        let (file, location) = sources.locate(offset)
        error(message, in: file, location: location, pointer)
    }

    func error(_ message: String, location: SourceLocation?, _ pointer: JSONPointer?) {
        error(message, in: file, location: location, pointer)
    }

    /// Reports a problem in another file the workflow reads (a dotenv file, say).
    func error(
        _ message: String, in file: String, location: SourceLocation?, _ pointer: JSONPointer?
    ) {
        diagnostics.append(
            Diagnostic(file: file, location: location, pointer: pointer, message: message))
    }

    func location(of offset: Int) -> SourceLocation {
        // A load holds every file's bytes: they are let go, if ever, after it.
        sources.locate(offset).location ?? SourceLocation(line: 1, column: 1)
    }

    /// Takes in what decoding an included file found: its problems, and its ids (`rename`d as
    /// they join this workflow).
    func absorb(_ other: DecodingContext, renaming rename: (String) -> String) {
        diagnostics += other.diagnostics
        for (id, offset) in other.declaredIDs { declaredIDs[rename(id)] = offset }
    }

    /// `text` with its `${name}` references filled in, or `nil` after reporting an unknown
    /// variable or a malformed reference.
    func substitute(_ text: String, at offset: Int, _ pointer: JSONPointer) -> String? {
        switch VariableSubstitution.substitute(text, variables, deferring: itemVariable) {
        case .success(let filled):
            return filled
        case .failure(.unknown(let name)):
            let hint =
                variables.isEmpty
                ? " (the workflow declares no \"vars\")"
                : Suggestion.hint(for: name, in: variables.keys)
            error("unknown variable \"\(name)\" in ${\(name)}\(hint)", at: offset, pointer)
        case .failure(.unterminated):
            error(
                "unterminated variable reference: write ${name}, or $${ for a literal ${",
                at: offset, pointer)
        case .failure(.noField):
            break  // only items have fields, and they are filled in per instance
        }
        return nil
    }
}
