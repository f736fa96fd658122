/* The durable limit for `make bench` (scenario 12): the work of a buttond press done in plain C.
 *
 * libmicrohttpd in the same thread mode and with the same limits as mhd_baseline.c (and buttond:
 * MHD_USE_POLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME, a pool of THREADS workers).
 * POST /api/v1/buttons/{id}/press: the worker hands the request to one writer thread and suspends
 * the connection (suspend and resume behind one mutex, as buttond's SuspendResume does). The
 * writer takes everything queued (lingering up to 0.2 ms for more while busy and fewer than 32
 * are queued, as buttond's sequencer once did), and in one SQLite transaction writes the same rows a
 * press writes in buttond: touch-down, touch-up-inside and tap (tapCount 1 or 2) in `events`, and
 * double-tap on the second tap of a series (buttond's default button: maxTaps 2, multiTapMs 300),
 * each a compact row as buttond's schema version 15 writes it (type, button, t, the data object's
 * JSON or NULL when empty; no id, which its run's prefix in `event_runs` gives, and no event JSON,
 * which is rendered for the answer only); one `button_states` upsert per button the batch
 * touched; every 4000 events the same transaction trims the log to 100 000 (buttond's default
 * retention) and records the trimmed seq in `meta`. It commits, then resumes each connection,
 * whose worker answers 200 with {"events":[...]}: the same shape, fields and headers as
 * buttond's press answer.
 *
 * SQLite settings as buttond's writer (Sources/ButtonStore/Connection.swift): no memory
 * statistics, WAL, synchronous=OFF, wal_autocheckpoint=0, cache_size=-16384, temp_store=MEMORY,
 * mmap_size=0, secure_delete=FAST; a
 * checkpointer thread with its own connection (synchronous=NORMAL) runs a passive checkpoint when
 * a commit left the log at 4000 pages or more (Checkpointer.swift). A committed press is in the
 * write-ahead log before its answer, as in buttond.
 *
 * What it leaves out, so it is a floor for this work, not a second buttond: no real JSON parser
 * (the body must be empty or look like an object), no gesture engine beyond the tap count, no
 * timers (a series the multi-tap window ended is written, with its single-tap at the window's
 * end, ahead of the button's next press instead of in real time), no streams, handlers, metrics,
 * auth or rate limits.
 *
 *   durable_press DB [THREADS]  -> opens (creating the tables it needs if missing) the SQLite file
 *                                  DB; the buttons are the rows of its `buttons` table, or, if it
 *                                  has none, any valid name. Binds 127.0.0.1 on a free port, prints
 *                                  "port=N" on stdout, runs until SIGTERM/SIGINT.
 * Build: gcc -O2 -pthread -o durable_press durable_press.c \
 *            $(pkg-config --cflags --libs libmicrohttpd sqlite3)
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mhd_limits.h"

#define MAX_TAPS 2
#define MULTI_TAP_MS 300
#define RETENTION 100000
#define TRIM_EVERY 4000          /* min(4000, retention / 10), as EventLog.maintenanceInterval */
#define CHECKPOINT_PAGES 4000
#define LINGER_BELOW 32
#define LINGER_NS 200000L
#define MAX_BUTTONS 65536
#define EVENT_JSON_MAX 320

/* ---------------------------------------------------------------- buttons */

struct button {
    char id[65];
    int64_t clock;       /* the button's last input t */
    int taps;            /* taps in the open series */
    int64_t last_tap;    /* t of the series' last tap */
    int touched;         /* in the batch being written */
};

static struct button *buttons;
static int nbuttons;
static int open_registry; /* no `buttons` rows: any valid name is a button */
static int *slots;        /* open addressing over buttons, 2 * MAX_BUTTONS, -1 empty */
#define NSLOTS (2 * MAX_BUTTONS)

