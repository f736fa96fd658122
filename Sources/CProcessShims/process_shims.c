#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/resource.h>
#include "process_shims.h"

int bd_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int bd_spawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}

int bd_set_thread_nice(int nice) { return setpriority(PRIO_PROCESS, (id_t)gettid(), nice); }

int bd_set_thread_name(const char *name) { return pthread_setname_np(pthread_self(), name); }
