/// The engines `procflow export --to` knows: one line each.
public enum ExportTargets {
    /// Every target, in the order `--help` lists them.
    public static let all: [any ExportTarget] = [ArgoTarget()]

    /// The target `name` names, if any.
    public static func named(_ name: String) -> (any ExportTarget)? {
        all.first { $0.name == name }
    }
}
