#ifndef RIFFLE_CFFTW_SHIM_H
#define RIFFLE_CFFTW_SHIM_H
#include <fftw3.h>

// fftwf_complex is a C array type (float[2]), which Swift imports as a tuple; these wrappers
// take the interleaved (re, im) output as plain floats so Swift can index it directly.

/// Plans a real-to-complex transform of `n` floats into `n / 2 + 1` interleaved complex
/// values. Planning is not thread-safe in FFTW: callers serialise it.
static inline fftwf_plan riffle_fftwf_plan_r2c(int n, float *in, float *out) {
  return fftwf_plan_dft_r2c_1d(n, in, (fftwf_complex *)out, FFTW_ESTIMATE);
}

/// Runs a plan on other buffers of the same size and alignment (thread-safe, per the manual's
/// "new-array execute" functions).
static inline void riffle_fftwf_execute_r2c(const fftwf_plan plan, float *in, float *out) {
  fftwf_execute_dft_r2c(plan, in, (fftwf_complex *)out);
}

/// FFTW's version string ("fftw-3.3.10-sse2-avx"): a C array Swift cannot take as it is.
static inline const char *riffle_fftwf_version(void) { return fftwf_version; }
#endif
