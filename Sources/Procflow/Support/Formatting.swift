import Foundation

/// A duration as people read it: "340 ms", "2.5 s", "1 min 05 s".
func formatDuration(_ seconds: TimeInterval) -> String {
    if seconds < 1 { return "\(Int((seconds * 1000).rounded())) ms" }
    // Without `String(format:)`: its first use in a process costs a quarter of a millisecond,
    // and nearly every run reports a step of a second or more.
    if seconds < 60 {
        let tenths = Int((seconds * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
    }
    let whole = Int(seconds.rounded())
    let (minutes, rest) = (whole / 60, whole % 60)
    return "\(minutes) min \(rest < 10 ? "0" : "")\(rest) s"
}

/// "1 procedure", "2 procedures".
func plural(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}

/// A count with its thousands grouped: "1,000,000".
func formatCount(_ count: Int) -> String {
    var digits = String(count.magnitude)
    var index = digits.endIndex
    while digits.distance(from: digits.startIndex, to: index) > 3 {
        index = digits.index(index, offsetBy: -3)
        digits.insert(",", at: index)
    }
    return count < 0 ? "-" + digits : digits
}

/// "16 MiB", "512 KiB", "100 bytes".
func formatBytes(_ count: Int) -> String {
    if count >= 1 << 20, count % (1 << 20) == 0 { return "\(count >> 20) MiB" }
    if count >= 1 << 10, count % (1 << 10) == 0 { return "\(count >> 10) KiB" }
    return "\(count) bytes"
}

/// A size past a limit, in MiB rounded up so that it never reads as the limit: "20 MiB",
/// "16.1 MiB"; below 1 MiB, as ``formatSize(_:)`` says it.
func formatSizeRoundedUp(_ count: Int) -> String {
    guard count >= 1 << 20 else { return formatSize(count) }
    let tenths = Int((Double(count) * 10 / Double(1 << 20)).rounded(.up))
    return tenths % 10 == 0 ? "\(tenths / 10) MiB" : "\(tenths / 10).\(tenths % 10) MiB"
}

/// A size as people read it, rounded: "1.5 MiB", "130 KiB", "900 bytes".
func formatSize(_ count: Int) -> String {
    if count >= 1 << 20 { return String(format: "%.1f MiB", Double(count) / Double(1 << 20)) }
    if count >= 1 << 10 { return "\(Int((Double(count) / 1024).rounded())) KiB" }
    return "\(count) bytes"
}
