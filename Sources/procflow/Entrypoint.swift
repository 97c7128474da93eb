import Procflow

@main
struct Entrypoint {
    static func main() {
        CommandLineTool.main(CommandLine.arguments)
    }
}
