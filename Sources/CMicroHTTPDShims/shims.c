#define _GNU_SOURCE
#include "mhd_shims.h"
#include <poll.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <errno.h>
#include <stdio.h>

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Percent-decodes in place like libmicrohttpd's default, except that %00 stays as it is:
   a decoded NUL would cut the C string and let "/a%00b" act on "/a". */
static size_t bd_unescape(void *cls, struct MHD_Connection *connection, char *s) {
    (void)cls;
    (void)connection;
    char *out = s;
    for (char *in = s; *in != '\0'; in++) {
        if (in[0] == '%' && in[1] != '\0' && in[2] != '\0') {
            int hi = hex_value(in[1]), lo = hex_value(in[2]);
            if (hi >= 0 && lo >= 0 && (hi | lo) != 0) {
                *out++ = (char)(hi * 16 + lo);
                in += 2;
                continue;
            }
        }
        *out++ = *in;
    }
    *out = '\0';
    return (size_t)(out - s);
}

/* What the URI-log callback hands a request with too many query parameters, or too long a
   query, instead of a request context: the access handler answers it with an error. */
static char too_many_parameters;
static char query_too_long;
static char bad_target;

void *bd_too_many_parameters(void) { return &too_many_parameters; }
void *bd_query_too_long(void) { return &query_too_long; }
void *bd_bad_target(void) { return &bad_target; }

/* A space, a control byte in the target, or a raw NUL: libmicrohttpd ends the URI where the space
   before the version was, so a URI whose C string stops earlier ("/a\0/../x HTTP/1.1") is
   not followed by the version. */
static int has_control_byte(const char *uri) {
    const unsigned char *c = (const unsigned char *)uri;
    for (; *c != '\0'; c++) {
        if (*c <= 0x20 || *c == 0x7f) return 1;
    }
    return strncmp((const char *)c + 1, "HTTP/", 5) != 0;
}

/* Called with the request line's URI before libmicrohttpd parses the query into its
   connection pool (which a few hundred parameters, or a few dozen long ones, exhaust,
   leaving the connection with no answer at all). Too many or too long: the query is cut off
   where it starts, so nothing is parsed, and the request is marked for an error answer. */
static void request_begun(struct MHD_Connection *connection);

static void *bd_uri_check(void *cls, const char *uri, struct MHD_Connection *connection) {
    request_begun(connection);
    unsigned int limit = (unsigned int)(uintptr_t)cls;
    if (has_control_byte(uri)) return &bad_target;
    char *query = strchr(uri, '?');
    if (query == NULL) return NULL;
    unsigned int count = 1;
    const char *c = query + 1;
    for (; *c != '\0'; c++) {
        if (*c == '&' && ++count > limit) {
            query[1] = '\0';  /* the URI is in libmicrohttpd's own (writable) read buffer */
            return &too_many_parameters;
        }
    }
    if ((size_t)(c - query - 1) > BD_MAX_QUERY_BYTES) {
        query[1] = '\0';
        return &query_too_long;
    }
    return NULL;
}

/* A deadline for a whole request, head and body. libmicrohttpd's only timeout is the idle
   one, which every byte restarts, so a client that sends a byte every few seconds would hold
   its connection for ever. Each connection is watched from the moment it opens, and again
   from the moment its last request ended, until the request has been read whole; one that
   takes longer than the deadline is shut down (libmicrohttpd then closes it). When the server
   is three quarters full the deadline is short, so slow clients cannot keep new ones out. */
/* One daemon's connections: their deadline, how many are open, and the limits on them (all
   under watch_lock).

   The connection limits are kept here, not by libmicrohttpd: its MHD_OPTION_CONNECTION_LIMIT
   and MHD_OPTION_PER_IP_CONNECTION_LIMIT close a connection over them at once, with no answer,
   no log line and no count (SPEC §6: never dropped in silence). So libmicrohttpd is given room
   for twice the connection limit and no per-address limit; a connection over ours is accepted,
   marked `refused`, answered 503 by the access handler when its request comes, and given the
   short deadline if it sends none. A refused connection takes no place in the counts, so it
   never keeps an admitted one out. */
#define ADDRESS_BUCKETS 256

/* How many admitted connections one address has open. */
struct address_count {
    struct address_count *next;
    unsigned char address[16];
    unsigned int count;
};

