/* OSC-over-UDP sender for `make bench` scenario 13: `/buttond/button/<prefix>N/press` (no
 * arguments), hand-encoded (OSC 1.0: the address and the type tag string ",", each NUL-padded to
 * a multiple of 4 bytes), round-robin over N buttons and a few connected UDP sockets, paced on an
 * absolute schedule.
 *
 *   osc_send PORT RATE DURATION_S SOCKETS BUTTONS PREFIX [SENDLOG]
 *     RATE 0 sends as fast as the sockets take them (no pacing).
 *     SENDLOG: one line per message, "index arrival_us" of the moment it was handed to the
 *     kernel (CLOCK_REALTIME, µs), for the lag phase; messages are then sent one at a time at
 *     their due time (clock_nanosleep, 1 µs timer slack) instead of in batches.
 *   Prints "sent=N errors=E elapsed_s=S late=L" when done (late: messages sent > 1 ms after
 *   their due time).
 * Build: gcc -O2 -o osc_send osc_send.c
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct { unsigned char bytes[128]; size_t len; } packet;

static size_t pad4(size_t n) { return (n + 4) & ~(size_t)3; } /* a string and at least one NUL */

static void encode(packet *p, const char *address) {
    memset(p->bytes, 0, sizeof p->bytes);
    size_t n = strlen(address);
    memcpy(p->bytes, address, n);
    size_t at = pad4(n);
    p->bytes[at] = ',';
    p->len = at + 4;
}

static double mono(void) {
    struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}
static long long real_us(void) {
    struct timespec ts; clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}
static void sleep_until(double t) {
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
}

int main(int argc, char **argv) {
    if (argc < 7) {
        fprintf(stderr, "usage: osc_send PORT RATE DURATION_S SOCKETS BUTTONS PREFIX [SENDLOG]\n");
        return 2;
    }
    int port = atoi(argv[1]);
    double rate = atof(argv[2]), duration = atof(argv[3]);
    int nsock = atoi(argv[4]), nbuttons = atoi(argv[5]);
    const char *prefix = argv[6];
    FILE *sendlog = argc > 7 ? fopen(argv[7], "w") : NULL;
    if (nsock < 1 || nbuttons < 1) return 2;
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

    packet *packets = calloc((size_t)nbuttons, sizeof *packets);
    for (int b = 0; b < nbuttons; b++) {
        char address[96];
        snprintf(address, sizeof address, "/buttond/button/%s%d/press", prefix, b);
        encode(&packets[b], address);
    }
    int *fds = calloc((size_t)nsock, sizeof *fds);
    struct sockaddr_in a; memset(&a, 0, sizeof a);
    a.sin_family = AF_INET; a.sin_port = htons((uint16_t)port); a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int s = 0; s < nsock; s++) {
        fds[s] = socket(AF_INET, SOCK_DGRAM, 0);
        int big = 1 << 20;
        setsockopt(fds[s], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
        if (fds[s] < 0 || connect(fds[s], (struct sockaddr *)&a, sizeof a) != 0) { perror("socket"); return 1; }
    }

    long long total = rate > 0 ? (long long)(rate * duration) : -1;
    long long sent = 0, errors = 0, late = 0;
    long long *stamps = sendlog && total > 0 ? calloc((size_t)total, sizeof *stamps) : NULL;
    double t0 = mono() + 0.01, end = t0 + duration;
    sleep_until(t0);
    for (;;) {
        double now = mono();
        if (now >= end || (total >= 0 && sent >= total)) break;
        long long due;
        if (rate <= 0) due = sent + 64;
        else if (stamps) due = sent + 1;
        else due = (long long)((now - t0) * rate) + 1;
        if (total >= 0 && due > total) due = total;
        if (due <= sent) { /* ahead of schedule: wait for the next message's time */
            sleep_until(t0 + (double)sent / rate);
            continue;
        }
        if (stamps) {
            double at = t0 + (double)sent / rate;
            if (now < at) { sleep_until(at); now = mono(); }
            if (now - at > 0.001) late++;
        }
        for (; sent < due; sent++) {
            const packet *p = &packets[sent % nbuttons];
            if (stamps) stamps[sent] = real_us();
            if (send(fds[sent % nsock], p->bytes, p->len, 0) != (ssize_t)p->len) errors++;
        }
    }
    double elapsed = mono() - t0;
    if (sendlog) {
        for (long long i = 0; stamps && i < sent; i++) fprintf(sendlog, "%lld %lld\n", i, stamps[i]);
        fclose(sendlog);
    }
    printf("sent=%lld errors=%lld elapsed_s=%.3f late=%lld\n", sent, errors, elapsed, late);
    return 0;
}
