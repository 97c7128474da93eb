extension Workflow {
    /// The values of the workflow's ``secrets``: each name's values in its variables, `env`
    /// and dotenv files, in the variables and `env` of the files it includes, in its steps'
    /// `env`, and in `environment`, the process's, which commands inherit.
    public func secretValues(in environment: [String: String]) -> [String] {
        guard !secrets.isEmpty else { return [] }
        var values: Set<String> = []
        for (name, value) in variables + self.environment + dotenv + includedValues
        where secrets.contains(name) {
            values.insert(value)
        }
        for name in secrets {
            if let value = environment[name] { values.insert(value) }
        }
        forEachStep { place in
            guard case .shell(let shell) = place.step.kind else { return }
            for (name, value) in shell.environment where secrets.contains(name) {
                values.insert(value)
            }
        }
        return values.sorted()
    }
}
