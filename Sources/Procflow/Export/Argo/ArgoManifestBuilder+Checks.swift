import Foundation

extension ArgoManifestBuilder {
    /// Records every feature of the workflow that Argo cannot express, and a warning for each
    /// it expresses only nearly.
    func checkExportable() {
        if let image = options.image, image.contains("{{") {
            warnings.append("--image \(image): Argo would read {{ in it as a template tag")
        }
        if !workflow.dotenv.isEmpty {
            warnings.append(
                "the variables of the dotenv files are not in the manifest: give them to the pods another way (a Secret or a ConfigMap)"
            )
        }
        var templates: Set<String> = []
        workflow.forEachStep { place in
            let step = place.step
            // What a forEach holds is its template, refused with it.
            if place.path.contains(where: templates.contains) { return }
            if step.forEach != nil {
                templates.insert(step.id)
                checkForEach(step)
            }
            checkReferences(of: step)
            checkLimits(of: step)
            checkTemplateText(of: step)
            if step.continueOnError, step.isContainer, let parent = place.parent {
                warn(
                    step,
                    "a step that fails inside it without continueOnError also fails the \(self.step(parent).kind.name) \"\(parent)\" around it on Argo (procflow only fails the run): Argo has one outcome for a DAG"
                )
            }
            switch step.kind {
            case .shell(let shell):
                if shell.service != nil {
                    problem(
                        step,
                        "a service is a process that runs beside the steps that depend on it, which an Argo DAG has no way to say: run it in the pods that need it, or as a sidecar",
                        field: "service")
                }
                if step.image == nil, options.image == nil {
                    problem(
                        step,
                        "a shell step needs a container image: give --image IMAGE, or an \"image\" field to the step"
                    )
                }
            case .group(let group):
                if let source = group.outputFrom, self.step(source.id).continueOnError,
                    self.step(source.id).isContainer
                {
                    problem(
                        step,
                        "its output comes from \"\(source.id)\", a \(self.step(source.id).kind.name) with continueOnError, whose output Argo cannot tell apart from a failure",
                        field: "outputFrom")
                }
            default:
                break
            }
        }
    }

    /// A step may only depend on steps of its own DAG or of DAGs that enclose it: an Argo task
    /// cannot wait for one task inside another's DAG.
    private func checkReferences(of step: Step) {
        let level = levels[step.id]!
        var references = step.dependsOn
        references += step.wires.map(\.wire.from)
        var seen: Set<String> = []
        for reference in references where seen.insert(reference.id).inserted {
            guard let target = levels[reference.id], !level.starts(with: target) else { continue }
            // The outermost group or branch that holds the target but not the step.
            let path = nested[reference.id]!.path
            let container = path.first { !nested[step.id]!.path.contains($0) && $0 != step.id }!
            let kind = self.step(container).kind.name
            var advice = "depend on \"\(container)\" instead"
            if case .group = self.step(container).kind {
                advice += ", or have it give that output with \"outputFrom\""
            }
            problem(
                at: reference.pointer, offset: reference.offset,
                "cannot export \"\(step.id)\" to Argo: it depends on \"\(reference.id)\", inside the \(kind) \"\(container)\", and an Argo task can only depend on tasks of its own DAG or of DAGs around it: \(advice)"
            )
        }
    }

    /// Timeouts and retries as Argo has them.
    private func checkLimits(of step: Step) {
        if let timeout = step.timeout {
            switch step.kind {
            case .group, .branch:
                problem(
                    step,
                    "Argo's timeouts apply to pods and requests, not to a \(step.kind.name)'s DAG: give the timeout to the steps inside",
                    field: "timeout")
            case .shell, .http:
                if timeout != timeout.rounded(.up) {
                    warn(
                        step,
                        "timeout \(formatSeconds(timeout)) rounded up to \(Int(timeout.rounded(.up))) s: Argo counts whole seconds"
                    )
                }
            case .file:
                break  // procflow applies it in the pod
            }
        }
        guard let retry = step.retry else { return }
        if case .file = step.kind { return }  // procflow retries in the pod, exactly
        if retry.backoff == .linear, retry.attempts > 2 {
            problem(
                step,
                "Argo's backoff multiplies the wait by a factor, so it cannot grow linearly: use \"constant\" or \"exponential\"",
                field: "retry")
        }
        if retry.jitter > 0 {
            warn(step, "retry jitter dropped: Argo waits the full backoff")
        }
    }

    /// Argo reads `{{` as a template tag in the text of templates; values a pod decodes can
    /// hold one, but these fields go to Argo as they are.
    private func checkTemplateText(of step: Step) {
        var fields: [(String, String)] = step.mutex.map { ("mutex", $0) }
        if let image = step.image { fields.append(("image", image)) }
        switch step.kind {
        case .shell(let shell):
            if let cwd = shell.cwd { fields.append(("cwd", cwd)) }
        case .http(let http):
            fields.append(("url", http.url))
            fields += http.headers.flatMap { [("headers", $0.name), ("headers", $0.value)] }
        default:
            break
        }
        for (field, text) in fields where text.contains("{{") {
            problem(
                step,
                "Argo would read the {{ in its \(field) as a template tag, and it has no way to escape one",
                field: field)
        }
    }

    /// "2.5 s".
    private func formatSeconds(_ seconds: Double) -> String {
        JSONWriter.format(seconds) + " s"
    }
}
