#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
#include <curl/curl.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <unistd.h>
/* PlainHTTP's loop (the webhooks libcurl does not send): one epoll set and an eventfd bell. */
#include <sys/epoll.h>
#include <sys/eventfd.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic: Swift calls these typed wrappers. */
static inline CURLcode bd_curl_set_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode bd_curl_set_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode bd_curl_set_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode bd_curl_set_write(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f);
}
static inline CURLcode bd_curl_set_header_callback(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f);
}
static inline CURLMcode bd_curl_multi_set_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline long bd_curl_response_code(CURL *h) {
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    return code;
}

/* Whether a webhook may connect to an address: `bytes` is 4 (AF_INET) or 16 (AF_INET6) bytes
   in network order; non-zero allows it. */
typedef int (*bd_address_check)(void *context, int family, const unsigned char *bytes, int port);

struct bd_socket_guard {
    bd_address_check check;
    void *context;
};

/* CURLOPT_OPENSOCKETFUNCTION: asks the guard about every address curl is about to connect to
   (after name resolution), and opens the socket only if it may. */
static inline curl_socket_t bd_guarded_open(void *clientp, curlsocktype purpose, struct curl_sockaddr *a) {
    (void)purpose;
    struct bd_socket_guard *guard = clientp;
    unsigned char bytes[16];
    int port = 0;
    if (a->family == AF_INET) {
        struct sockaddr_in in;
        memcpy(&in, &a->addr, sizeof in);
        memcpy(bytes, &in.sin_addr, 4);
        port = ntohs(in.sin_port);
    } else if (a->family == AF_INET6) {
        struct sockaddr_in6 in6;
        memcpy(&in6, &a->addr, sizeof in6);
        memcpy(bytes, &in6.sin6_addr, 16);
        port = ntohs(in6.sin6_port);
    } else {
        return CURL_SOCKET_BAD;
    }
    if (guard && guard->check && !guard->check(guard->context, a->family, bytes, port)) return CURL_SOCKET_BAD;
    return socket(a->family, a->socktype, a->protocol);
}

static inline CURLcode bd_curl_guard_sockets(CURL *h, struct bd_socket_guard *guard) {
    CURLcode code = curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, bd_guarded_open);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, guard);
}
/* A connection's socket, shared with other threads so one of them can shut the connection
   down (a client leaving an event stream). libcurl's open and close of the socket and the
   shutdown all take `lock`, so a shutdown never reaches a descriptor libcurl has closed and
   the process has since reused (a server's listening socket, in a test process). */
struct bd_socket_slot {
    pthread_mutex_t lock;
    int fd;
};

static inline void bd_socket_slot_init(struct bd_socket_slot *slot) {
    pthread_mutex_init(&slot->lock, NULL);
    slot->fd = -1;
}

static inline void bd_socket_slot_destroy(struct bd_socket_slot *slot) { pthread_mutex_destroy(&slot->lock); }

static inline int bd_remember_socket(void *context, curl_socket_t fd, curlsocktype purpose) {
    (void)purpose;
    struct bd_socket_slot *slot = context;
    pthread_mutex_lock(&slot->lock);
    slot->fd = (int)fd;
    pthread_mutex_unlock(&slot->lock);
    return CURL_SOCKOPT_OK;
}

static inline int bd_forget_socket(void *context, curl_socket_t fd) {
    struct bd_socket_slot *slot = context;
    pthread_mutex_lock(&slot->lock);
    if (slot->fd == (int)fd) slot->fd = -1;
    int result = close(fd);
    pthread_mutex_unlock(&slot->lock);
    return result;
}

static inline CURLcode bd_curl_remember_socket(CURL *h, struct bd_socket_slot *slot) {
    CURLcode code = curl_easy_setopt(h, CURLOPT_SOCKOPTFUNCTION, bd_remember_socket);
    if (code == CURLE_OK) code = curl_easy_setopt(h, CURLOPT_SOCKOPTDATA, slot);
    if (code == CURLE_OK) code = curl_easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, bd_forget_socket);
    if (code == CURLE_OK) code = curl_easy_setopt(h, CURLOPT_CLOSESOCKETDATA, slot);
    return code;
}

/* Shuts the connection down if it is still open. */
static inline void bd_socket_slot_shutdown(struct bd_socket_slot *slot) {
    pthread_mutex_lock(&slot->lock);
    if (slot->fd >= 0) shutdown(slot->fd, SHUT_RDWR);
    pthread_mutex_unlock(&slot->lock);
}
#endif
