#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>

/// Turns off SQLite's memory statistics before its first use: with them on (Debian's build),
/// every allocation of every connection takes one process-wide mutex. Returns SQLITE_MISUSE
/// once SQLite is initialized, which leaves them as they were.
static inline int bd_sqlite_memstatus_off(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
#endif