static uint32_t hash(const char *s, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static int valid_name(const char *s, size_t n) { /* ^[a-z0-9][a-z0-9._-]{0,63}$ */
    if (n == 0 || n > 64) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (i > 0 && (c == '.' || c == '_' || c == '-'));
        if (!ok) return 0;
    }
    return 1;
}

/* The button's index, or -1. Workers look up concurrently; only add (under registry_lock) writes. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

static int find(const char *s, size_t n) {
    for (uint32_t h = hash(s, n) % NSLOTS;; h = (h + 1) % NSLOTS) {
        int k = __atomic_load_n(&slots[h], __ATOMIC_ACQUIRE);
        if (k < 0) return -1;
        if (strlen(buttons[k].id) == n && memcmp(buttons[k].id, s, n) == 0) return k;
    }
}

static int add(const char *s, size_t n) {
    pthread_mutex_lock(&registry_lock);
    int k = find(s, n);
    if (k < 0 && nbuttons < MAX_BUTTONS) {
        k = nbuttons++;
        memcpy(buttons[k].id, s, n);
        buttons[k].id[n] = 0;
        uint32_t h = hash(s, n) % NSLOTS;
        while (slots[h] >= 0) h = (h + 1) % NSLOTS;
        __atomic_store_n(&slots[h], k, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&registry_lock);
    return k;
}

/* ---------------------------------------------------------------- requests */

struct req {
    int stage;                    /* 0 headers seen, 1 body read, 2 handed to the writer */
    int button;
    struct MHD_Connection *conn;
    int suspended, done;          /* under suspend_lock */
    unsigned status;
    char *body;                   /* the answer, malloc'd */
    size_t len;
    size_t body_bytes;
    char first, last;             /* first and last non-space byte of the request body */
    struct req *next;
};

/* suspend and resume behind one lock, as buttond (SuspendResume.swift) */
static pthread_mutex_t suspend_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;
static struct req *queue_head, *queue_tail;
static int queue_len, stopping;

