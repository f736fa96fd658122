/* Many Server-Sent-Events clients in one epoll loop, for `make bench` scenarios 5 and 7.
 * Each client reads the stream (HTTP/1.1 chunked), and for every event records its `id:`
 * (seq), the event's `t` (ms) and `type`, and the time the bytes arrived.
 *
 *   sse_clients PORT PATH N OUTFILE TIMEOUT_S
 *     PATH may hold one %d, replaced by the client's index (0..N-1).
 *   Prints "READY" once every client has its stream open, then reads commands on stdin:
 *     "UNTIL S"  finish once every open client has seen seq >= S (or TIMEOUT_S passed)
 *     "STOP"     finish now
 *   On finishing it writes "client seq t_ms arrival_us type" lines to OUTFILE and prints
 *   "DONE open=N closed=M".
 * Build: gcc -O2 -o sse_clients sse_clients.c
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct { int client; long long seq, t, arrival_us; char type[24]; } record;
typedef struct {
    int fd, index, header_done, ready, closed;
    char *hdr; size_t hdr_len;
    int chunk_state; /* 0 size line, 1 data, 2 trailing CRLF */
    char size_line[32]; size_t size_len; size_t remaining, crlf_left;
    char *ev; size_t ev_len, ev_cap;
    long long max_seq;
} conn;

static record *recs; static size_t nrecs, caprecs;
static long long now_us(void) {
    struct timespec ts; clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}
