// Tag readers side by side: FFmpeg's libavformat (what Riffle uses) and TagLib's C API, over
// the same files, for docs/dependencies.md. Built and run by scripts/bench-tags.sh.
//
// For each file: open, read title/artist/album/track/year/genre and the length, close. FFmpeg
// also lists every other tag (album artist, disc, ReplayGain, lyrics) and whether a picture
// is embedded; TagLib's C API (1.13) offers only the basic fields and the audio properties.
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
#include <stdio.h>
#include <string.h>
#include <taglib/tag_c.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  static char paths[20000][1024];
  int count = 0;
  while (count < 20000 && fgets(paths[count], sizeof paths[count], stdin)) {
    paths[count][strcspn(paths[count], "\n")] = 0;
    count++;
  }
  av_log_set_level(AV_LOG_QUIET);
  int rounds = argc > 1 ? atoi(argv[1]) : 1;
  for (int round = 0; round < rounds; round++) {
    int ffTags = 0, ffPictures = 0, ffLength = 0, ffFailed = 0;
    double start = now();
    for (int i = 0; i < count; i++) {
      AVFormatContext *context = NULL;
      if (avformat_open_input(&context, paths[i], NULL, NULL) < 0) { ffFailed++; continue; }
      int audio = -1;
      for (unsigned s = 0; s < context->nb_streams; s++) {
        if (context->streams[s]->disposition & AV_DISPOSITION_ATTACHED_PIC) ffPictures++;
        else if (audio < 0 && context->streams[s]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO)
          audio = s;
      }
      if (audio < 0 || context->streams[audio]->duration == AV_NOPTS_VALUE)
        avformat_find_stream_info(context, NULL);
      if (context->duration != AV_NOPTS_VALUE ||
          (audio >= 0 && context->streams[audio]->duration != AV_NOPTS_VALUE))
        ffLength++;
      const AVDictionaryEntry *entry = NULL;
      while ((entry = av_dict_get(context->metadata, "", entry, AV_DICT_IGNORE_SUFFIX))) ffTags++;
      if (audio >= 0)
        while ((entry = av_dict_get(context->streams[audio]->metadata, "", entry,
                                    AV_DICT_IGNORE_SUFFIX)))
          ffTags++;
      avformat_close_input(&context);
    }
    double ffSeconds = now() - start;

    int tlTags = 0, tlLength = 0, tlFailed = 0;
    start = now();
    for (int i = 0; i < count; i++) {
      TagLib_File *file = taglib_file_new(paths[i]);
      if (!file || !taglib_file_is_valid(file)) { tlFailed++; if (file) taglib_file_free(file); continue; }
      TagLib_Tag *tag = taglib_file_tag(file);
      char *fields[] = {taglib_tag_title(tag), taglib_tag_artist(tag), taglib_tag_album(tag),
                        taglib_tag_genre(tag)};
      for (int f = 0; f < 4; f++) if (fields[f][0]) tlTags++;
      if (taglib_tag_track(tag)) tlTags++;
      if (taglib_tag_year(tag)) tlTags++;
      const TagLib_AudioProperties *properties = taglib_file_audioproperties(file);
      if (properties && taglib_audioproperties_length(properties) > 0) tlLength++;
      taglib_tag_free_strings();
      taglib_file_free(file);
    }
    double tlSeconds = now() - start;
    printf("%d files: FFmpeg %.3f s (%.0f us/file), %d tags, %d pictures, %d lengths, %d failed\n",
           count, ffSeconds, ffSeconds / count * 1e6, ffTags, ffPictures, ffLength, ffFailed);
    printf("%d files: TagLib %.3f s (%.0f us/file), %d basic fields, %d lengths, %d failed\n",
           count, tlSeconds, tlSeconds / count * 1e6, tlTags, tlLength, tlFailed);
  }
  return 0;
}
