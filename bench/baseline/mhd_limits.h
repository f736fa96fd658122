/* buttond's libmicrohttpd mode and connection limits (Sources/CMicroHTTPDShims/shims.c), shared by
 * the two baselines, mhd_baseline.c and durable_press.c, so they cannot drift apart. */
#ifndef BENCH_MHD_LIMITS_H
#define BENCH_MHD_LIMITS_H

#define BUTTOND_MHD_FLAGS (MHD_USE_POLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME)

/* the options after MHD_OPTION_SOCK_ADDR, up to and including MHD_OPTION_END */
#define BUTTOND_MHD_LIMITS(threads)                               \
    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)1000,              \
    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)500,        \
    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,              \
    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(32 * 1024),      \
    MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)(threads),         \
    MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)1024,           \
    MHD_OPTION_END

#endif
