#ifndef RIFFLE_CFFMPEG_H
#define RIFFLE_CFFMPEG_H
// FFmpeg, loaded when first needed rather than at start.
//
// libavcodec and libavformat as Debian builds them pull in some 120 further shared libraries
// (video codecs, X11, cairo, TLS stacks, ...). Linking them made every start map and relocate
// all of them, and they held about 20 MB of resident memory, for a decoder that only search
// previews and non-MP3 files need. Riffle therefore compiles against FFmpeg's headers but does
// not link it: `riffle_ffmpeg()` dlopens the four libraries (the sonames of the headers built
// against) on first use and hands back a table of the functions Riffle calls, each typed from
// the header's own declaration, so the compiler checks every call.
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libswresample/swresample.h>

#define RIFFLE_FFMPEG_FUNCTION(name) __typeof__(name) *_Nonnull name

/// The FFmpeg functions Riffle uses, resolved from the loaded libraries.
typedef struct RiffleFFmpeg {
  // libavutil
  RIFFLE_FFMPEG_FUNCTION(avutil_version);
  RIFFLE_FFMPEG_FUNCTION(av_version_info);
  RIFFLE_FFMPEG_FUNCTION(av_malloc);
  RIFFLE_FFMPEG_FUNCTION(av_freep);
  RIFFLE_FFMPEG_FUNCTION(av_strerror);
  RIFFLE_FFMPEG_FUNCTION(av_rescale_q);
  RIFFLE_FFMPEG_FUNCTION(av_log_set_level);
  RIFFLE_FFMPEG_FUNCTION(av_frame_alloc);
  RIFFLE_FFMPEG_FUNCTION(av_frame_free);
  RIFFLE_FFMPEG_FUNCTION(av_frame_unref);
  RIFFLE_FFMPEG_FUNCTION(av_channel_layout_copy);
  RIFFLE_FFMPEG_FUNCTION(av_channel_layout_default);
  RIFFLE_FFMPEG_FUNCTION(av_channel_layout_uninit);
  // libswresample
  RIFFLE_FFMPEG_FUNCTION(swresample_version);
  RIFFLE_FFMPEG_FUNCTION(swr_alloc_set_opts2);
  RIFFLE_FFMPEG_FUNCTION(swr_init);
  RIFFLE_FFMPEG_FUNCTION(swr_free);
  RIFFLE_FFMPEG_FUNCTION(swr_get_out_samples);
  RIFFLE_FFMPEG_FUNCTION(swr_convert);
  // libavcodec
  RIFFLE_FFMPEG_FUNCTION(avcodec_version);
  RIFFLE_FFMPEG_FUNCTION(av_packet_alloc);
  RIFFLE_FFMPEG_FUNCTION(av_packet_free);
  RIFFLE_FFMPEG_FUNCTION(av_packet_unref);
  RIFFLE_FFMPEG_FUNCTION(avcodec_find_decoder);
  RIFFLE_FFMPEG_FUNCTION(avcodec_get_name);
  RIFFLE_FFMPEG_FUNCTION(avcodec_alloc_context3);
  RIFFLE_FFMPEG_FUNCTION(avcodec_free_context);
  RIFFLE_FFMPEG_FUNCTION(avcodec_parameters_to_context);
  RIFFLE_FFMPEG_FUNCTION(avcodec_open2);
  RIFFLE_FFMPEG_FUNCTION(avcodec_send_packet);
  RIFFLE_FFMPEG_FUNCTION(avcodec_receive_frame);
  RIFFLE_FFMPEG_FUNCTION(avcodec_flush_buffers);
  // libavformat
  RIFFLE_FFMPEG_FUNCTION(avformat_version);
  RIFFLE_FFMPEG_FUNCTION(avformat_alloc_context);
  RIFFLE_FFMPEG_FUNCTION(avformat_open_input);
  RIFFLE_FFMPEG_FUNCTION(avformat_find_stream_info);
  RIFFLE_FFMPEG_FUNCTION(avformat_close_input);
  RIFFLE_FFMPEG_FUNCTION(av_find_input_format);
  RIFFLE_FFMPEG_FUNCTION(av_find_best_stream);
  RIFFLE_FFMPEG_FUNCTION(av_read_frame);
  RIFFLE_FFMPEG_FUNCTION(av_seek_frame);
  RIFFLE_FFMPEG_FUNCTION(av_index_search_timestamp);
  RIFFLE_FFMPEG_FUNCTION(avformat_index_get_entries_count);
  RIFFLE_FFMPEG_FUNCTION(avformat_index_get_entry);
  RIFFLE_FFMPEG_FUNCTION(avio_alloc_context);
  RIFFLE_FFMPEG_FUNCTION(avio_context_free);
} RiffleFFmpeg;

#undef RIFFLE_FFMPEG_FUNCTION

/// The functions, loading the libraries on the first call (thread-safe, once per process).
/// NULL when they cannot be loaded; `riffle_ffmpeg_error()` then says why.
const RiffleFFmpeg *_Nullable riffle_ffmpeg(void);

/// Why loading failed (the loader's own words), or NULL when it did not fail.
const char *_Nullable riffle_ffmpeg_error(void);

/// Tries to load the four libraries from `directory` (NULL: the loader's usual search) without
/// touching the table above: 0 when they load and resolve, else -1 with the reason in `error`.
/// For tests and `riffle doctor`.
int riffle_ffmpeg_probe(const char *_Nullable directory, char *_Nonnull error, size_t size);

/// The sonames loaded, in load order, e.g. "libavformat.so.59"; `index` 0 to 3, else NULL.
const char *_Nullable riffle_ffmpeg_soname(int index);

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
static inline void riffle_channel_layout_stereo(AVChannelLayout *_Nonnull layout) {
  AVChannelLayout stereo = AV_CHANNEL_LAYOUT_STEREO;
  *layout = stereo;
}

/// A frame's channel layout, or the default layout for its channel count when the decoder left
/// the order unspecified (swresample needs a real layout to build its mixing matrix).
int riffle_frame_layout(const RiffleFFmpeg *_Nonnull ff, const AVFrame *_Nonnull frame,
                        AVChannelLayout *_Nonnull layout);

/// Converts a decoded frame (any sample format, planar or packed) into one interleaved output
/// buffer; `in` NULL flushes what the resampler still holds. Returns frames written or an error.
int riffle_swr_convert_frame(const RiffleFFmpeg *_Nonnull ff, SwrContext *_Nonnull swr,
                             uint8_t *_Nonnull out, int out_frames, const AVFrame *_Nullable in);
#endif
