#ifndef RIFFLE_CEBUR128_SHIM_H
#define RIFFLE_CEBUR128_SHIM_H
// libebur128: EBU R128 loudness, measured once at scan for files without ReplayGain tags.
#include <ebur128.h>
#endif
