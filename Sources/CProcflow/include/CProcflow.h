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

#endif
