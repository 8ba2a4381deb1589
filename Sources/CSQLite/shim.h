#ifndef REORDER_CSQLITE_SHIM_H
#define REORDER_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import: tells sqlite3_bind_* to copy the buffer.
static inline sqlite3_destructor_type reorder_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