struct bd_watch_group {
    unsigned int deadline_ms;  /* 0: no deadline for a whole request */
    unsigned int crowded_at;   /* from this many admitted connections the deadline is short */
    unsigned int count;        /* open, refused ones included */
    unsigned int admitted;     /* open and not refused */
    unsigned int connection_limit;
    unsigned int per_address_limit; /* 0: none */
    unsigned char *trusted;    /* trusted_count ranges of 17 bytes: an address (16), a prefix length */
    unsigned int trusted_count;
    struct address_count *addresses[ADDRESS_BUCKETS];
};

struct bd_watch {
    struct bd_watch *prev, *next;
    int fd;
    int64_t waiting_since_ms; /* 0: a request is being handled (or the connection is a stream) */
    int begun;                /* a request line has arrived since the last request ended */
    struct bd_watch_group *group;
    unsigned char address[16]; /* the peer, IPv4 as IPv4-mapped IPv6 */
    int known_address;
    int trusted;               /* the peer is a trusted proxy: no per-address limit */
    int refused;               /* BD_REFUSED_*: over a limit, answered 503 */
};

/* The peer's address as 16 bytes (IPv4 mapped into IPv6); 0 when it has none. */
static int peer_address(struct MHD_Connection *connection, unsigned char out[16]) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return 0;
    const struct sockaddr *sa = info->client_addr;
    if (sa->sa_family == AF_INET) {
        memset(out, 0, 10);
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
        return 1;
    }
    if (sa->sa_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
        return 1;
    }
    return 0;
}

static int in_range(const unsigned char *range, const unsigned char address[16]) {
    unsigned int bits = range[16];
    for (unsigned int i = 0; i < 16 && bits > 0; i++, bits = bits >= 8 ? bits - 8 : 0) {
        unsigned char mask = bits >= 8 ? 0xff : (unsigned char)(0xff << (8 - bits));
        if ((range[i] & mask) != (address[i] & mask)) return 0;
    }
    return 1;
}

static int is_trusted(const struct bd_watch_group *group, const unsigned char address[16]) {
    for (unsigned int i = 0; i < group->trusted_count; i++) {
        if (in_range(group->trusted + 17 * i, address)) return 1;
    }
    return 0;
}

static struct address_count **address_slot(struct bd_watch_group *group, const unsigned char address[16]) {
    unsigned int hash = 2166136261u;
    for (int i = 0; i < 16; i++) hash = (hash ^ address[i]) * 16777619u;
    struct address_count **slot = &group->addresses[hash % ADDRESS_BUCKETS];
    while (*slot != NULL && memcmp((*slot)->address, address, 16) != 0) slot = &(*slot)->next;
    return slot;
}

/* Decides, as a connection opens, whether it is over a limit; counts it if it is not. */
static void admit(struct bd_watch_group *group, struct bd_watch *w) {
    group->count++;
    if (group->admitted >= group->connection_limit) {
        w->refused = BD_REFUSED_TOTAL;
        return;
    }
    if (w->known_address && !w->trusted && group->per_address_limit > 0) {
        struct address_count **slot = address_slot(group, w->address);
        if (*slot == NULL) {
            *slot = calloc(1, sizeof **slot);
            if (*slot == NULL) {
                w->refused = BD_REFUSED_TOTAL;
                return;
            }
            memcpy((*slot)->address, w->address, 16);
        }
        if ((*slot)->count >= group->per_address_limit) {
            w->refused = BD_REFUSED_PER_ADDRESS;
            return;
        }
        (*slot)->count++;
    }
    group->admitted++;
}

static void release(struct bd_watch_group *group, struct bd_watch *w) {
    group->count--;
    if (w->refused) return;
    group->admitted--;
    if (w->known_address && !w->trusted && group->per_address_limit > 0) {
        struct address_count **slot = address_slot(group, w->address);
        if (*slot != NULL && --(*slot)->count == 0) {
            struct address_count *gone = *slot;
            *slot = gone->next;
            free(gone);
        }
    }
}

/* Bytes the kernel holds for the socket that libmicrohttpd has not read yet (0 if it cannot say). */
static int unread_bytes(int fd) {
    int count = 0;
    return ioctl(fd, SIOCINQ, &count) == 0 ? count : 0;
}

