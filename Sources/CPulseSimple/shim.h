#ifndef RIFFLE_CPULSESIMPLE_SHIM_H
#define RIFFLE_CPULSESIMPLE_SHIM_H
#include <pulse/simple.h>
#include <pulse/error.h>
#include <pulse/version.h>

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
static inline pa_simple *riffle_pa_open_record(const char *app, const char *stream,
                                               unsigned int rate, int *error) {
  pa_sample_spec spec;
  spec.format = PA_SAMPLE_S16LE;
  spec.rate = rate;
  spec.channels = 1;
  // About 100 ms per read keeps the level meter lively without many wake-ups.
  pa_buffer_attr attr = riffle_pa_attr((uint32_t)-1, rate / 10 * 2);
  return pa_simple_new(NULL, app, PA_STREAM_RECORD, NULL, stream, &spec, NULL, &attr, error);
}

// A 16-bit stereo playback stream on the default sink holding about `buffer_ms` of audio in the
// server: a generous buffer lets the server wake rarely (libao's pulse driver asks for 20 ms and
// cannot ask for more than about 48 ms: its size arithmetic overflows an int).
static inline pa_simple *riffle_pa_open_playback(const char *app, const char *stream,
                                                 unsigned int rate, unsigned int buffer_ms,
                                                 int *error) {
  pa_sample_spec spec;
  spec.format = PA_SAMPLE_S16LE;
  spec.rate = rate;
  spec.channels = 2;
  pa_buffer_attr attr = riffle_pa_attr((uint32_t)(rate / 1000 * buffer_ms * 4), (uint32_t)-1);
  return pa_simple_new(NULL, app, PA_STREAM_PLAYBACK, NULL, stream, &spec, NULL, &attr, error);
}
#endif
