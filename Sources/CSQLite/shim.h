#ifndef RIFFLE_CSQLITE_SHIM_H
#define RIFFLE_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer: a macro Swift does not import. It
// tells sqlite3_bind_text to copy the text, which Swift's temporary C strings need.
static inline sqlite3_destructor_type riffle_sqlite_transient(void) { return SQLITE_TRANSIENT; }
#endif
