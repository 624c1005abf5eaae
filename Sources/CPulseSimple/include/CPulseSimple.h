#ifndef RIFFLE_CPULSESIMPLE_H
#define RIFFLE_CPULSESIMPLE_H
// PulseAudio's simple API (libpulse-simple), loaded when a stream is first opened rather than
// at start: linked, it and libpulse brought 19 libraries (2.5 ms, 1.8 MB) into every start,
// including runs that play through libao or not at all. Compiled against the headers; the
// functions come from `riffle_pulse()`, each typed from the header's own declaration.
#include "CLinux.h"
#include <stdint.h>
#include <pulse/error.h>
#include <pulse/simple.h>
#include <pulse/version.h>

/// The libpulse-simple and libpulse functions Riffle uses.
#define RIFFLE_PULSE_FUNCTIONS(X) \
  X(pa_get_library_version)       \
  X(pa_strerror)                  \
  X(pa_simple_new)                \
  X(pa_simple_free)               \
  X(pa_simple_read)               \
  X(pa_simple_write)              \
  X(pa_simple_drain)              \
  X(pa_simple_get_latency)

typedef struct RifflePulse {
  RIFFLE_PULSE_FUNCTIONS(RIFFLE_LAZY_FIELD)
} RifflePulse;

/// The functions, loading libpulse-simple on the first call (thread-safe, once per process).
/// NULL when it cannot be loaded; `riffle_pulse_error()` says why.
const RifflePulse *_Nullable riffle_pulse(void);

/// Why loading failed (the loader's own words), or NULL when it did not fail.
const char *_Nullable riffle_pulse_error(void);

// Buffer attributes with the server's defaults except the target length (playback) and the
// fragment size (recording); (uint32_t)-1 means "server's choice".
static inline pa_buffer_attr riffle_pa_attr(uint32_t tlength, uint32_t fragsize) {
  pa_buffer_attr attr;
  attr.maxlength = (uint32_t)-1;
  attr.tlength = tlength;
  attr.prebuf = (uint32_t)-1;
  attr.minreq = (uint32_t)-1;
  attr.fragsize = fragsize;
  return attr;
}

// The sample spec is a struct whose format field is an enum SwiftPM imports awkwardly, and the
// stream direction is a C enum: one call that opens a mono 16-bit recording stream on the
// default source keeps Swift away from both.
static inline pa_simple *_Nullable riffle_pa_open_record(const RifflePulse *_Nonnull pulse,
                                                         const char *_Nonnull app,
                                                         const char *_Nonnull stream,
                                                         unsigned int rate, int *_Nonnull error) {
  pa_sample_spec spec;
  spec.format = PA_SAMPLE_S16LE;
  spec.rate = rate;
  spec.channels = 1;
  // About 100 ms per read keeps the level meter lively without many wake-ups.
  pa_buffer_attr attr = riffle_pa_attr((uint32_t)-1, rate / 10 * 2);
  return pulse->pa_simple_new(NULL, app, PA_STREAM_RECORD, NULL, stream, &spec, NULL, &attr,
                              error);
}

// A 16-bit stereo playback stream on the default sink holding about `buffer_ms` of audio in the
// server: a generous buffer lets the server wake rarely (libao's pulse driver asks for 20 ms and
// cannot ask for more than about 48 ms: its size arithmetic overflows an int).
static inline pa_simple *_Nullable riffle_pa_open_playback(const RifflePulse *_Nonnull pulse,
                                                           const char *_Nonnull app,
                                                           const char *_Nonnull stream,
                                                           unsigned int rate,
                                                           unsigned int buffer_ms,
                                                           int *_Nonnull error) {
  pa_sample_spec spec;
  spec.format = PA_SAMPLE_S16LE;
  spec.rate = rate;
  spec.channels = 2;
  pa_buffer_attr attr = riffle_pa_attr((uint32_t)(rate / 1000 * buffer_ms * 4), (uint32_t)-1);
  return pulse->pa_simple_new(NULL, app, PA_STREAM_PLAYBACK, NULL, stream, &spec, NULL, &attr,
                              error);
}
#endif
