@main
struct Benchmark {
    static func main() {}
}
