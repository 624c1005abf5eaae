#include "CFFmpeg.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define RIFFLE_STRINGIFY_(x) #x
#define RIFFLE_STRINGIFY(x) RIFFLE_STRINGIFY_(x)

// Dependencies first, so each library finds the one it needs already loaded.
static const char *const sonames[4] = {
    "libavutil.so." RIFFLE_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
    "libswresample.so." RIFFLE_STRINGIFY(LIBSWRESAMPLE_VERSION_MAJOR),
    "libavcodec.so." RIFFLE_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    "libavformat.so." RIFFLE_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
};

const char *riffle_ffmpeg_soname(int index) {
  return index >= 0 && index < 4 ? sonames[index] : NULL;
}

// Opens the four libraries and fills `table`; on failure closes what it opened.
static int load(const char *directory, RiffleFFmpeg *table, void *handles[4], char *error,
                size_t size) {
  for (int i = 0; i < 4; i++) handles[i] = NULL;
  for (int i = 0; i < 4; i++) {
    char path[4096];
    if (directory) {
      snprintf(path, sizeof path, "%s/%s", directory, sonames[i]);
    } else {
      snprintf(path, sizeof path, "%s", sonames[i]);
    }
    handles[i] = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handles[i]) {
      const char *why = dlerror();
      snprintf(error, size, "%s", why ? why : sonames[i]);
      goto fail;
    }
  }
#define RESOLVE(library, name)                                                              \
  do {                                                                                      \
    void *symbol = dlsym(handles[library], #name);                                          \
    if (!symbol) {                                                                          \
      snprintf(error, size, "%s has no %s", sonames[library], #name);                       \
      goto fail;                                                                            \
    }                                                                                       \
    memcpy(&table->name, &symbol, sizeof symbol);                                           \
  } while (0)
  RESOLVE(0, avutil_version);
  RESOLVE(0, av_version_info);
  RESOLVE(0, av_malloc);
  RESOLVE(0, av_freep);
  RESOLVE(0, av_strerror);
  RESOLVE(0, av_rescale_q);
  RESOLVE(0, av_log_set_level);
  RESOLVE(0, av_frame_alloc);
  RESOLVE(0, av_frame_free);
  RESOLVE(0, av_frame_unref);
  RESOLVE(0, av_channel_layout_copy);
  RESOLVE(0, av_channel_layout_default);
  RESOLVE(0, av_channel_layout_uninit);
  RESOLVE(1, swresample_version);
  RESOLVE(1, swr_alloc_set_opts2);
  RESOLVE(1, swr_init);
  RESOLVE(1, swr_free);
  RESOLVE(1, swr_get_out_samples);
  RESOLVE(1, swr_convert);
  RESOLVE(2, avcodec_version);
  RESOLVE(2, av_packet_alloc);
  RESOLVE(2, av_packet_free);
  RESOLVE(2, av_packet_unref);
  RESOLVE(2, avcodec_find_decoder);
  RESOLVE(2, avcodec_get_name);
  RESOLVE(2, avcodec_alloc_context3);
  RESOLVE(2, avcodec_free_context);
  RESOLVE(2, avcodec_parameters_to_context);
  RESOLVE(2, avcodec_open2);
  RESOLVE(2, avcodec_send_packet);
  RESOLVE(2, avcodec_receive_frame);
  RESOLVE(2, avcodec_flush_buffers);
  RESOLVE(3, avformat_version);
  RESOLVE(3, avformat_alloc_context);
  RESOLVE(3, avformat_open_input);
  RESOLVE(3, avformat_find_stream_info);
  RESOLVE(3, avformat_close_input);
  RESOLVE(3, av_find_input_format);
  RESOLVE(3, av_find_best_stream);
  RESOLVE(3, av_read_frame);
  RESOLVE(3, av_seek_frame);
  RESOLVE(3, av_index_search_timestamp);
  RESOLVE(3, avformat_index_get_entries_count);
  RESOLVE(3, avformat_index_get_entry);
  RESOLVE(3, avio_alloc_context);
  RESOLVE(3, avio_context_free);
#undef RESOLVE
  // The headers and the libraries must agree on the ABI; the soname's major says they do.
  if ((table->avformat_version() >> 16) != LIBAVFORMAT_VERSION_MAJOR ||
      (table->avcodec_version() >> 16) != LIBAVCODEC_VERSION_MAJOR) {
    snprintf(error, size, "FFmpeg's libraries are not the version Riffle was built with");
    goto fail;
  }
  return 0;
fail:
  for (int i = 3; i >= 0; i--) {
    if (handles[i]) dlclose(handles[i]);
    handles[i] = NULL;
  }
  return -1;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static RiffleFFmpeg functions;
static int loaded;
static char failure[512];

static void load_once(void) {
  void *handles[4];
  if (load(NULL, &functions, handles, failure, sizeof failure) == 0) {
    loaded = 1;
    // FFmpeg logs to stderr, which would draw over the screen; Riffle reports errors itself.
    functions.av_log_set_level(AV_LOG_QUIET);
  }
}

const RiffleFFmpeg *riffle_ffmpeg(void) {
  pthread_once(&once, load_once);
  return loaded ? &functions : NULL;
}

const char *riffle_ffmpeg_error(void) {
  pthread_once(&once, load_once);
  return loaded ? NULL : failure;
}

int riffle_ffmpeg_probe(const char *directory, char *error, size_t size) {
  RiffleFFmpeg table;
  void *handles[4];
  if (load(directory, &table, handles, error, size) != 0) return -1;
  for (int i = 3; i >= 0; i--) dlclose(handles[i]);
  return 0;
}

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
