/* The HTTP ceiling for `make bench`: a raw libmicrohttpd server that answers every request
 * with a fixed 200, in the same thread mode as buttond (MHD_USE_POLL_INTERNAL_THREAD with
 * MHD_ALLOW_SUSPEND_RESUME and a thread pool, see Sources/CMicroHTTPDShims/shims.c), the
 * same connection limits and the same three default headers. It reads (and discards) the
 * request body, as buttond must.
 *
 *   mhd_baseline [THREADS]   -> binds 127.0.0.1 on a free port, prints "port=N" on stdout,
 *                               runs until SIGTERM/SIGINT.
 * Build: gcc -O2 -pthread -o mhd_baseline mhd_baseline.c $(pkg-config --cflags --libs libmicrohttpd)
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mhd_limits.h"

static struct MHD_Response *fixed;

static enum MHD_Result handle(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **req_cls) {
    (void)cls; (void)url; (void)method; (void)version; (void)upload_data;
    if (*req_cls == NULL) {           /* headers only: ask for the body */
        *req_cls = (void *)1;
        return MHD_YES;
    }
    if (*upload_data_size != 0) {     /* a piece of the body: consume it */
        *upload_data_size = 0;
        return MHD_YES;
    }
    return MHD_queue_response(connection, MHD_HTTP_OK, fixed);
}

int main(int argc, char **argv) {
    unsigned int threads = argc > 1 ? (unsigned int)atoi(argv[1]) : 4;
    static const char body[] = "{\"events\":[]}";
    fixed = MHD_create_response_from_buffer(sizeof body - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(fixed, "Content-Type", "application/json");
    MHD_add_response_header(fixed, "Content-Security-Policy", "default-src 'self'");
    MHD_add_response_header(fixed, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(fixed, "Referrer-Policy", "no-referrer");

    /* Block SIGTERM/SIGINT in every thread (MHD's inherit the mask); main takes them with sigwait. */
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = 0;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

    unsigned int flags = BUTTOND_MHD_FLAGS;
    /* With a certificate and key (PEM files, argv[2] and argv[3]): HTTPS, as buttond
       --tls-cert/--tls-key serves it (TLS 1.2 and 1.3, libmicrohttpd's GnuTLS). */
    struct MHD_OptionItem tls[4] = {{MHD_OPTION_END, 0, NULL}};
    static char cert[65536], key[65536];
    if (argc > 3) {
        FILE *f = fopen(argv[2], "r");
        size_t n = f ? fread(cert, 1, sizeof cert - 1, f) : 0;
        if (f) fclose(f);
        cert[n] = 0;
        f = fopen(argv[3], "r");
        n = f ? fread(key, 1, sizeof key - 1, f) : 0;
        if (f) fclose(f);
        key[n] = 0;
        flags |= MHD_USE_TLS;
        tls[0] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, cert};
        tls[1] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, key};
        tls[2] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"};
    }
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, 0, NULL, NULL, handle, NULL,
        MHD_OPTION_ARRAY, tls,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        BUTTOND_MHD_LIMITS(threads));
    if (d == NULL) { fprintf(stderr, "MHD_start_daemon failed\n"); return 1; }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    printf("port=%u\n", info ? (unsigned)info->port : 0u);
    fflush(stdout);

    int sig;
    sigwait(&stop_signals, &sig);
    MHD_stop_daemon(d);
    MHD_destroy_response(fixed);
    return 0;
}
