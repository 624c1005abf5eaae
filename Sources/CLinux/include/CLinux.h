#ifndef RIFFLE_CLINUX_H
#define RIFFLE_CLINUX_H
// glibc calls Swift's Glibc module does not show (GNU extensions and malloc.h).

/// Names the calling thread for /proc/PID/task/TID/comm, top and debuggers (at most 15 bytes are
/// kept). Foundation's `Thread.name` does not reach the kernel on Linux.
void riffle_name_current_thread(const char *_Nonnull name);

/// Tunes glibc's malloc for a long-running player:
/// - at most `arenas` arenas (`M_ARENA_MAX`): by default each thread that allocates gets its
///   own, up to eight per core, each holding on to some free memory;
/// - blocks of `mmap_threshold` bytes and more always mapped on their own (`M_MMAP_THRESHOLD`),
///   so they go back to the system when freed. By default the threshold rises to the largest
///   such block freed (up to 32 MB), after which a song's download buffer (hundreds of KB,
///   grown by appends) comes from the heap, and the heap keeps what the next song's does not
///   reuse: resident memory crept up song after song.
void riffle_tune_malloc(int arenas, int mmap_threshold);
#endif
