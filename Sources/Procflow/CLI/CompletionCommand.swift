/// `procflow completion bash|zsh|fish`: prints a shell completion script for procflow's
/// commands, their options and option values, files, and the step ids of the workflow at hand
/// (for `run`'s targets and `--only`), which it asks `procflow list --ids` for.
struct CompletionCommand: ParsableCommand {
    typealias Option = NoOption

    enum Shell: String, CaseIterable {
        case bash, zsh, fish
    }

    static let name = "completion"
    static let abstract = "Print a shell completion script (bash, zsh or fish)."
    static let discussion: String? = """
        Completes commands, options, option values, workflow files and the step ids of the
        workflow at hand. Load it with: bash: source <(procflow completion bash), or save it
        as ~/.local/share/bash-completion/completions/procflow; zsh: source <(procflow
        completion zsh) in ~/.zshrc; fish: procflow completion fish >
        ~/.config/fish/completions/procflow.fish.
        """
    static let arguments = [CommandDescription.Argument(name: "shell", help: "bash, zsh or fish.")]

    let shell: Shell

    init(_ arguments: ParsedArguments<Option>) throws(ArgumentError) {
        guard let shell = Shell(rawValue: arguments.positionals[0]) else {
            throw ArgumentError(
                message:
                    "Unknown shell '\(arguments.positionals[0])': expected bash, zsh or fish")
        }
        self.shell = shell
    }

    func run(console: Console) -> Int32 {
        switch shell {
        case .bash: console.write(CompletionScript.bash)
        case .zsh: console.write(CompletionScript.zsh)
        case .fish: console.write(CompletionScript.fish)
        }
        return CommandLineTool.ExitStatus.success
    }
}

/// The completion scripts, made from the commands' own descriptions, so that they list every
/// option the parser accepts.
enum CompletionScript {
    /// The commands completed, with their descriptions.
    static var commands: [(name: String, description: CommandDescription)] {
        Subcommand.allCases.filter(\.isListed).map { ($0.rawValue, $0.command.description) }
    }

    /// What completes an option's value.
    enum ValueKind: Equatable {
        case choices([String])
        case files
        case ids
        case nothing
    }

    static func valueKind(_ option: OptionSpec) -> ValueKind {
        if let choices = option.choices { return .choices(choices) }
        switch option.valueName {
        case "file", "path", "directory": return .files
        case "id": return .ids
        default: return .nothing
        }
    }

    /// The spellings of an option: `--name` and, if it has one, `-x`.
    static func spellings(_ option: OptionSpec) -> [String] {
        ["--" + option.name] + (option.short.map { ["-\($0)"] } ?? [])
    }

    /// Words of the first argument of commands that take a fixed set.
    static func firstWords(of command: String) -> [String]? {
        switch command {
        case "cache": return CacheCommand.Action.allCases.map(\.rawValue)
        case "completion": return CompletionCommand.Shell.allCases.map(\.rawValue)
        case "help": return commands.map(\.name)
        default: return nil
        }
    }

    // MARK: - bash

    /// Every spelling of an option that takes a value, of any command, sorted.
    static var optionsTakingValues: [String] {
        var spellings: Set<String> = []
        for (_, description) in commands {
            for option in description.options where option.valueName != nil {
                spellings.formUnion(self.spellings(option))
            }
        }
        return spellings.sorted()
    }

