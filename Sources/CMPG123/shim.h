#ifndef RIFFLE_CMPG123_SHIM_H
#define RIFFLE_CMPG123_SHIM_H
#include <stdio.h>
#include <sys/types.h>
#include <mpg123.h>

// mpg123.h renames several functions with #define (mpg123_param -> mpg123_param2, ...); these
// wrappers give Swift stable names whatever the header maps them to.
static inline int riffle_mpg123_param(mpg123_handle *h, enum mpg123_parms p, long v, double f) {
  return mpg123_param(h, p, v, f);
}
static inline int riffle_mpg123_feed(mpg123_handle *h, const unsigned char *in, size_t size) {
  return mpg123_feed(h, in, size);
}
static inline int riffle_mpg123_read(mpg123_handle *h, void *out, size_t size, size_t *done) {
  return mpg123_read(h, out, size, done);
}
static inline off_t riffle_mpg123_length(mpg123_handle *h) { return mpg123_length(h); }
static inline off_t riffle_mpg123_framelength(mpg123_handle *h) { return mpg123_framelength(h); }
static inline int riffle_mpg123_set_filesize(mpg123_handle *h, off_t size) {
  return mpg123_set_filesize(h, size);
}
static inline int riffle_mpg123_getformat(mpg123_handle *h, long *rate, int *channels, int *encoding) {
  return mpg123_getformat(h, rate, channels, encoding);
}
/// Seeks to a sample offset in feed mode; `input_offset` says from which byte of the stream to
/// feed next.
static inline off_t riffle_mpg123_feedseek(mpg123_handle *h, off_t sample, off_t *input_offset) {
  return mpg123_feedseek(h, sample, SEEK_SET, input_offset);
}
#endif
