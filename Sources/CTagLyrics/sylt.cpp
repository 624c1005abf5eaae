// SYLT frames through TagLib's C++ API, handed to Swift as plain C (see CTagLyrics.h).

#include "CTagLyrics.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include <taglib/id3v1genres.h>
#include <taglib/id3v2tag.h>
#include <taglib/taglib.h>
#include <taglib/mpegfile.h>
#include <taglib/synchronizedlyricsframe.h>
#include <taglib/wavfile.h>

namespace {

using TagLib::ID3v2::SynchronizedLyricsFrame;

// True when `path` ends with `ending` (ASCII, any case).
bool endsWith(const char *path, const char *ending) {
  size_t length = std::strlen(path);
  size_t size = std::strlen(ending);
  if (length < size) return false;
  for (size_t i = 0; i < size; i++) {
    char c = path[length - size + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != ending[i]) return false;
  }
  return true;
}

// Cuts UTF-8 text to at most `limit` bytes without splitting a character.
std::string cut(std::string text, size_t limit) {
  if (text.size() <= limit) return text;
  size_t end = limit;
  // Step back over continuation bytes (10xxxxxx) to the start of the character cut in two.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) end--;
  text.resize(end);
  return text;
}

// The frame to read: the first with millisecond times whose content is lyrics, else the first
// with millisecond times. `sawFrames` says whether there were SYLT frames at all.
const SynchronizedLyricsFrame *choose(TagLib::ID3v2::Tag *tag, bool &sawFrames) {
  sawFrames = false;
  if (tag == nullptr) return nullptr;
  const TagLib::ID3v2::FrameList &frames = tag->frameListMap()["SYLT"];
  const SynchronizedLyricsFrame *first = nullptr;
  for (TagLib::ID3v2::Frame *frame : frames) {
    auto *sylt = dynamic_cast<SynchronizedLyricsFrame *>(frame);
    if (sylt == nullptr) continue;
    sawFrames = true;
    if (sylt->timestampFormat() != SynchronizedLyricsFrame::AbsoluteMilliseconds) continue;
    if (sylt->type() == SynchronizedLyricsFrame::Lyrics) return sylt;
    if (first == nullptr) first = sylt;
  }
  return first;
}

riffle_sylt_status copyLines(const SynchronizedLyricsFrame &frame, size_t maxLines,
                             size_t maxLineBytes, riffle_sylt *out) {
  const SynchronizedLyricsFrame::SynchedTextList list = frame.synchedText();
  std::vector<riffle_sylt_line> lines;
  try {
    lines.reserve(list.size() < maxLines ? list.size() : maxLines);
    for (const SynchronizedLyricsFrame::SynchedText &entry : list) {
      if (lines.size() >= maxLines) break;
      // TagLib decodes Latin-1 and UTF-16 (with or without BOM) by the frame's encoding byte.
      std::string text = cut(entry.text.to8Bit(true), maxLineBytes);
      char *copy = static_cast<char *>(std::malloc(text.size() + 1));
      if (copy == nullptr) break;
      std::memcpy(copy, text.c_str(), text.size() + 1);
      lines.push_back(riffle_sylt_line{static_cast<uint32_t>(entry.time), copy});
    }
  } catch (...) {
    // The copies made so far are freed before the caller hears of it.
    for (riffle_sylt_line &line : lines) std::free(line.text);
    throw;
  }
  if (lines.empty()) return RIFFLE_SYLT_EMPTY;
  auto *array =
      static_cast<riffle_sylt_line *>(std::malloc(lines.size() * sizeof(riffle_sylt_line)));
  if (array == nullptr) {
    for (riffle_sylt_line &line : lines) std::free(line.text);
    return RIFFLE_SYLT_UNREADABLE;
  }
  std::memcpy(array, lines.data(), lines.size() * sizeof(riffle_sylt_line));
  out->lines = array;
  out->count = lines.size();
  return RIFFLE_SYLT_FOUND;
}

}  // namespace

extern "C" riffle_sylt_status riffle_sylt_read(const char *path, size_t max_lines,
                                               size_t max_line_bytes, riffle_sylt *out) {
  out->lines = nullptr;
  out->count = 0;
  if (path == nullptr) return RIFFLE_SYLT_UNREADABLE;
  // TagLib reports problems by return values, but a C++ exception (bad_alloc on a hostile
  // frame size) must not cross into Swift.
  try {
    const SynchronizedLyricsFrame *frame = nullptr;
    bool sawFrames = false;
    // Audio properties are not read: only the tag is wanted.
    if (endsWith(path, ".wav")) {
      TagLib::RIFF::WAV::File file(path, false);
      if (!file.isOpen() || !file.isValid()) return RIFFLE_SYLT_UNREADABLE;
      if (!file.hasID3v2Tag()) return RIFFLE_SYLT_NONE;
      frame = choose(file.ID3v2Tag(), sawFrames);
      if (frame != nullptr) return copyLines(*frame, max_lines, max_line_bytes, out);
    } else {
      TagLib::MPEG::File file(path, false);
      if (!file.isOpen() || !file.isValid()) return RIFFLE_SYLT_UNREADABLE;
      if (!file.hasID3v2Tag()) return RIFFLE_SYLT_NONE;
      frame = choose(file.ID3v2Tag(), sawFrames);
      if (frame != nullptr) return copyLines(*frame, max_lines, max_line_bytes, out);
    }
    return sawFrames ? RIFFLE_SYLT_MPEG_FRAMES : RIFFLE_SYLT_NONE;
  } catch (...) {
    riffle_sylt_free(out);
    return RIFFLE_SYLT_UNREADABLE;
  }
}

extern "C" void riffle_sylt_free(riffle_sylt *lyrics) {
  if (lyrics == nullptr || lyrics->lines == nullptr) return;
  for (size_t i = 0; i < lyrics->count; i++) std::free(lyrics->lines[i].text);
  std::free(lyrics->lines);
  lyrics->lines = nullptr;
  lyrics->count = 0;
}

#define RIFFLE_STRING(x) #x
#define RIFFLE_VERSION(major, minor, patch) \
  RIFFLE_STRING(major) "." RIFFLE_STRING(minor) "." RIFFLE_STRING(patch)

extern "C" const char *riffle_taglib_version(void) {
  return RIFFLE_VERSION(TAGLIB_MAJOR_VERSION, TAGLIB_MINOR_VERSION, TAGLIB_PATCH_VERSION);
}

extern "C" uintptr_t riffle_taglib_address(void) {
  // A plain function exported by libtag (this target is compiled as position-independent code,
  // so the address comes from the GOT: TagLib's own, not a stub in the executable).
  return reinterpret_cast<uintptr_t>(&TagLib::ID3v1::genreList);
}
