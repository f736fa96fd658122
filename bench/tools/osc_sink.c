/* OSC-over-UDP sink for `make bench` scenario 14: records, for every datagram, its arrival time
 * and the two int64 (`h`) arguments OSC handlers send it (the event's `t` and `seq`), decoded by
 * hand (OSC 1.0: NUL-padded address and type tags, big-endian arguments).
 *
 *   osc_sink OUTFILE   binds 127.0.0.1 on a free UDP port, prints "port=N", records until
 *                      SIGTERM/SIGINT, then writes "seq t_ms arrival_us address" lines to OUTFILE.
 *   A datagram that is not ",hh" is written with seq -1 and t -1.
 * Build: gcc -O2 -o osc_sink osc_sink.c
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct { long long seq, t, arrival_us; char address[48]; } record;
static volatile sig_atomic_t stopping;
static void on_stop(int sig) { (void)sig; stopping = 1; }

static size_t padded(const unsigned char *p, size_t n, size_t at) {
    while (at < n && p[at]) at++;
    return (at + 4) & ~(size_t)3;
}
static long long be64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return (long long)v;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: osc_sink OUTFILE\n"); return 2; }
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    int big = 8 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    struct sockaddr_in a; memset(&a, 0, sizeof a);
    a.sin_family = AF_INET; a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        perror("bind");
        return 1;
    }
    struct sigaction sa; memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop; /* no SA_RESTART: recv returns EINTR */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    printf("port=%u\n", (unsigned)ntohs(a.sin_port));
    fflush(stdout);

    size_t count = 0, capacity = 1 << 16;
    record *recs = malloc(capacity * sizeof *recs);
    unsigned char buf[2048];
    while (!stopping) {
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n < 0) continue;
        struct timespec ts; clock_gettime(CLOCK_REALTIME, &ts);
        record r; memset(&r, 0, sizeof r);
        r.arrival_us = (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
        r.seq = r.t = -1;
        size_t tags = padded(buf, (size_t)n, 0);
        size_t k = strnlen((const char *)buf, (size_t)n);
        memcpy(r.address, buf, k < sizeof r.address - 1 ? k : sizeof r.address - 1);
        if (tags + 4 <= (size_t)n && memcmp(buf + tags, ",hh", 4) == 0) {
            size_t args = padded(buf, (size_t)n, tags);
            if (args + 16 <= (size_t)n) { r.t = be64(buf + args); r.seq = be64(buf + args + 8); }
        }
        if (count == capacity) { capacity *= 2; recs = realloc(recs, capacity * sizeof *recs); }
        recs[count++] = r;
    }
    FILE *f = fopen(argv[1], "w");
    if (!f) { perror(argv[1]); return 1; }
    for (size_t i = 0; i < count; i++)
        fprintf(f, "%lld %lld %lld %s\n", recs[i].seq, recs[i].t, recs[i].arrival_us, recs[i].address[0] ? recs[i].address : "-");
    fclose(f);
    return 0;
}
