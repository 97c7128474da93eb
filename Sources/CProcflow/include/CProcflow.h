#ifndef CPROCFLOW_H
#define CPROCFLOW_H

#include <spawn.h>
#include <sys/types.h>

#include "CurlTransfer.h"
#include "SHA256Blocks.h"

/// Opens a file descriptor that becomes readable when process `pid` exits (Linux 5.3+);
/// -1 with errno set on failure.
int procflow_pidfd_open(pid_t pid);

/// posix_spawn_file_actions_addchdir_np, which Swift's Glibc module does not expose.
int procflow_spawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path);

/// pipe2(fds, O_CLOEXEC), which Swift's Glibc module does not expose.
int procflow_pipe_cloexec(int fds[2]);

/// prctl(PR_SET_CHILD_SUBREAPER, 1): orphaned descendants are reparented to this process
/// instead of init, so that it can find them; 0 on success, -1 with errno set.
int procflow_set_child_subreaper(void);

/// Locks `length` bytes at `offset` of the open file `fd` with an open-file-description lock
/// (F_OFD_SETLK: held by this descriptor, not by the process, so threads of one process lock
/// apart and closing another descriptor of the file keeps it): shared, exclusive, or released
/// (`kind` 0, 1, 2). With `wait`, waits for a conflicting lock to go. 0 on success, -1 with
/// errno set (EAGAIN when another holds it and `wait` is 0).
int procflow_lock_range(int fd, long long offset, long long length, int kind, int wait);

/// How many bytes wait to be read in the pipe or FIFO `fd` (ioctl FIONREAD, which Swift's
/// Glibc module does not expose, being variadic); -1 with errno set on failure.
int procflow_bytes_pending(int fd);

/// How many CPUs this process's affinity mask allows (sched_getaffinity, which Swift's Glibc
/// module does not expose); -1 with errno set on failure.
int procflow_affinity_cpu_count(void);

/// Keeps glibc's malloc to at most `arenas` arenas from now on (mallopt M_ARENA_MAX, which
/// Swift's Glibc module does not expose); 1 on success, 0 where it cannot (another C library).
int procflow_limit_malloc_arenas(int arenas);

/// Gives the calling thread the lowest priority, nice 19, as Linux's setpriority(PRIO_PROCESS,
/// 0, …) does for the calling thread only (POSIX would have the whole process); 0 on success,
/// -1 with errno set on failure.
int procflow_thread_lowest_priority(void);

/// A new file in `directory` with no name, open for reading and writing, closed on exec, of
/// permissions `mode` (open with O_TMPFILE, which Swift's Glibc module does not expose); -1
/// with errno set where it cannot be made (a file system without it, among others).
int procflow_open_unnamed(const char *directory, mode_t mode);

#endif
