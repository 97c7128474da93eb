extension Step {
    /// The step with `environment` under the `env` of every shell step in it: an included
    /// file's variables and `env`, a `forEach` instance's item.
    func addingEnvironment(_ environment: [(name: String, value: String)]) -> Step {
        guard !environment.isEmpty else { return self }
        var step = self
        switch kind {
        case .shell(var shell):
            shell.environment = environment + shell.environment
            step.kind = .shell(shell)
        case .group(var group):
            group.steps = group.steps.map { $0.addingEnvironment(environment) }
            step.kind = .group(group)
        case .branch(var branch):
            for index in branch.cases.indices {
                branch.cases[index].steps = branch.cases[index].steps.map {
                    $0.addingEnvironment(environment)
                }
            }
            branch.otherwise = branch.otherwise.map { $0.addingEnvironment(environment) }
            step.kind = .branch(branch)
        case .http, .file:
            break
        }
        return step
    }
}
