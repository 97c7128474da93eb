import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One `sbatch`: a job, or a job array of tasks that ask for the same things. What each task
/// runs — its working directory, environment, command and stdin — is in files of its own,
/// read by a batch script whose text never changes: no value becomes script text.
struct SlurmSubmission {
    /// The batch script every job runs (bash, for `mapfile -d ''`). Its argument is the prefix
    /// of its task's files: `PREFIX.args` holds, NUL-separated, the working directory, the
    /// number of environment entries, the entries, then the command; `PREFIX.in`, if there,
    /// is its stdin.
    static let script = """
        #!/bin/bash
        # Written by procflow: runs one step's command as a Slurm job (or one task of an array).
        # What runs comes from the task's files, never from this text.
        task=$1.${SLURM_ARRAY_TASK_ID:-0}
        mapfile -d '' -t words < "$task.args" || exit 1
        if ! cd -- "${words[0]}" 2>/dev/null; then
            printf 'procflow: cannot enter %s on %s: the working directory must be on a filesystem every node sees\\n' "${words[0]}" "$(hostname)" >&2
            : > "$task.nocd"
            exit 1
        fi
        if [ -e "$task.in" ]; then exec < "$task.in"; else exec < /dev/null; fi
        count=${words[1]}
        exec env -- "${words[@]:2:count}" "${words[@]:2+count}"

        """

    /// Where the submission's files start: `DIRECTORY/NUMBER`.
    let base: String
    let request: JobRequest
    let launches: [CommandLaunch]

    var isArray: Bool { launches.count > 1 }

    /// The prefix of task `index`'s files.
    func taskPrefix(_ index: Int) -> String { "\(base).\(index)" }

    /// The id Slurm gives task `index`, once the submission got `jobID`.
    func slurmID(of index: Int, jobID: String) -> String {
        isArray ? "\(jobID)_\(index)" : jobID
    }

    /// Writes every task's files, private to the user (the environment may hold secrets).
    ///
    /// - Returns: why they could not be written, if they could not.
    func writeTaskFiles() -> String? {
        for (index, launch) in launches.enumerated() {
            let prefix = taskPrefix(index)
            var words = [launch.workingDirectory ?? FileManager.default.currentDirectoryPath]
            let entries = launch.environment.filter { !SlurmTool.isSlurmVariable($0.key) }
                .sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            words.append(String(entries.count))
            words += entries
            words += launch.arguments
            var bytes: [UInt8] = []
            for word in words {
                bytes += word.utf8
                bytes.append(0)
            }
            do {
                try POSIXIO.writeAtomically(bytes, to: prefix + ".args", mode: 0o600, sync: false)
                if let stdin = launch.stdin {
                    try POSIXIO.writeAtomically(stdin, to: prefix + ".in", mode: 0o600, sync: false)
                }
            } catch {
                return error.message
            }
        }
        return nil
    }

    /// `sbatch`'s arguments, the program first, running `script` (the batch script's path).
    func arguments(script: String) -> [String] {
        let outputs = isArray ? "\(base).%a" : "\(base).0"
        var arguments = [
            "sbatch", "--parsable", "--job-name=\(Self.jobName(request.name))",
            "--output=\(outputs).out", "--error=\(outputs).err", "--input=/dev/null",
            "--export=ALL", "--chdir=\((base as NSString).deletingLastPathComponent)",
        ]
        if isArray { arguments.append("--array=0-\(launches.count - 1)") }
        let resources = request.resources
        if let cpus = resources.cpus { arguments.append("--cpus-per-task=\(cpus)") }
        if let memory = resources.memory { arguments.append("--mem=\(memory)M") }
        if let gpus = resources.gpus, gpus > 0 { arguments.append("--gpus=\(gpus)") }
        if let time = resources.time ?? request.timeout {
            arguments.append("--time=\(Self.minutes(time))")
        }
        let slurm = request.slurm
        if let partition = slurm.partition { arguments.append("--partition=\(partition)") }
        if let account = slurm.account { arguments.append("--account=\(account)") }
        if let qos = slurm.qos { arguments.append("--qos=\(qos)") }
        arguments += slurm.extraArgs ?? []
        return arguments + [script, base]
    }

    /// A time limit in whole minutes, rounded up: Slurm's unit.
    static func minutes(_ seconds: Double) -> String {
        String(max(1, Int((seconds / 60).rounded(.up))))
    }

    /// The job's name: procflow's mark and the step's id, in characters every tool shows as
    /// they are.
    static func jobName(_ id: String) -> String {
        let kept = id.unicodeScalars.map { scalar -> Character in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || "_-.[]".unicodeScalars.contains(scalar))
                ? Character(scalar) : "_"
        }
        return "procflow-" + String(kept.prefix(100))
    }
}
