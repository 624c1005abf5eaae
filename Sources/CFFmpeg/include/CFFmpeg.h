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
#include "CLinux.h"
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libswresample/swresample.h>

/// The FFmpeg functions Riffle uses, by library.
#define RIFFLE_FFMPEG_FUNCTIONS(X) \
  /* libavutil */                      \
  X(avutil_version)                    \
  X(av_version_info)                   \
  X(av_malloc)                         \
  X(av_freep)                          \
  X(av_strerror)                       \
  X(av_rescale_q)                      \
  X(av_log_set_level)                  \
  X(av_max_alloc)                      \
  X(av_frame_alloc)                    \
  X(av_frame_free)                     \
  X(av_frame_unref)                    \
  X(av_channel_layout_copy)            \
  X(av_channel_layout_default)         \
  X(av_channel_layout_uninit)          \
  X(av_dict_get)                       \
  /* libswresample */                  \
  X(swresample_version)                \
  X(swr_alloc_set_opts2)               \
  X(swr_init)                          \
  X(swr_free)                          \
  X(swr_get_out_samples)               \
  X(swr_convert)                       \
  /* libavcodec */                     \
  X(avcodec_version)                   \
  X(av_packet_alloc)                   \
  X(av_packet_free)                    \
  X(av_packet_unref)                   \
  X(avcodec_find_decoder)              \
  X(avcodec_get_name)                  \
  X(avcodec_alloc_context3)            \
  X(avcodec_free_context)              \
  X(avcodec_parameters_to_context)     \
  X(avcodec_open2)                     \
  X(avcodec_send_packet)               \
  X(avcodec_receive_frame)             \
  X(avcodec_flush_buffers)             \
  /* libavformat */                    \
  X(avformat_version)                  \
  X(avformat_alloc_context)            \
  X(avformat_open_input)               \
  X(avformat_find_stream_info)         \
  X(avformat_close_input)              \
  X(av_find_input_format)              \
  X(av_find_best_stream)               \
  X(av_read_frame)                     \
  X(av_seek_frame)                     \
  X(av_index_search_timestamp)         \
  X(avformat_index_get_entries_count)  \
  X(avformat_index_get_entry)          \
  X(avio_alloc_context)                \
  X(avio_context_free)

/// The functions, resolved from the loaded libraries.
typedef struct RiffleFFmpeg {
  RIFFLE_FFMPEG_FUNCTIONS(RIFFLE_LAZY_FIELD)
} RiffleFFmpeg;

/// The most FFmpeg allocates at once, set when the libraries are loaded (`av_max_alloc`; its
/// default is 2 GB). Demuxers size some buffers from what a header claims (a WAV's INFO tag,
/// an MP4's sample-size table) before reading it: a file of a few hundred bytes made FFmpeg
/// zero 1.6 GB. No audio Riffle plays needs a block this large (an MP4 index of 17 hours of
/// AAC takes about 64 MB), so such a claim is now refused where FFmpeg allocates: the WAV
/// loses that tag, a file that needs the block fails to open as damaged.
#define RIFFLE_FFMPEG_LARGEST_ALLOCATION 67108864

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
