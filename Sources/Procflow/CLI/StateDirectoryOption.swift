/// The `--state-dir` option, the same for `run` and `cache`.
enum StateDirectoryOption {
    static let spec = OptionSpec.value(
        "state-dir", "directory",
        help:
            "Where to keep what is remembered between runs; .procflow beside the workflow by default."
    )
}
