#ifndef RIFFLE_CLINUX_H
#define RIFFLE_CLINUX_H
// glibc calls Swift's Glibc module does not show (GNU extensions and malloc.h).

/// Names the calling thread for /proc/PID/task/TID/comm, top and debuggers (at most 15 bytes are
/// kept). Foundation's `Thread.name` does not reach the kernel on Linux.
void riffle_name_current_thread(const char *_Nonnull name);

/// Caps glibc's malloc arenas (`M_ARENA_MAX`): by default each thread that allocates gets its
/// own, up to eight per core, each holding on to some free memory.
void riffle_limit_malloc_arenas(int count);
#endif