    static var bash: String {
        var valueCases: [String] = []
        var optionLists: [String] = []
        for (name, description) in commands {
            for option in description.options where option.valueName != nil {
                let patterns = spellings(option).map { "\"\(name) \($0)\"" }.joined(separator: "|")
                switch valueKind(option) {
                case .choices(let choices):
                    valueCases.append(
                        "    \(patterns)) COMPREPLY=($(compgen -W \"\(choices.joined(separator: " "))\" -- \"$cur\")); return;;"
                    )
                case .files:
                    valueCases.append(
                        "    \(patterns)) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")); return;;"
                    )
                case .ids:
                    valueCases.append(
                        "    \(patterns)) COMPREPLY=($(compgen -W \"$(_procflow_ids)\" -- \"$cur\")); return;;"
                    )
                case .nothing:
                    valueCases.append("    \(patterns)) return;;")
                }
            }
            let options = description.options.flatMap(spellings) + ["--help"]
            optionLists.append("    \(name)) words=\"\(options.joined(separator: " "))\";;")
        }
        var firstWordCases: [String] = []
        for name in commands.map(\.name) + ["help"] {
            if let words = firstWords(of: name) {
                firstWordCases.append("    \(name)) words=\"\(words.joined(separator: " "))\";;")
            }
        }
        let names = (commands.map(\.name) + ["help", "--help", "--version"]).joined(separator: " ")
        // bash cuts `--file=x` into `--file`, `=` and `x` (= is in COMP_WORDBREAKS).
        let skipValue = "[ \"${COMP_WORDS[i+1]}\" = \"=\" ] && ((i++)); ((i++))"
        let valueOptions = optionsTakingValues.joined(separator: "|")
        return """
            # procflow completion for bash. Load it with: source <(procflow completion bash)
            _procflow_ids() {
              # The workflow at hand: -f's value, else the first argument when it names a .json
              # file, else the one procflow finds from here up.
              local i word file="" first=""
              for ((i = 2; i < COMP_CWORD; i++)); do
                word="${COMP_WORDS[i]}"
                case "$word" in
                  -f|--file) [ "${COMP_WORDS[i+1]}" = "=" ] && ((i++)); file="${COMP_WORDS[i+1]}"; break;;
                  --file=*) file="${word#--file=}"; break;;
                  \(valueOptions)) \(skipValue);;
                  -*) ;;
                  *) if [ -z "$first" ]; then
                       first=1
                       case "$word" in *.json|*.jsonc) file="$word";; esac
                     fi;;
                esac
              done
              if [ -n "$file" ]; then
                procflow list --ids -f "$file" 2>/dev/null
              else
                procflow list --ids 2>/dev/null
              fi
            }

            _procflow() {
              local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
              local command="${COMP_WORDS[1]}" words="" i word count=0 named=""
              COMPREPLY=()
              # The value after `--output=`: bash makes = a word of its own.
              [ "$cur" = "=" ] && cur=""
              [ "$prev" = "=" ] && prev="${COMP_WORDS[COMP_CWORD-2]}"
              if [ "$COMP_CWORD" -eq 1 ]; then
                COMPREPLY=($(compgen -W "\(names)" -- "$cur"))
                return
              fi
              case "$command $prev" in
            \(valueCases.joined(separator: "\n"))
              esac
              if [[ "$cur" == -* ]]; then
                case "$command" in
            \(optionLists.joined(separator: "\n"))
                esac
                COMPREPLY=($(compgen -W "$words" -- "$cur"))
                return
              fi
              # How many arguments come before the cursor, options and their values left out.
              for ((i = 2; i < COMP_CWORD; i++)); do
                word="${COMP_WORDS[i]}"
                case "$word" in
                  --file=*) named=1;;
                  -f|--file) named=1; \(skipValue);;
                  \(valueOptions)) \(skipValue);;
                  -*) ;;
                  *) ((count++));;
                esac
              done
              if [ "$count" -eq 0 ]; then
                case "$command" in
            \(firstWordCases.joined(separator: "\n"))
                esac
                if [ -n "$words" ]; then
                  COMPREPLY=($(compgen -W "$words" -- "$cur"))
                  return
                fi
              fi
              case "$command" in
                run)
                  # A workflow file first, then step ids; or the default file's step ids.
                  [ "$count" -eq 0 ] && [ -z "$named" ] && COMPREPLY=($(compgen -f -X '!*.json*' -- "$cur") $(compgen -d -- "$cur"))
                  COMPREPLY+=($(compgen -W "$(_procflow_ids)" -- "$cur"));;
                serve) ;;
                *) [ "$count" -le 1 ] && { compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")); };;
              esac
            }
            complete -F _procflow procflow

            """
    }

    // MARK: - zsh

    /// zsh runs the bash script through its bash completion layer.
    static var zsh: String {
        """
        # procflow completion for zsh. Load it with: source <(procflow completion zsh)
        autoload -U +X compinit && compinit
        autoload -U +X bashcompinit && bashcompinit

        """ + bash
    }

    // MARK: - fish

    static var fish: String {
        var lines = [
            "# procflow completion for fish. Save it as ~/.config/fish/completions/procflow.fish",
            "function __procflow_ids",
            "    # The workflow at hand: -f's value, else the first argument when it names a .json",
            "    # file, else the one procflow finds from here up.",
            "    set -l words (commandline -opc)",
            "    set -l file",
            "    set -l first 1",
            "    set -l i 3",
            "    while test $i -le (count $words)",
            "        set -l word $words[$i]",
            "        switch $word",
            "            case -f --file",
            "                set file $words[(math $i + 1)]",
            "                break",
            "            case '--file=*'",
            "                set file (string replace -- --file= '' $word)",
            "                break",
            "            case \(optionsTakingValues.joined(separator: " "))",
            "                set i (math $i + 1)",
            "            case '-*'",
            "            case '*'",
            "                if test $first = 1",
            "                    set first 0",
            "                    string match -qr -- '\\.jsonc?$' $word; and set file $word",
            "                end",
            "        end",
            "        set i (math $i + 1)",
            "    end",
            "    if test -n \"$file\"",
            "        procflow list --ids -f $file 2>/dev/null",
            "    else",
            "        procflow list --ids 2>/dev/null",
            "    end",
            "end",
            "complete -c procflow -f",
        ]
        for (name, description) in commands {
            lines.append(
                "complete -c procflow -n __fish_use_subcommand -a \(name) -d \(quoted(description.abstract))"
            )
            let when = "-n '__fish_seen_subcommand_from \(name)'"
            for option in description.options {
                var line = "complete -c procflow \(when) -l \(option.name)"
                if let short = option.short { line += " -s \(short)" }
                if option.valueName != nil {
                    switch valueKind(option) {
                    case .choices(let choices):
                        line += " -x -a \(quoted(choices.joined(separator: " ")))"
                    case .files: line += " -r -F"
                    case .ids: line += " -x -a '(__procflow_ids)'"
                    case .nothing: line += " -x"
                    }
                }
                lines.append(line + " -d \(quoted(option.help))")
            }
            if let words = firstWords(of: name) {
                lines.append(
                    "complete -c procflow \(when) -a \(quoted(words.joined(separator: " ")))")
            } else if name == "run" {
                lines.append("complete -c procflow \(when) -F -a '(__procflow_ids)'")
            } else if name != "serve" {
                lines.append("complete -c procflow \(when) -F")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` in single quotes for fish, its quotes and backslashes escaped.
    private static func quoted(_ text: String) -> String {
        "'"
            + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "'", with: "\\'")
            + "'"
    }
}