static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct bd_watch *watch_head;
#define CROWDED_DEADLINE_MS 2000
static pthread_once_t watchdog_once = PTHREAD_ONCE_INIT;

static int64_t monotonic_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *watchdog(void *arg) {
    (void)arg;
    for (;;) {
        usleep(250 * 1000);
        int64_t now = monotonic_ms();
        pthread_mutex_lock(&watch_lock);
        for (struct bd_watch *w = watch_head; w != NULL; w = w->next) {
            unsigned int deadline = w->group->deadline_ms;
            if (w->refused) {
                deadline = CROWDED_DEADLINE_MS; /* over a limit: its request comes now or never */
            } else if (deadline > CROWDED_DEADLINE_MS && w->group->admitted >= w->group->crowded_at) {
                deadline = CROWDED_DEADLINE_MS;
            }
            int64_t since = __atomic_load_n(&w->waiting_since_ms, __ATOMIC_ACQUIRE);
            if (deadline != 0 && since != 0 && now - since > (int64_t)deadline) {
                /* Under the lock: libmicrohttpd reports the close (which takes it) before it
                   closes the descriptor, so this is still that connection's socket. */
                shutdown(w->fd, SHUT_RDWR);
                __atomic_compare_exchange_n(&w->waiting_since_ms, &since, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
            }
        }
        pthread_mutex_unlock(&watch_lock);
    }
    return NULL;
}

static void start_watchdog(void) {
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_create(&thread, &attributes, watchdog, NULL);
    pthread_attr_destroy(&attributes);
}

static void bd_notify_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                                 enum MHD_ConnectionNotificationCode code) {
    struct bd_watch_group *group = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        if (group == NULL) return;
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct bd_watch *w = calloc(1, sizeof *w);
        if (w == NULL || info == NULL) {
            free(w);
            return;
        }
        w->fd = info->connect_fd;
        w->group = group;
        w->waiting_since_ms = monotonic_ms();
        w->known_address = peer_address(connection, w->address);
        w->trusted = w->known_address && is_trusted(group, w->address);
        pthread_mutex_lock(&watch_lock);
        w->next = watch_head;
        if (watch_head != NULL) watch_head->prev = w;
        watch_head = w;
        admit(group, w);
        pthread_mutex_unlock(&watch_lock);
        *socket_context = w;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        struct bd_watch *w = *socket_context;
        if (w == NULL) return;
        pthread_mutex_lock(&watch_lock);
        if (w->prev != NULL) w->prev->next = w->next; else watch_head = w->next;
        if (w->next != NULL) w->next->prev = w->prev;
        release(w->group, w);
        pthread_mutex_unlock(&watch_lock);
        free(w);
        *socket_context = NULL;
    }
}

