#include "CFFmpeg.h"

#include <stdio.h>

#define RIFFLE_STRINGIFY_(x) #x
#define RIFFLE_STRINGIFY(x) RIFFLE_STRINGIFY_(x)

// Dependencies first, so each library finds the one it needs already loaded.
static const char *const sonames[] = {
    "libavutil.so." RIFFLE_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
    "libswresample.so." RIFFLE_STRINGIFY(LIBSWRESAMPLE_VERSION_MAJOR),
    "libavcodec.so." RIFFLE_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    "libavformat.so." RIFFLE_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
};

const char *riffle_ffmpeg_soname(int index) {
  return index >= 0 && index < (int)(sizeof sonames / sizeof *sonames) ? sonames[index] : NULL;
}

// The headers and the libraries must agree on the ABI; the soname's major says they do.
static int check(const void *table, char *error, size_t size) {
  const RiffleFFmpeg *ff = table;
  if ((ff->avformat_version() >> 16) == LIBAVFORMAT_VERSION_MAJOR &&
      (ff->avcodec_version() >> 16) == LIBAVCODEC_VERSION_MAJOR) {
    return 0;
  }
  snprintf(error, size, "FFmpeg's libraries are not the version Riffle was built with");
  return -1;
}

// FFmpeg logs to stderr, which would draw over the screen; Riffle reports errors itself. And
// no header makes it allocate more than RIFFLE_FFMPEG_LARGEST_ALLOCATION at once (CFFmpeg.h).
static int start(const void *table, char *error, size_t size) {
  (void)error;
  (void)size;
  ((const RiffleFFmpeg *)table)->av_log_set_level(AV_LOG_QUIET);
  ((const RiffleFFmpeg *)table)->av_max_alloc(RIFFLE_FFMPEG_LARGEST_ALLOCATION);
  return 0;
}

RIFFLE_LAZY_LIBRARY(riffle_ffmpeg, RiffleFFmpeg, RIFFLE_FFMPEG_FUNCTIONS, check, start)
RIFFLE_LAZY_PROBE(riffle_ffmpeg)

int riffle_frame_layout(const RiffleFFmpeg *ff, const AVFrame *frame, AVChannelLayout *layout) {
  if (frame->ch_layout.order != AV_CHANNEL_ORDER_UNSPEC) {
    return ff->av_channel_layout_copy(layout, &frame->ch_layout);
  }
  ff->av_channel_layout_default(layout, frame->ch_layout.nb_channels);
  return 0;
}

int riffle_swr_convert_frame(const RiffleFFmpeg *ff, SwrContext *swr, uint8_t *out,
                             int out_frames, const AVFrame *in) {
  uint8_t *planes[1] = {out};
  return ff->swr_convert(swr, planes, out_frames,
                         in ? (const uint8_t **)in->extended_data : NULL,
                         in ? in->nb_samples : 0);
}
