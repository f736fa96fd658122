/* The host's floor for scenario 7's long-press lag: the same path done in plain C, beside the
 * same load. PAIRS timer threads (nice -10, as buttond's sequencer) each sleep until a deadline
 * on the wall clock (every PERIOD_MS, spread over the period), then write it to a loopback TCP
 * connection; one epoll reader (nice 0, as scenario 7's SSE client) takes each write and keeps
 * arrival - deadline. What that shows is the machine's: a thread woken late by the scheduler
 * or by the hypervisor, a reader waiting for a core. buttond's lag has the same two wake-ups
 * plus its own work (firing the timer, the commit, the stream), so it cannot be below this.
 *
 *   timer_probe PAIRS PERIOD_MS SECONDS
 *   prints PROBEJSON {"samples":N,"p50_ms":..,"p99_ms":..,"max_ms":..}
 * Build: gcc -O2 -pthread -o timer_probe timer_probe.c
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int pairs, period_ms;
static int64_t end_us;

static int64_t now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

struct timer { int fd, index; };

static void *timer_thread(void *arg) {
    struct timer *t = arg;
    setpriority(PRIO_PROCESS, (id_t)gettid(), -10); /* as buttond's sequencer; ignored if not permitted */
    int64_t deadline = now_us() + 20000 + (int64_t)t->index * period_ms * 1000 / pairs;
    while (deadline < end_us) {
        struct timespec at = {.tv_sec = deadline / 1000000, .tv_nsec = (deadline % 1000000) * 1000};
        while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL) != 0) {}
        if (write(t->fd, &deadline, sizeof deadline) != sizeof deadline) break;
        deadline += (int64_t)period_ms * 1000;
    }
    return NULL;
}

static int cmp(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: timer_probe PAIRS PERIOD_MS SECONDS\n");
        return 2;
    }
    pairs = atoi(argv[1]);
    period_ms = atoi(argv[2]);
    end_us = now_us() + (int64_t)(atof(argv[3]) * 1e6);
    if (pairs < 1 || pairs > 64 || period_ms < 1) return 2;

    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof addr;
    if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(listener, 64) != 0 ||
        getsockname(listener, (struct sockaddr *)&addr, &len) != 0) {
        perror("listen");
        return 1;
    }
    int epoll = epoll_create1(0);
    struct timer *timers = calloc((size_t)pairs, sizeof *timers);
    pthread_t *threads = calloc((size_t)pairs, sizeof *threads);
    for (int i = 0; i < pairs; i++) {
        int out = socket(AF_INET, SOCK_STREAM, 0), one = 1;
        if (out < 0 || connect(out, (struct sockaddr *)&addr, sizeof addr) != 0) {
            perror("connect");
            return 1;
        }
        setsockopt(out, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        int in = accept(listener, NULL, NULL);
        struct epoll_event ev = {.events = EPOLLIN, .data.fd = in};
        epoll_ctl(epoll, EPOLL_CTL_ADD, in, &ev);
        timers[i] = (struct timer){.fd = out, .index = i};
    }
    for (int i = 0; i < pairs; i++) pthread_create(&threads[i], NULL, timer_thread, &timers[i]);

    size_t cap = 1 << 16, n = 0;
    int64_t *lags = malloc(cap * sizeof *lags);
    struct epoll_event events[64];
    while (now_us() < end_us + 200000) {
        int ready = epoll_wait(epoll, events, 64, 100);
        int64_t arrival = now_us();
        for (int e = 0; e < ready; e++) {
            int64_t deadlines[64];
            ssize_t got = read(events[e].data.fd, deadlines, sizeof deadlines);
            for (ssize_t k = 0; k + (ssize_t)sizeof(int64_t) <= got && n < cap; k += sizeof(int64_t))
                lags[n++] = arrival - deadlines[k / (ssize_t)sizeof(int64_t)];
        }
    }
    for (int i = 0; i < pairs; i++) pthread_join(threads[i], NULL);
    if (n == 0) {
        printf("PROBEJSON {\"samples\":0}\n");
        return 0;
    }
    qsort(lags, n, sizeof *lags, cmp);
    printf("PROBEJSON {\"samples\":%zu,\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f}\n", n, lags[n / 2] / 1000.0,
           lags[n * 99 / 100] / 1000.0, lags[n - 1] / 1000.0);
    return 0;
}