static double mono(void) {
    struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void event_done(conn *c, char *e, size_t n, long long arrival) {
    e[n] = '\0';
    if (strstr(e, ": connected") == e || strstr(e, "\n: connected")) c->ready = 1;
    char *id = strstr(e, "id: ");
    char *data = strstr(e, "data: ");
    if (!id || !data) return;
    record r; memset(&r, 0, sizeof r);
    r.client = c->index; r.seq = atoll(id + 4); r.arrival_us = arrival;
    char *t = strstr(data, "\"t\":"); r.t = t ? atoll(t + 4) : -1;
    char *ty = strstr(data, "\"type\":\"");
    if (ty) { ty += 8; size_t k = 0; while (ty[k] && ty[k] != '"' && k < sizeof r.type - 1) { r.type[k] = ty[k]; k++; } }
    if (r.seq > c->max_seq) c->max_seq = r.seq;
    if (nrecs == caprecs) { caprecs = caprecs ? caprecs * 2 : 1 << 16; recs = realloc(recs, caprecs * sizeof *recs); }
    recs[nrecs++] = r;
}

static void payload(conn *c, const char *p, size_t n, long long arrival) {
    if (c->ev_len + n + 1 > c->ev_cap) { c->ev_cap = (c->ev_len + n + 1) * 2; c->ev = realloc(c->ev, c->ev_cap); }
    memcpy(c->ev + c->ev_len, p, n); c->ev_len += n;
    size_t start = 0;
    for (size_t i = 0; i + 1 < c->ev_len; i++) {
        if (c->ev[i] == '\n' && c->ev[i + 1] == '\n') {
            event_done(c, c->ev + start, i - start, arrival); /* writes '\0' over ev[i] */
            start = i + 2; i++;
        }
    }
    if (start) { memmove(c->ev, c->ev + start, c->ev_len - start); c->ev_len -= start; }
}

static void feed(conn *c, const char *p, size_t n, long long arrival) {
    size_t i = 0;
    if (!c->header_done) {
        c->hdr = realloc(c->hdr, c->hdr_len + n + 1);
        memcpy(c->hdr + c->hdr_len, p, n); c->hdr_len += n; c->hdr[c->hdr_len] = '\0';
        char *end = strstr(c->hdr, "\r\n\r\n");
        if (!end) return;
        if (strncmp(c->hdr, "HTTP/1.1 200", 12) != 0) { fprintf(stderr, "client %d: %.40s\n", c->index, c->hdr); c->closed = 1; return; }
        c->header_done = 1;
        size_t used = (size_t)(end + 4 - c->hdr);
        size_t rest = c->hdr_len - used;
        char *tmp = malloc(rest + 1); memcpy(tmp, c->hdr + used, rest);
        free(c->hdr); c->hdr = NULL;
        feed(c, tmp, rest, arrival); free(tmp);
        return;
    }
    while (i < n) {
        if (c->chunk_state == 0) {
            char ch = p[i++];
            if (ch == '\n') {
                c->size_line[c->size_len] = '\0';
                c->remaining = strtoul(c->size_line, NULL, 16); c->size_len = 0;
                c->chunk_state = c->remaining ? 1 : 2; c->crlf_left = 2;
            } else if (c->size_len < sizeof c->size_line - 1 && ch != '\r') c->size_line[c->size_len++] = ch;
        } else if (c->chunk_state == 1) {
            size_t k = n - i < c->remaining ? n - i : c->remaining;
            payload(c, p + i, k, arrival); i += k; c->remaining -= k;
            if (c->remaining == 0) { c->chunk_state = 2; c->crlf_left = 2; }
        } else {
            i++; if (--c->crlf_left == 0) c->chunk_state = 0;
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 6) { fprintf(stderr, "usage: sse_clients PORT PATH N OUTFILE TIMEOUT_S\n"); return 2; }
    int port = atoi(argv[1]); const char *path = argv[2]; int n = atoi(argv[3]);
    const char *outfile = argv[4]; double timeout = atof(argv[5]);
    conn *cs = calloc((size_t)n, sizeof *cs);
    int ep = epoll_create1(0);
    struct sockaddr_in a; memset(&a, 0, sizeof a);
    a.sin_family = AF_INET; a.sin_port = htons((uint16_t)port); a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < n; i++) {
        conn *c = &cs[i]; c->index = i; c->max_seq = -1;
        c->fd = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0) { perror("connect"); return 1; }
        int one = 1; setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        char p[512], req[1024]; snprintf(p, sizeof p, path, i);
        int len = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n", p);
        if (write(c->fd, req, (size_t)len) != len) { perror("write"); return 1; }
        fcntl(c->fd, F_SETFL, O_NONBLOCK);
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
    }
    struct epoll_event sev = {.events = EPOLLIN, .data.u32 = 0xffffffffu};
    epoll_ctl(ep, EPOLL_CTL_ADD, 0, &sev);
    int announced = 0; long long until = -1; int stop = 0;
    double deadline = mono() + timeout + 60; /* before any command: generous */
    static char buf[1 << 16];
    char cmd[256]; size_t cmd_len = 0;
    struct epoll_event evs[256];
    while (!stop) {
        double left = deadline - mono();
        if (left <= 0) break;
        int k = epoll_wait(ep, evs, 256, (int)(left * 1000) + 1);
        long long arrival = now_us();
        for (int j = 0; j < k; j++) {
            if (evs[j].data.u32 == 0xffffffffu) {
                ssize_t r = read(0, cmd + cmd_len, sizeof cmd - 1 - cmd_len);
                if (r <= 0) { stop = 1; break; }
                cmd_len += (size_t)r; cmd[cmd_len] = '\0';
                char *nl;
                while ((nl = strchr(cmd, '\n'))) {
                    *nl = '\0';
                    if (strncmp(cmd, "UNTIL ", 6) == 0) { until = atoll(cmd + 6); deadline = mono() + timeout; }
                    else if (strncmp(cmd, "STOP", 4) == 0) stop = 1;
                    size_t used = (size_t)(nl + 1 - cmd); memmove(cmd, nl + 1, cmd_len - used); cmd_len -= used; cmd[cmd_len] = '\0';
                }
                continue;
            }
            conn *c = &cs[evs[j].data.u32];
            for (;;) {
                ssize_t r = read(c->fd, buf, sizeof buf);
                if (r > 0) { feed(c, buf, (size_t)r, arrival); continue; }
                if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) { c->closed = 1; epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL); }
                break;
            }
        }
        if (!announced) {
            int all = 1; for (int i = 0; i < n; i++) if (!cs[i].ready && !cs[i].closed) all = 0;
            if (all) { printf("READY\n"); fflush(stdout); announced = 1; }
        }
        if (until >= 0) {
            int all = 1; for (int i = 0; i < n; i++) if (!cs[i].closed && cs[i].max_seq < until) all = 0;
            if (all) stop = 1;
        }
    }
    FILE *f = fopen(outfile, "w");
    for (size_t i = 0; i < nrecs; i++)
        fprintf(f, "%d %lld %lld %lld %s\n", recs[i].client, recs[i].seq, recs[i].t, recs[i].arrival_us, recs[i].type[0] ? recs[i].type : "-");
    fclose(f);
    int open_ = 0, closed = 0; for (int i = 0; i < n; i++) { if (cs[i].closed) closed++; else open_++; }
    printf("DONE open=%d closed=%d\n", open_, closed); fflush(stdout);
    return 0;
}