static struct bd_watch *watch_of(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/* Three times a request, on every worker: no lock and no system call. `watch_lock` keeps the
   list (a watch stays on it until its connection's close is reported, which its own worker
   does after the request's end); the fields are atomic, `begun` cleared before the time that
   publishes it. (The request's end once read the socket's TCP_INFO here, to tell later whether
   bytes had come since: a system call on every request, for what only a drain asks.) */
static void set_waiting(struct MHD_Connection *connection, int waiting) {
    struct bd_watch *w = watch_of(connection);
    if (w == NULL) return;
    if (waiting) __atomic_store_n(&w->begun, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&w->waiting_since_ms, waiting ? monotonic_ms() : 0, __ATOMIC_RELEASE);
}

/* libmicrohttpd has the request line of the connection's next request (its URI callback). */
static void request_begun(struct MHD_Connection *connection) {
    struct bd_watch *w = watch_of(connection);
    if (w != NULL) __atomic_store_n(&w->begun, 1, __ATOMIC_RELAXED);
}

int bd_connection_refused(struct MHD_Connection *connection) {
    struct bd_watch *w = watch_of(connection);
    return w == NULL ? BD_REFUSED_NONE : w->refused;
}

int bd_connection_trusted(struct MHD_Connection *connection) {
    struct bd_watch *w = watch_of(connection);
    return w != NULL && w->trusted;
}

void bd_request_read(struct MHD_Connection *connection) { set_waiting(connection, 0); }

void bd_request_ended(struct MHD_Connection *connection) { set_waiting(connection, 1); }

/* Framing (RFC 9112 §6.3, SPEC §6): what a careful server refuses, checked once per request
   over the headers as libmicrohttpd received them (every one, duplicates included).

   libmicrohttpd 0.9.75 parses the head in place in its read buffer: every CR and LF that ends
   a line becomes a NUL, and the colon after a name too; a key and a value are pointers into
   that buffer. So some leniencies cannot be seen in the values it hands over (found with raw
   sockets against this version; MHD_OPTION_STRICT_FOR_CLIENT changes none of them):
   - a NUL in a value ends its C string: "a\0b" is handed over as "a";
   - an obs-folded line ("X: a\r\n b") is joined: the key is copied elsewhere (as "Xb");
   - a line ended by a bare LF is taken as a line.
   A bare CR and other control bytes stay in the value and are seen there. The others are
   found by walking the buffer: each header's key must start where the line before it ended,
   and each line (the request line's included) must end in exactly two NULs, its CR and LF,
   up to the head's end (MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE after the method, the
   buffer's first byte). A NUL inside a value leaves a byte that is not a NUL after its end or
   shifts where the next line starts; a folded key is not in the buffer at all; a bare LF
   leaves one NUL. Clients (curl, browsers, every HTTP library) end lines with CRLF, which the
   RFC requires of them; a recipient MAY accept a bare LF, and this one does not. */
struct framing_scan {
    unsigned int content_lengths, transfer_encodings, hosts, origins;
    int bad_name, bad_coding, bad_value;
    /* The layout walk: where the next header line must start, the head's end, and whether a
       line broke the layout (NUL, fold, bare LF). `next` is NULL when the head is not known. */
    const char *next, *end;
    int bad_line;
    /* The Content-Length's value (the last one's): -1 when there is none or it is not digits;
       past INT64_MAX it stays at INT64_MAX (too large either way). */
    int64_t content_length;
};

/* RFC 9110 tchar: a visible ASCII character other than a separator. A table, read once a byte
   of every header name of every request (a switch cost a press several hundred instructions). */
static const unsigned char token_chars[256] = {
    ['0' ... '9'] = 1, ['A' ... 'Z'] = 1, ['a' ... 'z'] = 1,
    ['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1, ['*'] = 1, ['+'] = 1,
    ['-'] = 1, ['.'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['|'] = 1, ['~'] = 1,
};

static int equals_ignoring_case(const char *a, const char *b) { return strcasecmp(a, b) == 0; }

/* A line's end as libmicrohttpd leaves it: its CR and LF, both made NULs, inside the head. */
static int crlf_at(const char *p, const char *end) { return p + 2 <= end && p[0] == '\0' && p[1] == '\0'; }

/* Checks that the header (key, value) lies where the walk expects its line, and moves on. */
static void walk_line(struct framing_scan *scan, const char *key, const char *value, size_t key_length, size_t value_length) {
    if (scan->next == NULL || scan->bad_line) return;
    if (key != scan->next || value == NULL || value < key + key_length + 1 || value > scan->end) {
        scan->bad_line = 1;
        return;
    }
    /* Between the colon (a NUL now) and the value: the optional whitespace it skipped. */
    for (const char *c = key + key_length + 1; c < value; c++) {
        if (*c != ' ' && *c != '\t') {
            scan->bad_line = 1;
            return;
        }
    }
    const char *value_end = value + value_length;
    if (!crlf_at(value_end, scan->end)) {
        scan->bad_line = 1;
        return;
    }
    scan->next = value_end + 2;
}

static enum MHD_Result scan_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    struct framing_scan *scan = cls;
    if (key == NULL) return MHD_YES;
    /* Flags kept in locals while the bytes are read: stored through `scan` at each byte, they
       were written back to memory each time. */
    size_t length = 0;
    unsigned char token = 1;
    for (const unsigned char *c = (const unsigned char *)key; *c != '\0'; c++, length++) token &= token_chars[*c];
    if (!token || length == 0) scan->bad_name = 1;
    /* RFC 9110 §5.5: a field value holds no control byte but HTAB (obs-text, 0x80 and up, may). */
    size_t value_length = 0;
    if (value != NULL) {
        int control = 0;
        for (const unsigned char *c = (const unsigned char *)value; *c != '\0'; c++, value_length++) {
            control |= (*c < 0x20 && *c != '\t') | (*c == 0x7f);
        }
        if (control) scan->bad_value = 1;
    }
    walk_line(scan, key, value, length, value_length);
    /* Compared only when the length can match: most headers are none of these. */
    if (length == 14 && equals_ignoring_case(key, "Content-Length")) {
        scan->content_lengths++;
        scan->content_length = -1;
        if (value != NULL && value_length > 0) {
            int64_t declared = 0;
            size_t i = 0;
            for (; i < value_length && value[i] >= '0' && value[i] <= '9'; i++) {
                int64_t digit = value[i] - '0';
                declared = declared > (INT64_MAX - digit) / 10 ? INT64_MAX : declared * 10 + digit;
            }
            if (i == value_length) scan->content_length = declared;
        }
    } else if (length == 17 && equals_ignoring_case(key, "Transfer-Encoding")) {
        scan->transfer_encodings++;
        if (value == NULL || !equals_ignoring_case(value, "chunked")) scan->bad_coding = 1;
    } else if (length == 4 && equals_ignoring_case(key, "Host")) {
        scan->hosts++;
    } else if (length == 6 && equals_ignoring_case(key, "Origin")) {
        scan->origins++;
    }
    return MHD_YES;
}

int bd_framing_problem(struct MHD_Connection *connection, const char *method, const char *version, int64_t *content_length) {
    struct framing_scan scan = {0};
    scan.content_length = -1;
    const union MHD_ConnectionInfo *size = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    if (method != NULL && version != NULL && size != NULL && size->header_size > 0) {
        scan.end = method + size->header_size;
        const char *line_end = version + strlen(version);
        if (version < method || !crlf_at(line_end, scan.end)) return BD_FRAMING_LINE;
        scan.next = line_end + 2;
    }
    MHD_get_connection_values(connection, MHD_HEADER_KIND, scan_header, &scan);
    *content_length = scan.content_length;
    /* After the last header, the empty line that ends the head, and nothing else. */
    if (scan.next != NULL && !scan.bad_line && !(crlf_at(scan.next, scan.end) && scan.next + 2 == scan.end)) scan.bad_line = 1;
    if (scan.bad_name) return BD_FRAMING_HEADER_NAME;
    if (scan.bad_value) return BD_FRAMING_HEADER_VALUE;
    if (scan.bad_line) return BD_FRAMING_LINE;
    if (scan.content_lengths > 1) return BD_FRAMING_TWO_LENGTHS;
    if (scan.content_lengths > 0 && scan.transfer_encodings > 0) return BD_FRAMING_LENGTH_AND_CODING;
    if (scan.transfer_encodings > 1 || scan.bad_coding) return BD_FRAMING_CODING;
    int http11 = version != NULL && strcmp(version, "HTTP/1.0") != 0;
    /* HTTP/1.0 has no transfer codings (RFC 9112 §6.1): its body ends where the connection
       does, and a proxy that reads the chunks would see a different request than this. */
    if (!http11 && scan.transfer_encodings > 0) return BD_FRAMING_CODING_ON_HTTP10;
    if (scan.hosts > 1) return BD_FRAMING_TWO_HOSTS;
    if (http11 && scan.hosts != 1) return BD_FRAMING_HOST;
    if (scan.origins > 1) return BD_FRAMING_TWO_ORIGINS;
    return BD_FRAMING_OK;
}

unsigned int bd_requests_under_way(void *group) {
    unsigned int count = 0;
    pthread_mutex_lock(&watch_lock);
    for (struct bd_watch *w = watch_head; w != NULL; w = w->next) {
        if (w->group != group) continue;
        /* Under way: between its head and its answer, or its next request line has come, or
           bytes of one wait in the socket. (A request line cut in two, of which libmicrohttpd
           has read only the first part, is not seen: it is taken for an idle connection.) */
        int waiting = __atomic_load_n(&w->waiting_since_ms, __ATOMIC_ACQUIRE) != 0;
        if (!waiting || __atomic_load_n(&w->begun, __ATOMIC_RELAXED) || unread_bytes(w->fd) > 0) count++;
    }
    pthread_mutex_unlock(&watch_lock);
    return count;
}

unsigned int bd_daemon_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

struct MHD_Daemon *bd_start_daemon(bd_daemon_options *o,
                                   MHD_AccessHandlerCallback handler, void *handler_cls,
                                   MHD_RequestCompletedCallback completed, void *completed_cls) {
    uint16_t port = 0;
    if (o->bind_addr != NULL) {
        if (o->bind_addr->sa_family == AF_INET6) {
            port = ntohs(((const struct sockaddr_in6 *)o->bind_addr)->sin6_port);
        } else {
            port = ntohs(((const struct sockaddr_in *)o->bind_addr)->sin_port);
        }
    }
    /* Kept for the life of the process: a daemon's connections may outlive a reload of it,
       and a server starts a daemon only at start and at each certificate reload. */
    struct bd_watch_group *group = calloc(1, sizeof *group);
    if (group == NULL) return NULL;
    group->deadline_ms = o->request_deadline_ms;
    group->crowded_at = o->connection_limit - o->connection_limit / 4;
    group->connection_limit = o->connection_limit;
    group->per_address_limit = o->per_ip_limit;
    if (o->trusted_count > 0) {
        group->trusted = malloc(17 * (size_t)o->trusted_count);
        if (group->trusted == NULL) {
            free(group);
            return NULL;
        }
        memcpy(group->trusted, o->trusted_ranges, 17 * (size_t)o->trusted_count);
        group->trusted_count = o->trusted_count;
    }
    /* Also for a server without a request deadline: a refused connection gets the short one. */
    pthread_once(&watchdog_once, start_watchdog);
    o->watch_group = group;
    /* Room above our limit, so libmicrohttpd accepts what we answer 503 (see bd_watch_group). */
    unsigned int accepted = o->connection_limit > UINT32_MAX / 2 ? UINT32_MAX : 2 * o->connection_limit;
    /* poll(), not epoll: with epoll, MHD_quiesce_daemon (every stop, every TLS reload) races
       the worker threads to take the listening socket out of their epoll sets, and 0.9.75
       aborts the process when the worker loses ("Failed to remove listen FD from epoll set").
       With poll, quiescing only signals the workers. Measured the same run: presses 42.1-42.5 k
       req/s with poll against 36.4-42.5 k with epoll. */
    unsigned int flags = MHD_USE_POLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME;
    if (o->ipv6) flags |= MHD_USE_IPv6;
    if (o->turbo) flags |= MHD_USE_TURBO;
    /* HTTPS through libmicrohttpd's own TLS (GnuTLS): TLS 1.2 and 1.3 only. */
    struct MHD_OptionItem tls[6];
    int n = 0;
    if (o->listen_fd >= 0) tls[n++] = (struct MHD_OptionItem){MHD_OPTION_LISTEN_SOCKET, o->listen_fd, NULL};
    if (o->tls_cert != NULL && o->tls_key != NULL) {
        flags |= MHD_USE_TLS;
        tls[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)o->tls_cert};
        tls[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)o->tls_key};
        if (o->tls_key_password != NULL) {
            tls[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_KEY_PASSWORD, 0, (void *)o->tls_key_password};
        }
        tls[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0,
                                           (void *)"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"};
    }
    tls[n] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_ARRAY, tls,
                            MHD_OPTION_SOCK_ADDR, o->bind_addr,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_CONNECTION_LIMIT, accepted,
                            MHD_OPTION_CONNECTION_TIMEOUT, o->idle_timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, o->connection_memory_limit,
                            MHD_OPTION_THREAD_POOL_SIZE, o->thread_pool_size,
                            MHD_OPTION_LISTEN_BACKLOG_SIZE, o->listen_backlog,
                            MHD_OPTION_UNESCAPE_CALLBACK, bd_unescape, NULL,
                            MHD_OPTION_URI_LOG_CALLBACK, bd_uri_check, (void *)(uintptr_t)o->max_query_parameters,
                            MHD_OPTION_NOTIFY_CONNECTION, bd_notify_connection, (void *)group,
                            MHD_OPTION_END);
}

