import Foundation
import Testing

@testable import Procflow

@Suite("Argo export: names")
struct ArgoNamesTests {
    @Test(arguments: ["build", "build-linux", "a1", "x-2-y"])
    func anArgoNameIsKept(id: String) {
        #expect(ArgoNames.name(for: id) == id)
    }

    @Test(arguments: [
        ("Build", "build-"), ("a.b", "a-b-"), ("a_b", "a-b-"), ("_setup", "setup-"), ("_1", "s-1-"),
        ("a--b", "a-b-"), ("a-", "a-"), ("not", "not-"), ("count", "count-"),
    ])
    func otherIdsGetAHash(id: String, prefix: String) {
        let name = ArgoNames.name(for: id)
        #expect(name.hasPrefix(prefix))
        #expect(name == prefix + ArgoNames.hash(id))
    }

    @Test func longIdsAreCut() {
        let id = String(repeating: "a", count: 100)
        let name = ArgoNames.name(for: id)
        #expect(name.count <= ArgoNames.longestKept)
        #expect(name.hasSuffix("-" + ArgoNames.hash(id)))
    }

    @Test func namesAreValidDistinctAndStable() throws {
        var generator = SystemRandomNumberGenerator()
        let letters = Array("aAbB_.-09")
        var ids: Set<String> = []
        while ids.count < 5_000 {
            let length = Int.random(in: 1...12, using: &generator)
            var id = String("aB_".randomElement(using: &generator)!)
            for _ in 1..<length { id.append(letters.randomElement(using: &generator)!) }
            ids.insert(id)
        }
        let names = try ArgoNames(ids: Array(ids))
        var seen: Set<String> = []
        for id in ids {
            let name = names[id]
            #expect(name.wholeMatch(of: /[a-z][-a-z0-9]*/) != nil, "\(id) -> \(name)")
            #expect(!name.contains("--"))
            #expect(!name.hasSuffix("-"))
            #expect(seen.insert(name).inserted, "\(name) given twice")
            #expect(ArgoNames.name(for: id) == name)
        }
    }

    @Test(arguments: [
        ("showcase", "showcase-"), ("Every_Kind", "every-kind-"), ("42", "procflow-42-"),
        ("", "procflow-"),
        (String(repeating: "x", count: 80), String(repeating: "x", count: 56) + "-"),
    ])
    func theWorkflowsNameIsAKubernetesPrefix(name: String, expected: String) {
        #expect(ArgoNames.generateName(for: name) == expected)
    }
}

@Suite("Argo export: manifests as text")
struct ManifestTextTests {
    static let sample: Manifest = [
        "name": "a", "count": 2, "ratio": .number(0.5), "on": true, "none": .null,
        "list": ["x", ["k": "v", "l": []], ["nested"]], "empty": [:],
    ]

    @Test func jsonKeepsTheOrderGiven() {
        #expect(
            Self.sample.compactJSON
                == #"{"name":"a","count":2,"ratio":0.5,"on":true,"none":null,"list":["x",{"k":"v","l":[]},["nested"]],"empty":{}}"#
        )
    }

    @Test func yamlQuotesEveryString() {
        #expect(
            Self.sample.yaml == """
                "name": "a"
                "count": 2
                "ratio": 0.5
                "on": true
                "none": null
                "list":
                  - "x"
                  - "k": "v"
                    "l": []
                  -
                    - "nested"
                "empty": {}

                """)
    }

    @Test(arguments: [
        ("on", #""on""#), ("null", #""null""#), ("1e3", #""1e3""#), ("# c", ##""# c""##),
        ("a: b", #""a: b""#), ("\"\\", #""\"\\""#), ("line\nnext\t", #""line\nnext\t""#),
        ("\u{0}\u{7F}\u{85}", #""\x00\x7F\x85""#), ("\u{2028}\u{FEFF}é", #""\u2028\uFEFFé""#),
        ("\u{1F600}", "\"\u{1F600}\""), ("\u{FFFE}", #""\uFFFE""#),
    ])
    func yamlEscapesWhatYAMLWouldReadDifferently(text: String, expected: String) {
        #expect(Manifest.yamlQuoted(text) == expected)
    }
}
