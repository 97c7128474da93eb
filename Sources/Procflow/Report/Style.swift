import Foundation

/// ANSI styling, or none.
struct Style: Sendable {
    let enabled: Bool

    static let stepColors = ["36", "35", "34", "33", "32", "96", "95", "94"]

    func colored(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func bold(_ text: String) -> String { colored(text, "1") }
    func dim(_ text: String) -> String { colored(text, "2") }
    func red(_ text: String) -> String { colored(text, "31") }
    func green(_ text: String) -> String { colored(text, "32") }
    func yellow(_ text: String) -> String { colored(text, "33") }
}
