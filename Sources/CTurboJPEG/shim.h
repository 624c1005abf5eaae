#ifndef RIFFLE_CTURBOJPEG_SHIM_H
#define RIFFLE_CTURBOJPEG_SHIM_H
#include <stddef.h>
#include <turbojpeg.h>

// The pixel-format enum arrives in Swift as a struct; tjDecompress2 wants a plain int.
static inline int riffle_tj_pixel_format_rgba(void) { return TJPF_RGBA; }

/// Whether the last error on a handle was only a warning (for example "premature end of
/// JPEG file"): the image was still decoded, with the missing part filled in.
static inline int riffle_tj_last_error_is_warning(tjhandle handle) {
  return tjGetErrorCode(handle) == TJERR_WARNING;
}
#endif
