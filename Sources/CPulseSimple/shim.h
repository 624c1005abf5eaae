#ifndef RIFFLE_CPULSESIMPLE_SHIM_H
#define RIFFLE_CPULSESIMPLE_SHIM_H
#include <pulse/simple.h>
#include <pulse/error.h>
#include <pulse/version.h>

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
  pa_buffer_attr attr;
  attr.maxlength = (uint32_t)-1;
  attr.tlength = (uint32_t)-1;
  attr.prebuf = (uint32_t)-1;
  attr.minreq = (uint32_t)-1;
  attr.fragsize = rate / 10 * 2;
  return pa_simple_new(NULL, app, PA_STREAM_RECORD, NULL, stream, &spec, NULL, &attr, error);
}
#endif
