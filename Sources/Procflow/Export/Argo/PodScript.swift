/// The shell scripts pods run around a step's command or procflow. Each is fixed text: what a
/// step does and the data it takes reach it as arguments and files, never as part of a script.
///
/// Files: Argo puts each input, base64-encoded, under `/procflow/in` (environment values under
/// `env/`, the words of a command under `argv/`, stdin as `stdin`, a pod's procflow workflow as
/// `workflow.json`); the scripts work in `/tmp/procflow`, writing outputs there for Argo to
/// read: `argo/NAME` base64-encoded (Argo trims a final newline from what it reads; base64 has
/// no data in one), `out/NAME` as is for the few values Argo itself reads, such as `run`, and
/// `out/NAME.text` for text Argo passes on (an HTTP body): refused if it holds a `{{`, and
/// ended with a newline for Argo to trim. No script holds `{{` itself: Argo would read it as a
/// tag.
enum PodScript {
    /// Where Argo puts a pod's inputs.
    static let inputs = "/procflow/in"
    /// Where the scripts work and leave outputs.
    static let work = "/tmp/procflow"
    /// Where the shared workspace volume is mounted: the workflow file's directory.
    static let workspace = "/workspace"

    /// The script of a pod that runs procflow: decodes the inputs into `in/` (but `.plain`
    /// ones, such as `true`, which it copies), runs
    /// `procflow run in/workflow.json`, checks and ends the texts it wrote into `out/`,
    /// encodes everything it wrote there into `argo/` and, if it succeeded, marks the output
    /// given.
    static let procflow = """
        in=\(inputs) d=\(work)
        mkdir -p "$d/in" "$d/out" "$d/argo" || exit 1
        for f in "$in"/*; do
          [ -f "$f" ] || continue
          case "$f" in
            *.plain) cp "$f" "$d/in/" || exit 1;;
            *) base64 -d < "$f" > "$d/in/${f##*/}" || { echo "procflow: cannot decode ${f##*/}" >&2; exit 1; };;
          esac
        done
        procflow run "$d/in/workflow.json" || exit
        for f in "$d"/out/*.text; do
          [ -f "$f" ] || continue
          case $(cat "$f") in *"{"{*) echo "procflow: ${f##*/}: Argo would rewrite the text: it holds a double brace" >&2; exit 1;; esac
          printf '\\n' >> "$f"
        done
        for f in "$d"/out/*; do
          [ -f "$f" ] || continue
          base64 < "$f" > "$d/argo/${f##*/}" || exit 1
        done
        printf true > "$d/given"
        """

    /// What a command's wrapper has to do besides running it.
    struct Needs: Equatable {
        /// Environment variables to decode from `in/env/` (wired inputs, and values Argo must
        /// not read).
        var environment = false
        /// The command's words to decode from `in/argv/`.
        var arguments = false
        /// A stdin to decode from `in/stdin`.
        var stdin = false
        /// Stdout to keep as the output, encoded into `argo/output`.
        var output = false
        /// Whether to mark the output given when the command succeeds.
        var given = false
        /// An instance of a `forEach`: the index in `in/index` to leave for Argo.
        var index = false
        /// A `forEach` instance that may not have been made: `in/fail` holds why, encoded, or
        /// nothing.
        var failure = false

        /// Whether the command can run without a wrapper.
        var isNone: Bool { self == Needs() }
    }

    /// The wrapper of a command given as the script's arguments (or in `in/argv/`): decodes
    /// the environment, the command and stdin, runs the command, keeps stdout while it goes to
    /// the log, and exits with the command's status.
    static func wrapper(_ needs: Needs) -> String {
        var lines = ["in=\(inputs) d=\(work)", #"mkdir -p "$d/argo" || exit 1"#]
        if needs.failure {
            lines += [
                #"if [ -s "$in/fail" ]; then"#,
                #"  { printf 'procflow: '; base64 -d < "$in/fail"; echo; } >&2"#,
                "  exit 1",
                "fi",
            ]
        }
        if needs.index { lines.append(#"cp "$in/index" "$d/index" || exit 1"#) }
        if needs.environment {
            lines += [
                #"for f in "$in"/env/*; do"#,
                #"  [ -f "$f" ] || continue"#,
                #"  v=$(base64 -d < "$f" && printf .) || { echo "procflow: cannot decode ${f##*/}" >&2; exit 1; }"#,
                #"  export "${f##*/}=${v%.}""#,
                "done",
            ]
        }
        if needs.arguments {
            lines += [
                "set --",
                "i=0",
                #"while [ -f "$in/argv/$i" ]; do"#,
                #"  a=$(base64 -d < "$in/argv/$i" && printf .) || { echo "procflow: cannot decode the command" >&2; exit 1; }"#,
                #"  set -- "$@" "${a%.}""#,
                "  i=$((i + 1))",
                "done",
            ]
        }
        var run = #""$@""#
        if needs.stdin {
            lines.append(
                #"base64 -d < "$in/stdin" > "$d/stdin" || { echo "procflow: cannot decode stdin" >&2; exit 1; }"#
            )
            run += #" < "$d/stdin""#
        }
        guard needs.output else {
            lines.append("exec " + run)
            return lines.joined(separator: "\n")
        }
        lines += [
            #"{ "# + run + #"; echo $? > "$d/status"; } | tee "$d/stdout""#,
            #"status=$(cat "$d/status") || exit 1"#,
            #"base64 < "$d/stdout" > "$d/argo/output" || exit 1"#,
        ]
        if needs.given { lines.append(#"[ "$status" -eq 0 ] && printf true > "$d/given""#) }
        lines.append(#"exit "$status""#)
        return lines.joined(separator: "\n")
    }
}