static const char *headers[][2] = {
    {"Content-Type", "application/json"},
    {"Content-Security-Policy", "default-src 'self'; frame-ancestors 'self'"},
    {"X-Content-Type-Options", "nosniff"},
    {"Referrer-Policy", "no-referrer"},
    {"X-Frame-Options", "SAMEORIGIN"},
};

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, char *body, size_t len, int must_free) {
    struct MHD_Response *r = MHD_create_response_from_buffer(len, body, must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) MHD_add_response_header(r, headers[i][0], headers[i][1]);
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

#define ERR(code, msg) "{\"error\":{\"code\":\"" code "\",\"message\":\"" msg "\"}}"
static enum MHD_Result fail(struct MHD_Connection *c, unsigned status, const char *json) {
    return answer(c, status, (char *)json, strlen(json), 0);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size, void **req_cls) {
    (void)cls; (void)version;
    struct req *q = *req_cls;
    if (q == NULL) { /* headers only: ask for the body */
        q = calloc(1, sizeof *q);
        if (!q) return MHD_NO;
        q->button = -1;
        *req_cls = q;
        return MHD_YES;
    }
    if (q->stage == 0 && *upload_data_size != 0) { /* a piece of the body */
        for (size_t i = 0; i < *upload_data_size; i++) {
            char ch = upload_data[i];
            if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n') continue;
            if (!q->first) q->first = ch;
            q->last = ch;
        }
        q->body_bytes += *upload_data_size;
        *upload_data_size = 0;
        return q->body_bytes > 65536 ? fail(connection, 413, ERR("too_large", "body over the limit")) : MHD_YES;
    }
    if (q->stage == 2) { /* resumed, or the answer was there before a suspend was needed */
        char *body = q->body;
        q->body = NULL;
        return answer(connection, q->status, body, q->len, 1);
    }
    q->stage = 1;
    /* route: POST /api/v1/buttons/{id}/press */
    static const char prefix[] = "/api/v1/buttons/", suffix[] = "/press";
    size_t ulen = strlen(url), plen = sizeof prefix - 1, slen = sizeof suffix - 1;
    if (ulen <= plen + slen || memcmp(url, prefix, plen) != 0 || memcmp(url + ulen - slen, suffix, slen) != 0)
        return fail(connection, 404, ERR("not_found", "no such route"));
    if (strcmp(method, "POST") != 0) return fail(connection, 405, ERR("method_not_allowed", "POST only"));
    const char *id = url + plen;
    size_t idlen = ulen - plen - slen;
    const char *ctype = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Content-Type");
    if (q->body_bytes && (!ctype || strncmp(ctype, "application/json", 16) != 0))
        return fail(connection, 415, ERR("unsupported_media_type", "send application/json"));
    if (q->body_bytes && !(q->first == '{' && q->last == '}'))
        return fail(connection, 400, ERR("malformed_json", "the body must be a JSON object"));
    int k = valid_name(id, idlen) ? find(id, idlen) : -1;
    if (k < 0 && open_registry && valid_name(id, idlen)) k = add(id, idlen);
    if (k < 0) return fail(connection, 404, ERR("not_found", "no such button"));
    q->button = k;
    q->conn = connection;
    q->stage = 2;
    pthread_mutex_lock(&queue_lock);
    if (stopping) { /* the writer is gone or going: nothing more is written */
        pthread_mutex_unlock(&queue_lock);
        return fail(connection, 503, ERR("unavailable", "stopping"));
    }
    if (queue_tail) queue_tail->next = q; else queue_head = q;
    queue_tail = q;
    if (++queue_len == 1) pthread_cond_signal(&queue_cond);
    pthread_mutex_unlock(&queue_lock);
    pthread_mutex_lock(&suspend_lock);
    int done = q->done;
    if (!done) { q->suspended = 1; MHD_suspend_connection(connection); }
    pthread_mutex_unlock(&suspend_lock);
    if (!done) return MHD_YES;
    char *body = q->body;
    q->body = NULL;
    return answer(connection, q->status, body, q->len, 1);
}

static void completed(void *cls, struct MHD_Connection *c, void **req_cls, enum MHD_RequestTerminationCode toe) {
    (void)cls; (void)c; (void)toe;
    struct req *q = *req_cls;
    if (q) { free(q->body); free(q); }
    *req_cls = NULL;
}

/* ---------------------------------------------------------------- SQLite */

static sqlite3 *db;
static sqlite3_stmt *insert_event, *upsert_state, *max_seq, *trim_events, *remember_trim, *begin_tx, *commit_tx, *rollback_tx;
static int wal_pages;
static int64_t next_seq = 1, since_trim;
/* Committed transactions and the presses they carried, printed at exit (the bench compares the
   batches with buttond's `buttond_log_commits_total`). Written by the writer thread only. */
static int64_t commits, committed_presses;
static char id_prefix[16];
static const char *db_path;

static void die(const char *what) {
    fprintf(stderr, "durable_press: %s: %s\n", what, db ? sqlite3_errmsg(db) : "?");
    exit(1);
}

static void exec(sqlite3 *h, const char *sql) {
    char *err = NULL;
    if (sqlite3_exec(h, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "durable_press: %s: %s\n", sql, err ? err : "?");
        exit(1);
    }
}

static sqlite3_stmt *prepare(const char *sql) {
    sqlite3_stmt *s;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, NULL) != SQLITE_OK) die(sql);
    return s;
}

static int wal_hook(void *ctx, sqlite3 *h, const char *name, int pages) {
    (void)ctx; (void)h; (void)name;
    wal_pages = pages;
    return SQLITE_OK;
}

