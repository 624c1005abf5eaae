#ifndef RIFFLE_CFFMPEG_SHIM_H
#define RIFFLE_CFFMPEG_SHIM_H
#include <errno.h>
#include <stdio.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswresample/swresample.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/log.h>

// AVERROR(e) and AVERROR_EOF are function-like or expression macros, which Swift does not import.
static inline int riffle_av_error_again(void) { return AVERROR(EAGAIN); }
static inline int riffle_av_error_eof(void) { return AVERROR_EOF; }
static inline int riffle_av_error_invalid(void) { return AVERROR_INVALIDDATA; }
static inline int riffle_av_error_io(void) { return AVERROR(EIO); }
static inline int riffle_av_error_nomem(void) { return AVERROR(ENOMEM); }

// The whence value avio passes to ask a seek callback for the stream's size (a macro).
static inline int riffle_avseek_size(void) { return AVSEEK_SIZE; }
// AVSEEK_FORCE may be or-ed into whence; callers strip it.
static inline int riffle_avseek_force(void) { return AVSEEK_FORCE; }

// AV_NOPTS_VALUE is a cast expression macro.
static inline int64_t riffle_av_nopts_value(void) { return AV_NOPTS_VALUE; }

// AV_CHANNEL_LAYOUT_STEREO is a compound literal; Swift gets it from here. Stereo is what
// every decoder's output is converted to.
static inline void riffle_channel_layout_stereo(AVChannelLayout *layout) {
  AVChannelLayout stereo = AV_CHANNEL_LAYOUT_STEREO;
  *layout = stereo;
}

// A frame's channel layout, or the default layout for its channel count when the decoder left
// the order unspecified (swresample needs a real layout to build its mixing matrix).
static inline int riffle_frame_layout(const AVFrame *frame, AVChannelLayout *layout) {
  if (frame->ch_layout.order != AV_CHANNEL_ORDER_UNSPEC) {
    return av_channel_layout_copy(layout, &frame->ch_layout);
  }
  av_channel_layout_default(layout, frame->ch_layout.nb_channels);
  return 0;
}

// Converts a decoded frame (any sample format, planar or packed) into one interleaved output
// buffer; `in` NULL flushes what the resampler still holds. Returns frames written or an error.
static inline int riffle_swr_convert_frame(SwrContext *swr, uint8_t *out, int out_frames,
                                           const AVFrame *in) {
  uint8_t *planes[1] = {out};
  return swr_convert(swr, planes, out_frames,
                     in ? (const uint8_t **)in->extended_data : NULL, in ? in->nb_samples : 0);
}

// FFmpeg logs to stderr, which would draw over the screen: errors only, and Riffle reports
// them itself.
static inline void riffle_av_log_quiet(void) { av_log_set_level(AV_LOG_QUIET); }
#endif
