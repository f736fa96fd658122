#ifndef MHD_SHIMS_H
#define MHD_SHIMS_H
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Everything `bd_start_daemon` passes to the variadic MHD_start_daemon.
typedef struct bd_daemon_options {
    int ipv6;                           /* bind_addr is IPv6 */
    int turbo;                          /* MHD_USE_TURBO */
    const struct sockaddr *bind_addr;   /* IPv4 or IPv6, port included; may be 0 for "any" */
    unsigned int connection_limit;     /* more open at once are answered 503 (libmicrohttpd gets twice this) */
    unsigned int per_ip_limit;         /* more from one address are answered 503; 0: no limit */
    const unsigned char *trusted_ranges; /* trusted_count × 17 bytes: an address (IPv4-mapped IPv6), a prefix length */
    unsigned int trusted_count;        /* peers in these ranges have no per-address limit */
    unsigned int idle_timeout_seconds;
    size_t connection_memory_limit;
    unsigned int thread_pool_size;
    unsigned int listen_backlog;
    unsigned int max_query_parameters; /* more: the query is not parsed, the request gets 414 */
    unsigned int request_deadline_ms;  /* a whole request (head and body) must arrive within this; 0: none */
    const char *tls_cert;              /* PEM; with tls_key, HTTPS (both NULL: plain HTTP) */
    const char *tls_key;               /* PEM */
    const char *tls_key_password;      /* for an encrypted key, or NULL */
    int listen_fd;                     /* an already listening socket to take over, or -1 */
    void *watch_group;                 /* out: the daemon's watched connections (NULL: none) */
} bd_daemon_options;

/// Starts a daemon; MHD_start_daemon is variadic and cannot be called from Swift.
struct MHD_Daemon *bd_start_daemon(bd_daemon_options *options,
                                   MHD_AccessHandlerCallback handler, void *handler_cls,
                                   MHD_RequestCompletedCallback completed, void *completed_cls);

/// The port the daemon is bound to (useful after binding port 0).
uint16_t bd_daemon_port(struct MHD_Daemon *daemon);

/// Why a connection is over a limit (it is answered 503 too_many_connections), or NONE.
enum { BD_REFUSED_NONE = 0, BD_REFUSED_TOTAL = 1, BD_REFUSED_PER_ADDRESS = 2 };
int bd_connection_refused(struct MHD_Connection *connection);

/// 1 when the connection's peer is in a trusted range (`--trusted-proxy`), else 0.
int bd_connection_trusted(struct MHD_Connection *connection);

/// A request has been read whole (head and body) and is being answered: its deadline is off.
void bd_request_read(struct MHD_Connection *connection);

/// A request ended: the connection's next request must come within the deadline.
void bd_request_ended(struct MHD_Connection *connection);

/// Connections of a daemon's watch group with a request under way: being read (bytes arrived
/// since the last request ended) or being answered. Streams count until they end.
unsigned int bd_requests_under_way(void *watch_group);

/// Connections a daemon has open (a quiesced one is stopped when it has none left).
unsigned int bd_daemon_connections(struct MHD_Daemon *daemon);

/// The request context a request with too many query parameters starts with.
void *bd_too_many_parameters(void);
/* The marker of a request whose query is longer than BD_MAX_QUERY_BYTES (answered 414). */
void *bd_query_too_long(void);
#define BD_MAX_QUERY_BYTES 8192
/* The marker of a request whose target holds a NUL or another control byte (answered 400). */
void *bd_bad_target(void);

/// What is wrong with a request's framing (its headers), or BD_FRAMING_OK.
enum {
    BD_FRAMING_OK = 0,
    BD_FRAMING_HEADER_NAME,        /* whitespace, a control byte or a separator in a header's name */
    BD_FRAMING_TWO_LENGTHS,        /* more than one Content-Length */
    BD_FRAMING_LENGTH_AND_CODING,  /* Content-Length together with Transfer-Encoding */
    BD_FRAMING_CODING,             /* a transfer coding other than exactly "chunked" */
    BD_FRAMING_HOST,               /* an HTTP/1.1 request without exactly one Host */
    BD_FRAMING_HEADER_VALUE,       /* a control byte (other than HTAB) in a header's value: a bare CR, say */
    BD_FRAMING_LINE,               /* a line not ended by CRLF, a NUL in a header line, or an obs-folded line */
    BD_FRAMING_CODING_ON_HTTP10,   /* Transfer-Encoding on an HTTP/1.0 request */
    BD_FRAMING_TWO_HOSTS,          /* more than one Host, in any version */
    BD_FRAMING_TWO_ORIGINS,        /* more than one Origin */
};
/// `method` and `version` are the access handler's: pointers into libmicrohttpd's read buffer,
/// where the head's layout is checked (see shims.c). `content_length` is set to the declared
/// Content-Length (INT64_MAX past it), or -1 when none is declared in digits.
int bd_framing_problem(struct MHD_Connection *connection, const char *method, const char *version, int64_t *content_length);

/// The request's headers, in the order they arrived, each as its name's and its value's lengths
/// (two native uint32_t) then its name (lower-cased, ASCII) and its value, written to out when
/// they fit in capacity. Returns the bytes they take
/// (call with capacity 0 to learn it).
size_t bd_request_headers(struct MHD_Connection *connection, void *out, size_t capacity);

/// Adds count headers to a response from pairs, "name\0value\0" for each, one after another
/// (MHD_add_response_header for each, in one call rather than a crossing from Swift each).
void bd_add_response_headers(struct MHD_Response *response, const char *pairs, size_t count);

/// Writes the client's numeric address into buf ("" when unknown).
void bd_connection_client_address(struct MHD_Connection *connection, char *buf, size_t len);

/// The connection's socket, or -1.
int bd_connection_fd(struct MHD_Connection *connection);

/// 1 when the peer has closed or reset the socket (checked without blocking), else 0.
int bd_peer_closed(int fd);

/// 1 when the connection is plain TCP (not TLS): its socket carries the body's bytes as sent.
int bd_connection_is_plain(struct MHD_Connection *connection);

/* The CPUs this process may run on (its affinity mask: taskset, a container's cpuset), or
   the online ones when that cannot be read. */
int bd_usable_cpus(void);

/// Writes `data` as one HTTP/1.1 chunk ("<hex length>\r\n" data "\r\n") straight to `fd`, not
/// blocking: for an event stream whose connection libmicrohttpd holds suspended with nothing
/// of its own left to send. 1: the whole chunk is in the kernel's send buffer. 0: nothing was
/// written (the buffer has too little room for certain success: queue it the usual way).
/// -1: the peer is gone, or only part of the chunk went out (the stream cannot go on).
int bd_write_chunk(int fd, const uint8_t *data, size_t length);

#endif