static sqlite3 *open_db(const char *path, int writer) {
    sqlite3 *h;
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        fprintf(stderr, "durable_press: cannot open %s\n", path);
        exit(1);
    }
    sqlite3_extended_result_codes(h, 1);
    sqlite3_busy_timeout(h, 5000);
    exec(h, "PRAGMA journal_mode = WAL");
    exec(h, writer ? "PRAGMA synchronous = OFF" : "PRAGMA synchronous = NORMAL");
    exec(h, "PRAGMA foreign_keys = ON; PRAGMA cache_size = -16384; PRAGMA wal_autocheckpoint = 0; "
            "PRAGMA temp_store = MEMORY; PRAGMA mmap_size = 0; PRAGMA secure_delete = FAST");
    return h;
}

/* the checkpointer: its own thread and connection, a passive checkpoint when asked */
static pthread_mutex_t ckpt_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ckpt_cond = PTHREAD_COND_INITIALIZER;
static int ckpt_requested;

static void *checkpointer(void *arg) {
    sqlite3 *h = arg;
    pthread_mutex_lock(&ckpt_lock);
    for (;;) {
        while (!ckpt_requested && !stopping) pthread_cond_wait(&ckpt_cond, &ckpt_lock);
        if (stopping) break;
        ckpt_requested = 0;
        pthread_mutex_unlock(&ckpt_lock);
        sqlite3_wal_checkpoint_v2(h, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        pthread_mutex_lock(&ckpt_lock);
    }
    pthread_mutex_unlock(&ckpt_lock);
    sqlite3_wal_checkpoint_v2(h, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    sqlite3_close_v2(h);
    return NULL;
}

static void setup_db(void) {
    db = open_db(db_path, 1);
    /* buttond's tables as its schema (version 15) leaves them, for a file buttond did not make */
    exec(db, "CREATE TABLE IF NOT EXISTS buttons (id TEXT PRIMARY KEY NOT NULL, position INTEGER NOT NULL, "
             "config TEXT NOT NULL, face INTEGER NOT NULL DEFAULT 0, clock INTEGER, held INTEGER NOT NULL DEFAULT 0, "
             "taps INTEGER NOT NULL DEFAULT 0);"
             "CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, type TEXT NOT NULL, button TEXT, sheet TEXT, "
             "t INTEGER NOT NULL, data BLOB, by TEXT, id TEXT, json BLOB);"
             "CREATE TABLE IF NOT EXISTS event_runs (first_seq INTEGER PRIMARY KEY, prefix TEXT NOT NULL);"
             "CREATE TABLE IF NOT EXISTS button_states (id TEXT PRIMARY KEY NOT NULL, face INTEGER NOT NULL DEFAULT 0, "
             "clock INTEGER, held INTEGER NOT NULL DEFAULT 0, taps INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;"
             "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID;");
    sqlite3_wal_hook(db, wal_hook, NULL);
    insert_event = prepare("INSERT INTO events (seq, type, button, t, data) VALUES (?1, ?2, ?3, ?4, ?5)");
    upsert_state = prepare("INSERT INTO button_states (id, face, clock, held, taps) VALUES (?1, ?2, ?3, ?4, ?5) "
                           "ON CONFLICT (id) DO UPDATE SET face = ?2, clock = ?3, held = ?4, taps = ?5");
    max_seq = prepare("SELECT MAX(seq) FROM events");
    trim_events = prepare("DELETE FROM events WHERE seq <= ?1");
    remember_trim = prepare("INSERT INTO meta (key, value) VALUES ('trimmed_through', ?1) "
                            "ON CONFLICT (key) DO UPDATE SET value = MAX(value, excluded.value)");
    begin_tx = prepare("BEGIN IMMEDIATE");
    commit_tx = prepare("COMMIT");
    rollback_tx = prepare("ROLLBACK");

    sqlite3_stmt *s = prepare("SELECT MAX(COALESCE((SELECT MAX(seq) FROM events), 0), "
                              "COALESCE((SELECT value FROM meta WHERE key = 'trimmed_through'), 0))");
    if (sqlite3_step(s) == SQLITE_ROW) next_seq = sqlite3_column_int64(s, 0) + 1;
    sqlite3_finalize(s);
    /* the rows keep no id: this run's prefix and their seq give it (as buttond's EventLog) */
    s = prepare("INSERT INTO event_runs (first_seq, prefix) VALUES (?1, ?2) ON CONFLICT (first_seq) DO UPDATE SET prefix = ?2");
    sqlite3_bind_int64(s, 1, next_seq);
    sqlite3_bind_text(s, 2, id_prefix, -1, SQLITE_STATIC);
    sqlite3_step(s);
    sqlite3_finalize(s);
    s = prepare("SELECT id FROM buttons ORDER BY position");
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *id = (const char *)sqlite3_column_text(s, 0);
        if (id && valid_name(id, strlen(id))) add(id, strlen(id));
    }
    sqlite3_finalize(s);
    open_registry = nbuttons == 0;
    /* each button's tap series as buttond would restore it: state rows */
    s = prepare("SELECT id, clock, taps FROM button_states");
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *id = (const char *)sqlite3_column_text(s, 0);
        int k = id ? find(id, strlen(id)) : -1;
        if (k >= 0) {
            buttons[k].clock = sqlite3_column_int64(s, 1);
            buttons[k].taps = sqlite3_column_int(s, 2);
            buttons[k].last_tap = buttons[k].clock;
        }
    }
    sqlite3_finalize(s);
}

