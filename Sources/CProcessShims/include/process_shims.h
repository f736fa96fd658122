#ifndef PROCESS_SHIMS_H
#define PROCESS_SHIMS_H
#include <spawn.h>

/// pipe2(O_CLOEXEC) and posix_spawn_file_actions_addchdir_np need _GNU_SOURCE, which Swift's
/// Glibc module does not define.
int bd_pipe_cloexec(int fds[2]);
int bd_spawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path);
#endif
