#ifndef PROCESS_SHIMS_H
#define PROCESS_SHIMS_H
#include <spawn.h>

/// pipe2(O_CLOEXEC) and posix_spawn_file_actions_addchdir_np need _GNU_SOURCE, which Swift's
/// Glibc module does not define.
int bd_pipe_cloexec(int fds[2]);
int bd_spawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path);

/// Sets the calling thread's nice value (setpriority on its thread id, which Swift cannot get:
/// gettid needs _GNU_SOURCE). Returns 0, or -1 when not permitted.
int bd_set_thread_nice(int nice);

/// Names the calling thread (at most 15 bytes) for top -H, perf and gdb.
int bd_set_thread_name(const char *name);
#endif