uint16_t bd_daemon_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

struct header_copy {
    char *out;
    size_t capacity;
    size_t used;
};

static enum MHD_Result copy_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    struct header_copy *copy = cls;
    if (key == NULL) return MHD_YES;
    if (value == NULL) value = "";
    size_t key_length = strlen(key), value_length = strlen(value);
    /* Each header as its two lengths, then its name (lower-cased) and its value: a lookup steps
       from one header to the next by its lengths, without searching for their ends. */
    size_t needed = 2 * sizeof(uint32_t) + key_length + value_length;
    if (copy->out != NULL && copy->used + needed <= copy->capacity) {
        char *p = copy->out + copy->used;
        uint32_t lengths[2] = {(uint32_t)key_length, (uint32_t)value_length};
        memcpy(p, lengths, sizeof lengths);
        p += sizeof lengths;
        for (size_t i = 0; i < key_length; i++) p[i] = (key[i] >= 'A' && key[i] <= 'Z') ? (char)(key[i] | 0x20) : key[i];
        memcpy(p + key_length, value, value_length);
    }
    copy->used += needed;
    return MHD_YES;
}

size_t bd_request_headers(struct MHD_Connection *connection, void *out, size_t capacity) {
    struct header_copy copy = {.out = out, .capacity = capacity, .used = 0};
    MHD_get_connection_values(connection, MHD_HEADER_KIND, copy_header, &copy);
    return copy.used;
}

