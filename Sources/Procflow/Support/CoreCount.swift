import CProcflow

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How many cores this process may run on: the CPUs its affinity allows, fewer when its
/// control group's CPU quota allows fewer (rounded up), as Foundation's
/// `ProcessInfo.activeProcessorCount` tells on Linux, at a third of its cost: it read the
/// control group's files through `URL` and `Data` (4.6 % of a run with one step to do); what
/// is left is mostly the kernel's, making `/proc/self/cgroup`.
public enum CoreCount {
    /// Read once, when first asked.
    public static let available: Int = {
        let cpus = affinityCount() ?? max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        return quotaCount().map { min(cpus, $0) } ?? cpus
    }()

    /// The CPUs the process's affinity mask holds.
    private static func affinityCount() -> Int? {
        let count = Int(procflow_affinity_cpu_count())
        return count > 0 ? count : nil
    }

    /// The CPU quota of the process's control group (version 2: `cpu.max` in its own
    /// group or an enclosing one, the smallest; version 1: `cpu.cfs_quota_us` over
    /// `cpu.cfs_period_us`), in whole cores rounded up; none when unlimited or unknown.
    static func quotaCount(
        cgroupRoot: String = "/sys/fs/cgroup", membership: String? = nil
    ) -> Int? {
        let groups = membership ?? smallFile("/proc/self/cgroup") ?? ""
        var smallest: Int?
        func consider(_ cores: Int?) {
            if let cores { smallest = min(smallest ?? cores, cores) }
        }
        for line in groups.parts(between: UInt8(ascii: "\n")) where line.hasPrefix("0::/") {
            // cgroup v2: the group and the groups that enclose it.
            var group = String(line.dropFirst(3))
            while true {
                let folder = group == "/" ? cgroupRoot : cgroupRoot + group
                consider(smallFile(folder + "/cpu.max").flatMap(cores(fromCPUMax:)))
                guard group != "/", let slash = group.lastIndex(of: "/") else { break }
                group = slash == group.startIndex ? "/" : String(group[..<slash])
            }
        }
        if smallest == nil,
            let quota = smallFile(cgroupRoot + "/cpu/cpu.cfs_quota_us").flatMap(number),
            let period = smallFile(cgroupRoot + "/cpu/cpu.cfs_period_us").flatMap(number)
        {
            consider(cores(quota: quota, period: period))
        }
        return smallest
    }

    /// `cpu.max`'s "QUOTA PERIOD" ("max PERIOD": no limit) as cores.
    static func cores(fromCPUMax text: String) -> Int? {
        let line = String(text.parts(between: UInt8(ascii: "\n")).first ?? "")
        let fields = line.parts(between: UInt8(ascii: " "))
        guard fields.count == 2, let quota = Int(fields[0]), let period = Int(fields[1]) else {
            return nil
        }
        return cores(quota: quota, period: period)
    }

    private static func cores(quota: Int, period: Int) -> Int? {
        guard quota > 0, period > 0 else { return nil }
        return max(1, (quota + period - 1) / period)
    }

    private static func number(_ text: String) -> Int? {
        Int(text.parts(between: UInt8(ascii: "\n")).first ?? "")
    }

    /// A file of the kernel's (its size unknown to `stat`), up to 4 KiB.
    private static func smallFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // Expected to fill the limit: read straight into the array, no chunk after it.
        let limit = 4096
        guard case .success(let bytes) = POSIXIO.read(descriptor, expected: limit, limit: limit)
        else { return nil }
        return String(decoding: bytes.prefix(limit), as: UTF8.self)
    }
}