/* ---------------------------------------------------------------- the writer */

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *base36(int64_t v, char *end) { /* writes backwards, returns the start */
    *end = 0;
    do { *--end = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36]; v /= 36; } while (v);
    return end;
}

/* "at": t as ISO-8601 UTC with milliseconds */
static void iso(int64_t t, char out[32]) {
    static __thread time_t cached_sec = -1;
    static __thread char cached[24];
    time_t sec = (time_t)(t / 1000);
    if (sec != cached_sec) {
        struct tm tm;
        gmtime_r(&sec, &tm);
        strftime(cached, sizeof cached, "%Y-%m-%dT%H:%M:%S", &tm);
        cached_sec = sec;
    }
    snprintf(out, 32, "%s.%03dZ", cached, (int)(t % 1000));
}

static int store_event(const char *type, const struct button *b, int64_t t, const char *data, char *json, int *json_len) {
    int64_t seq = next_seq++;
    char idbuf[40], tail[16], at[32];
    snprintf(idbuf, sizeof idbuf, "%s%s", id_prefix, base36(seq, tail + sizeof tail - 1));
    iso(t, at);
    *json_len = snprintf(json, EVENT_JSON_MAX, "{\"id\":\"%s\",\"seq\":%lld,\"type\":\"%s\",\"button\":\"%s\",\"t\":%lld,\"at\":\"%s\",\"data\":%s}",
                         idbuf, (long long)seq, type, b->id, (long long)t, at, data);
    sqlite3_bind_int64(insert_event, 1, seq);
    sqlite3_bind_text(insert_event, 2, type, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert_event, 3, b->id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(insert_event, 4, t);
    if (strcmp(data, "{}") == 0) sqlite3_bind_null(insert_event, 5);
    else sqlite3_bind_blob(insert_event, 5, data, (int)strlen(data), SQLITE_STATIC);
    int rc = sqlite3_step(insert_event);
    sqlite3_reset(insert_event);
    since_trim++;
    return rc == SQLITE_DONE;
}

/* one press: its events into the log and its answer into q->body */
static int press(struct req *q, int64_t t) {
    struct button *b = &buttons[q->button];
    char json[EVENT_JSON_MAX], data[48];
    int n;
    size_t cap = 5 * EVENT_JSON_MAX + 32, len = 0;
    char *out = malloc(cap);
    if (!out) return 0;
    if (t < b->clock) t = b->clock; /* a t missing means now, or the button's clock if later */
    /* a series the multi-tap window ended before this press: its single-tap, at the window's end
       (buttond fires it from a timer; it is in the stream and the history, not in this answer) */
    if (b->taps > 0 && t >= b->last_tap + MULTI_TAP_MS) {
        snprintf(data, sizeof data, "{\"tapCount\":%d}", b->taps);
        if (!store_event("single-tap", b, b->last_tap + MULTI_TAP_MS, data, json, &n)) { free(out); return 0; }
        b->taps = 0;
    }
    len += (size_t)snprintf(out + len, cap - len, "{\"events\":[");
    int taps = b->taps + 1;
    snprintf(data, sizeof data, "{\"tapCount\":%d}", taps);
    const char *types[4] = {"touch-down", "touch-up-inside", "tap", "double-tap"};
    const char *datas[4] = {"{}", "{\"durationMs\":0}", data, data};
    int count = taps >= MAX_TAPS ? 4 : 3;
    for (int i = 0; i < count; i++) {
        if (!store_event(types[i], b, t, datas[i], json, &n)) { free(out); return 0; }
        if (i) out[len++] = ',';
        memcpy(out + len, json, (size_t)n);
        len += (size_t)n;
    }
    len += (size_t)snprintf(out + len, cap - len, "]}");
    b->taps = taps >= MAX_TAPS ? 0 : taps;
    b->last_tap = t;
    b->clock = t;
    b->touched = 1;
    q->body = out;
    q->len = len;
    q->status = 200;
    return 1;
}

static int write_batch(struct req *work) {
    if (sqlite3_step(begin_tx) != SQLITE_DONE) { sqlite3_reset(begin_tx); return 0; }
    sqlite3_reset(begin_tx);
    int ok = 1;
    int64_t t = now_ms();
    for (struct req *q = work; q && ok; q = q->next) ok = press(q, t);
    for (int k = 0; k < nbuttons && ok; k++) { /* one state row per button the batch touched */
        struct button *b = &buttons[k];
        if (!b->touched) continue;
        b->touched = 0;
        sqlite3_bind_text(upsert_state, 1, b->id, -1, SQLITE_STATIC);
        sqlite3_bind_int(upsert_state, 2, 0);
        sqlite3_bind_int64(upsert_state, 3, b->clock);
        sqlite3_bind_int(upsert_state, 4, 0);
        sqlite3_bind_int(upsert_state, 5, b->taps);
        ok = sqlite3_step(upsert_state) == SQLITE_DONE;
        sqlite3_reset(upsert_state);
    }
    if (ok && since_trim >= TRIM_EVERY) { /* retention, in the same transaction */
        since_trim = 0;
        int64_t newest = 0;
        if (sqlite3_step(max_seq) == SQLITE_ROW) newest = sqlite3_column_int64(max_seq, 0);
        sqlite3_reset(max_seq);
        int64_t through = newest - RETENTION;
        if (through > 0) {
            sqlite3_bind_int64(trim_events, 1, through);
            ok = sqlite3_step(trim_events) == SQLITE_DONE;
            sqlite3_reset(trim_events);
            sqlite3_bind_int64(remember_trim, 1, through);
            ok = ok && sqlite3_step(remember_trim) == SQLITE_DONE;
            sqlite3_reset(remember_trim);
        }
    }
    if (ok) ok = sqlite3_step(commit_tx) == SQLITE_DONE;
    sqlite3_reset(commit_tx);
    if (ok) {
        commits++;
        for (struct req *q = work; q; q = q->next) committed_presses++;
    }
    if (!ok) {
        fprintf(stderr, "durable_press: commit failed: %s\n", sqlite3_errmsg(db));
        sqlite3_step(rollback_tx);
        sqlite3_reset(rollback_tx);
    }
    return ok;
}

static void *writer(void *arg) {
    (void)arg;
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), -10); /* as buttond's sequencer; needs privilege */
    int busy = 0;
    pthread_mutex_lock(&queue_lock);
    for (;;) {
        while (!queue_head && !stopping) pthread_cond_wait(&queue_cond, &queue_lock);
        if (stopping && !queue_head) break;
        if (busy && queue_len < LINGER_BELOW && !stopping) { /* under load, let more join this commit */
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += LINGER_NS;
            if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
            pthread_cond_timedwait(&queue_cond, &queue_lock, &until);
        }
        struct req *work = queue_head;
        busy = queue_len > 1;
        queue_head = queue_tail = NULL;
        queue_len = 0;
        pthread_mutex_unlock(&queue_lock);

        int64_t seq0 = next_seq;
        if (!write_batch(work)) {
            next_seq = seq0; /* a refused batch uses no seq numbers */
            for (struct req *q = work; q; q = q->next) {
                free(q->body);
                static const char refused[] = ERR("unavailable", "the event log could not be written");
                q->body = strdup(refused);
                q->len = sizeof refused - 1;
                q->status = 503;
            }
        } else if (wal_pages >= CHECKPOINT_PAGES) {
            pthread_mutex_lock(&ckpt_lock);
            if (!ckpt_requested) { ckpt_requested = 1; pthread_cond_signal(&ckpt_cond); }
            pthread_mutex_unlock(&ckpt_lock);
        }
        /* answer them all under one acquisition of the suspend/resume lock */
        pthread_mutex_lock(&suspend_lock);
        for (struct req *q = work, *next; q; q = next) {
            next = q->next;
            q->next = NULL;
            q->done = 1;
            if (q->suspended) { q->suspended = 0; MHD_resume_connection(q->conn); }
        }
        pthread_mutex_unlock(&suspend_lock);
        pthread_mutex_lock(&queue_lock);
    }
    pthread_mutex_unlock(&queue_lock);
    return NULL;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: durable_press DB [THREADS]\n");
        return 2;
    }
    db_path = argv[1];
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);  /* as buttond's Connection.configureSQLite */
    unsigned int threads = argc > 2 ? (unsigned int)atoi(argv[2]) : 4;
    buttons = calloc(MAX_BUTTONS, sizeof *buttons);
    slots = malloc(NSLOTS * sizeof *slots);
    if (!buttons || !slots) return 1;
    memset(slots, 0xff, NSLOTS * sizeof *slots);
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    strcpy(id_prefix, "evt_");
    for (int i = 0; i < 8; i++) id_prefix[4 + i] = "abcdefghijklmnopqrstuvwxyz0123456789"[rand() % 36];
    id_prefix[12] = '_';
    id_prefix[13] = 0;
    setup_db();

    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

    pthread_t writer_thread, ckpt_thread;
    pthread_create(&ckpt_thread, NULL, checkpointer, open_db(db_path, 0));
    pthread_create(&writer_thread, NULL, writer, NULL);

    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = 0;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *d = MHD_start_daemon(
        BUTTOND_MHD_FLAGS, 0, NULL, NULL, handle, NULL,
        MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        BUTTOND_MHD_LIMITS(threads));
    if (d == NULL) { fprintf(stderr, "MHD_start_daemon failed\n"); return 1; }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    printf("port=%u\n", info ? (unsigned)info->port : 0u);
    fflush(stdout);

    int sig;
    sigwait(&stop_signals, &sig);
    /* let the writer answer what it holds, then stop the workers and the threads */
    pthread_mutex_lock(&queue_lock);
    stopping = 1;
    pthread_cond_broadcast(&queue_cond);
    pthread_mutex_unlock(&queue_lock);
    pthread_join(writer_thread, NULL);
    MHD_stop_daemon(d);
    pthread_mutex_lock(&ckpt_lock);
    pthread_cond_broadcast(&ckpt_cond);
    pthread_mutex_unlock(&ckpt_lock);
    pthread_join(ckpt_thread, NULL);
    sqlite3_close_v2(db);
    fprintf(stderr, "durable_press: %lld presses in %lld commits\n", (long long)committed_presses, (long long)commits);
    return 0;
}
