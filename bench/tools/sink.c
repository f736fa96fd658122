/* Webhook sink for `make bench` scenario 2: records, for every POST it receives, the
 * event's `seq` and `t` (ms) from the JSON body and its own arrival time, so the harness can
 * compute event -> delivery lag. Answers 204 at once.
 *
 *   sink            -> binds 127.0.0.1 on a free port, prints "port=N", runs until SIGTERM.
 *   GET /count      -> number of deliveries recorded
 *   GET /dump       -> one line per delivery: "seq t_ms arrival_us"
 *   GET /reset      -> forgets everything recorded
 * Build: gcc -O2 -pthread -o sink sink.c $(pkg-config --cflags --libs libmicrohttpd)
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct { long long seq, t, arrival_us; } record;
static record *records;
static size_t count, capacity;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct MHD_Response *empty;

typedef struct { char buf[8192]; size_t len; } body;

static long long field(const char *s, const char *name) {
    const char *p = strstr(s, name);
    return p ? atoll(p + strlen(name)) : -1;
}

static enum MHD_Result text(struct MHD_Connection *c, char *s, size_t n) {
    struct MHD_Response *r = MHD_create_response_from_buffer(n, s, MHD_RESPMEM_MUST_FREE);
    enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *data,
                              size_t *size, void **req_cls) {
    (void)cls; (void)version;
    if (strcmp(method, "POST") != 0) {
        if (*req_cls == NULL) { *req_cls = (void *)1; return MHD_YES; }
        pthread_mutex_lock(&lock);
        char *out;
        size_t n = 0;
        if (strcmp(url, "/count") == 0) {
            out = malloc(32);
            n = (size_t)snprintf(out, 32, "%zu\n", count);
        } else if (strcmp(url, "/dump") == 0) {
            out = malloc(count * 64 + 1);
            for (size_t i = 0; i < count; i++)
                n += (size_t)sprintf(out + n, "%lld %lld %lld\n", records[i].seq, records[i].t,
                                     records[i].arrival_us);
        } else {
            count = 0;
            out = malloc(4);
            n = (size_t)snprintf(out, 4, "ok\n");
        }
        pthread_mutex_unlock(&lock);
        return text(c, out, n);
    }
    body *b = *req_cls;
    if (b == NULL) {
        b = calloc(1, sizeof *b);
        *req_cls = b;
        return MHD_YES;
    }
    if (*size != 0) {
        size_t room = sizeof b->buf - 1 - b->len;
        size_t n = *size < room ? *size : room;
        memcpy(b->buf + b->len, data, n);
        b->len += n;
        *size = 0;
        return MHD_YES;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    b->buf[b->len] = '\0';
    record r = {field(b->buf, "\"seq\":"), field(b->buf, "\"t\":"),
                (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000};
    pthread_mutex_lock(&lock);
    if (count == capacity) {
        capacity = capacity ? capacity * 2 : 65536;
        records = realloc(records, capacity * sizeof *records);
    }
    records[count++] = r;
    pthread_mutex_unlock(&lock);
    return MHD_queue_response(c, MHD_HTTP_NO_CONTENT, empty);
}

static void completed(void *cls, struct MHD_Connection *c, void **req_cls,
                      enum MHD_RequestTerminationCode code) {
    (void)cls; (void)c; (void)code;
    if (*req_cls != NULL && *req_cls != (void *)1) free(*req_cls);
    *req_cls = NULL;
}

int main(void) {
    empty = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    /* Block SIGTERM/SIGINT in every thread (MHD's inherit the mask); main takes them with sigwait. */
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD, 0, NULL, NULL, handle, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)2,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned int)2000,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)60,
        MHD_OPTION_END);
    if (d == NULL) { fprintf(stderr, "MHD_start_daemon failed\n"); return 1; }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    printf("port=%u\n", info ? (unsigned)info->port : 0u);
    fflush(stdout);
    int sig;
    sigwait(&stop_signals, &sig);
    MHD_stop_daemon(d);
    return 0;
}
