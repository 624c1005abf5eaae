#ifndef RIFFLE_CPNG_SHIM_H
#define RIFFLE_CPNG_SHIM_H
#include <string.h>
#include <png.h>

// libpng's simplified API describes formats and sizes with function-like macros, which Swift
// does not import.

/// 8-bit RGBA, not premultiplied, in sRGB.
static inline png_uint_32 riffle_png_format_rgba(void) { return PNG_FORMAT_RGBA; }

/// 8-bit RGB (for writing cover pictures: no alpha to send).
static inline png_uint_32 riffle_png_format_rgb(void) { return PNG_FORMAT_RGB; }

/// A zeroed png_image of the current API version, ready for png_image_begin_read_*.
static inline png_image riffle_png_image_new(void) {
  png_image image;
  memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  return image;
}

/// Bytes png_image_finish_read writes for the image's width, height and format (stride 0).
static inline size_t riffle_png_image_size(const png_image *image) {
  return PNG_IMAGE_SIZE(*image);
}
#endif
