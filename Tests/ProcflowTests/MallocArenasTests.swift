import CProcflow
import Testing

@testable import Procflow

@Suite("malloc's arenas")
struct MallocArenasTests {
    @Test func aRunKeepsToOneArenaACoreUnlessTheUserChose() {
        #expect(MallocArenas.limit(environment: [:], cores: 1) == 2)
        #expect(MallocArenas.limit(environment: [:], cores: 2) == 2)
        #expect(MallocArenas.limit(environment: ["PATH": "/bin"], cores: 12) == 12)
        #expect(MallocArenas.limit(environment: ["MALLOC_ARENA_MAX": "8"], cores: 2) == nil)
        #expect(
            MallocArenas.limit(
                environment: ["GLIBC_TUNABLES": "glibc.malloc.arena_max=4"], cores: 2) == nil)
        #expect(
            MallocArenas.limit(
                environment: ["GLIBC_TUNABLES": "glibc.malloc.trim_threshold=1"], cores: 2) == 2)
    }

    @Test func glibcTakesTheLimit() {
        // This package builds against glibc on Linux: the call must take.
        #expect(procflow_limit_malloc_arenas(Int32(max(2, CoreCount.available) * 8)) == 1)
    }
}