void bd_add_response_headers(struct MHD_Response *response, const char *pairs, size_t count) {
    for (size_t i = 0; i < count; i++) {
        const char *name = pairs;
        const char *value = name + strlen(name) + 1;
        MHD_add_response_header(response, name, value);
        pairs = value + strlen(value) + 1;
    }
}

void bd_connection_client_address(struct MHD_Connection *connection, char *buf, size_t len) {
    buf[0] = '\0';
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return;
    const struct sockaddr *sa = info->client_addr;
    if (sa->sa_family == AF_INET && len >= INET_ADDRSTRLEN) {
        /* inet_ntop's dotted quad, without its printf (which cost a request's log line more
           than the rest of its address lookup). */
        const unsigned char *octet = (const unsigned char *)&((const struct sockaddr_in *)sa)->sin_addr;
        char *p = buf;
        for (int i = 0; i < 4; i++) {
            unsigned int v = octet[i];
            if (v >= 100) *p++ = (char)('0' + v / 100);
            if (v >= 10) *p++ = (char)('0' + v / 10 % 10);
            *p++ = (char)('0' + v % 10);
            *p++ = i < 3 ? '.' : '\0';
        }
    } else if (sa->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf, (socklen_t)len);
    } else if (sa->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buf, (socklen_t)len);
    }
}

