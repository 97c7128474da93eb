import Foundation

/// A duration as people read it: "340 ms", "2.5 s", "1 min 05 s".
func formatDuration(_ seconds: TimeInterval) -> String {
    if seconds < 1 { return "\(Int((seconds * 1000).rounded())) ms" }
    if seconds < 60 {
        let tenths = (seconds * 10).rounded() / 10
        return tenths == tenths.rounded() ? "\(Int(tenths)) s" : String(format: "%.1f s", tenths)
    }
    let whole = Int(seconds.rounded())
    return String(format: "%d min %02d s", whole / 60, whole % 60)
}

/// "1 procedure", "2 procedures".
func plural(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}

/// "16 MiB", "512 KiB", "100 bytes".
func formatBytes(_ count: Int) -> String {
    if count >= 1 << 20, count % (1 << 20) == 0 { return "\(count >> 20) MiB" }
    if count >= 1 << 10, count % (1 << 10) == 0 { return "\(count >> 10) KiB" }
    return "\(count) bytes"
}
