#ifndef RIFFLE_CWEBP_SHIM_H
#define RIFFLE_CWEBP_SHIM_H
// WebPGetInfo and WebPDecodeRGBAInto are plain functions and import as they are; the module
// exists so only RiffleTUI links libwebp.
#include <webp/decode.h>
#endif