int bd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

int bd_peer_closed(int fd) {
    struct pollfd p = {.fd = fd, .events = POLLRDHUP, .revents = 0};
    if (poll(&p, 1, 0) <= 0) return 0;
    return (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

int bd_usable_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int count = CPU_COUNT(&set);
        if (count > 0) return count;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

int bd_connection_is_plain(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    return info == NULL || info->tls_session == NULL;
}

int bd_write_chunk(int fd, const uint8_t *data, size_t length) {
    if (length == 0) return 1;
    // Unsent bytes already queued, against the buffer's size: write only when the chunk fits
    // with room to spare (the kernel counts its own overhead against SO_SNDBUF too), so a
    // write is whole or nothing and never leaves half a chunk.
    int queued = 0, size = 0;
    socklen_t size_length = sizeof size;
    if (ioctl(fd, SIOCOUTQ, &queued) != 0) return 0;
    if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, &size_length) != 0) return 0;
    if ((size_t)queued + 4 * (length + 32) > (size_t)size / 2) return 0;
    char head[24];
    int head_length = snprintf(head, sizeof head, "%zX\r\n", length);
    struct iovec parts[3] = {
        {.iov_base = head, .iov_len = (size_t)head_length},
        {.iov_base = (void *)data, .iov_len = length},
        {.iov_base = (void *)"\r\n", .iov_len = 2},
    };
    struct msghdr message = {.msg_iov = parts, .msg_iovlen = 3};
    ssize_t sent = sendmsg(fd, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent == (ssize_t)(head_length + length + 2)) return 1;
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return 0;
    return -1;
}
