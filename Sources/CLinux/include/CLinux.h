#ifndef RIFFLE_CLINUX_H
#define RIFFLE_CLINUX_H
// glibc calls Swift's Glibc module does not show (GNU extensions and malloc.h), and the loader
// that opens C libraries on first use.
#include <pthread.h>
#include <stddef.h>

/// Names the calling thread for /proc/PID/task/TID/comm, top and debuggers (at most 15 bytes are
/// kept). Foundation's `Thread.name` does not reach the kernel on Linux.
void riffle_name_current_thread(const char *_Nonnull name);

/// Asks the CPU to bring the cache line at `address` in ahead of a read (GCC's builtin): for
/// loops that read rows scattered over a large mapped table, one row while the next ones come.
static inline void riffle_prefetch(const void *_Nullable address) {
  __builtin_prefetch(address, 0, 0);
}

/// Tunes glibc's malloc for a long-running player:
/// - at most `arenas` arenas (`M_ARENA_MAX`): by default each thread that allocates gets its
///   own, up to eight per core, each holding on to some free memory;
/// - blocks of `mmap_threshold` bytes and more always mapped on their own (`M_MMAP_THRESHOLD`),
///   so they go back to the system when freed. By default the threshold rises to the largest
///   such block freed (up to 32 MB), after which a song's download buffer (hundreds of KB,
///   grown by appends) comes from the heap, and the heap keeps what the next song's does not
///   reuse: resident memory crept up song after song.
void riffle_tune_malloc(int arenas, int mmap_threshold);

/// C libraries opened on first use instead of being linked: the one way Riffle loads libcurl,
/// libpulse-simple, libsystemd and FFmpeg (see their C targets). Linked, each was opened and relocated at
/// every start with all it depends on, whether the run needed it or not (libcurl alone brings 30
/// libraries: 12 ms and 7 MB).
///
/// A library's header lists the functions Riffle calls (an X-macro) and declares its table with
/// `RIFFLE_LAZY_FIELD`: a struct of function pointers in the list's order, each typed from the
/// header's own declaration so the compiler checks every call. Its C file names the sonames and
/// defines the rest with `RIFFLE_LAZY_LIBRARY` (and `RIFFLE_LAZY_PROBE` where a probe is
/// wanted).
typedef struct RiffleLazyLibraries {
  /// Opened in this order (dependencies first), each `RTLD_NOW | RTLD_LOCAL`.
  const char *_Nonnull const *_Nonnull sonames;
  int count;
  /// Looked up in the libraries, the last opened first, each with what it depends on.
  const char *_Nonnull const *_Nonnull symbols;
  int symbol_count;
  /// Optional: whether the table is usable (e.g. the ABI version); 0, or -1 with the reason.
  int (*_Nullable check)(const void *_Nonnull table, char *_Nonnull error, size_t size);
  /// Optional: starts the library once loaded (not when probing); 0, or -1 with the reason.
  int (*_Nullable start)(const void *_Nonnull table, char *_Nonnull error, size_t size);
  // Filled by the functions below.
  pthread_mutex_t lock;
  int tried;
  int loaded;
  char failure[512];
} RiffleLazyLibraries;

/// Loads the libraries into `table` on the first call (thread-safe, once per process) and
/// returns `table`, or NULL when they cannot be loaded; `riffle_lazy_error` then says why.
const void *_Nullable riffle_lazy_load(RiffleLazyLibraries *_Nonnull libraries,
                                       void *_Nonnull table);

/// Why loading failed (the loader's own words), or NULL when it did not (loading if need be).
const char *_Nullable riffle_lazy_error(RiffleLazyLibraries *_Nonnull libraries,
                                        void *_Nonnull table);

/// Tries to load the libraries from `directory` (NULL: the loader's usual search) and closes
/// them again, leaving the loaded table alone: 0 when they load, have every function and pass
/// `check`, else -1 with the reason in `error`. For tests and `riffle doctor`.
int riffle_lazy_probe(const RiffleLazyLibraries *_Nonnull libraries,
                      const char *_Nullable directory, char *_Nonnull error, size_t size);

/// One field of a table: a pointer to `name`, typed from the header's declaration.
#define RIFFLE_LAZY_FIELD(name) __typeof__(name) *_Nonnull name;
/// One entry of the list of names to look up.
#define RIFFLE_LAZY_NAME(name) #name,

/// Defines, in a library's C file (with its `sonames` array in scope), the loader of the table
/// `type` of the functions `list` names, and the two calls its header declares:
/// `const type *prefix(void)` (loads on the first call; NULL when it cannot) and
/// `const char *prefix_error(void)` (why not). `check` and `start` may be NULL.
#define RIFFLE_LAZY_LIBRARY(prefix, type, list, check_, start_)                          \
  static const char *const prefix##_symbols[] = {list(RIFFLE_LAZY_NAME)};              \
  static RiffleLazyLibraries prefix##_libraries = {                                   \
      .sonames = sonames,                                                               \
      .count = sizeof sonames / sizeof *sonames,                                        \
      .symbols = prefix##_symbols,                                                      \
      .symbol_count = sizeof prefix##_symbols / sizeof *prefix##_symbols,               \
      .check = check_,                                                                  \
      .start = start_,                                                                  \
      .lock = PTHREAD_MUTEX_INITIALIZER,                                                \
  };                                                                                    \
  static type prefix##_functions;                                                       \
  const type *prefix(void) { return riffle_lazy_load(&prefix##_libraries, &prefix##_functions); } \
  const char *prefix##_error(void) {                                                    \
    return riffle_lazy_error(&prefix##_libraries, &prefix##_functions);                \
  }

/// With `RIFFLE_LAZY_LIBRARY`: `int prefix_probe(directory, error, size)`, see
/// `riffle_lazy_probe`.
#define RIFFLE_LAZY_PROBE(prefix)                                                   \
  int prefix##_probe(const char *directory, char *error, size_t size) {            \
    return riffle_lazy_probe(&prefix##_libraries, directory, error, size);         \
  }
#endif
