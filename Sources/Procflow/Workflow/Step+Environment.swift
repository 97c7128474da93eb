extension Step {
    /// The step with `environment` under the `env` of every shell step in it: an included
    /// file's variables and `env`, a `forEach` instance's item.
    func addingEnvironment(_ environment: [(name: String, value: String)]) -> Step {
        guard !environment.isEmpty else { return self }
        return mapped { step in
            guard case .shell(var shell) = step.kind else { return step }
            var step = step
            shell.environment = environment + shell.environment
            step.kind = .shell(shell)
            return step
        }
    }
}

extension Step {
    /// The step with `parts` before the `cacheKey` of every step in it: an included file's
    /// own `cacheKey`.
    func addingCacheKey(_ parts: [CacheKeyPart]) -> Step {
        guard !parts.isEmpty else { return self }
        return mapped { step in
            var step = step
            step.caching.keyParts = parts + step.caching.keyParts
            return step
        }
    }
}
