// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "procflow",
    products: [
        .library(name: "ProcedureKit", targets: ["ProcedureKit"]),
        .executable(name: "procflow", targets: ["procflow"]),
    ],
    targets: [
        // Its guide, beside its code.
        .target(name: "ProcedureKit", exclude: ["README.md"]),
        // dlopen is in libdl before glibc 2.34 (an empty archive since).
        .target(name: "CProcflow", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "Procflow", dependencies: ["ProcedureKit", "CProcflow"]),
        .executableTarget(name: "procflow", dependencies: ["Procflow"]),
        .executableTarget(
            name: "ProcedureKitBenchmark",
            dependencies: ["ProcedureKit"],
            path: "Sources/ProcedureKitBenchmark"
        ),
        .testTarget(name: "ProcedureKitTests", dependencies: ["ProcedureKit"]),
        .testTarget(
            name: "ProcflowTests", dependencies: ["Procflow", "ProcedureKit", "procflow"],
            exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
