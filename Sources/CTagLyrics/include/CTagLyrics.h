#ifndef RIFFLE_CTAGLYRICS_H
#define RIFFLE_CTAGLYRICS_H

// Synced lyrics inside a file's ID3v2 tag (SYLT frames), read by TagLib's C++ API.
//
// FFmpeg, which reads every other tag, skips SYLT, and TagLib's C binding (tag_c) stops at six
// basic fields: this small C++ target is the bridge. It exposes plain C so Swift imports it
// without C++ interoperability. TagLib is linked (one library; its dependencies, libstdc++ and
// zlib, are already in every start), and is called only when the lyrics view asks for a local
// song's lyrics.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One timed line: when it starts (milliseconds into the song) and its text (UTF-8, owned by
/// the `riffle_sylt` that holds it; may be empty, a pause between verses).
typedef struct riffle_sylt_line {
  uint32_t milliseconds;
  char *text;
} riffle_sylt_line;

/// The lines of one SYLT frame, in the order the frame lists them (not necessarily by time).
typedef struct riffle_sylt {
  riffle_sylt_line *lines;
  size_t count;
} riffle_sylt;

/// What `riffle_sylt_read` found.
typedef enum riffle_sylt_status {
  /// `out` holds the lines of a frame with millisecond times.
  RIFFLE_SYLT_FOUND = 0,
  /// The file has no ID3v2 tag, or no SYLT frame in it.
  RIFFLE_SYLT_NONE = 1,
  /// TagLib could not open or read the file.
  RIFFLE_SYLT_UNREADABLE = 2,
  /// SYLT frames are there, but timed in MPEG frames only (not used: see docs/library.md).
  RIFFLE_SYLT_MPEG_FRAMES = 3,
  /// A SYLT frame with millisecond times holds no line.
  RIFFLE_SYLT_EMPTY = 4,
} riffle_sylt_status;

/// Reads the synced lyrics of the file at `path` (an MP3, or a WAV with an ID3 chunk): of its
/// SYLT frames with millisecond times, the first whose content type is lyrics, else the first.
/// At most `max_lines` lines are kept, each cut to `max_line_bytes` bytes (at a UTF-8 character
/// boundary), so a hostile tag cannot make the copy large. On RIFFLE_SYLT_FOUND, release `out`
/// with `riffle_sylt_free`; on any other status `out` is left empty.
riffle_sylt_status riffle_sylt_read(const char *path, size_t max_lines, size_t max_line_bytes,
                                    riffle_sylt *out);

/// Frees what `riffle_sylt_read` put in `lyrics` and empties it.
void riffle_sylt_free(riffle_sylt *lyrics);

/// TagLib's version as the headers compiled against give it ("1.13.0": TagLib 1 has no call
/// that says it at run time; the soname, libtag.so.1, holds it to the same major version).
const char *riffle_taglib_version(void);

/// The address of a function inside TagLib, so `riffle --version` can name the file it came
/// from.
uintptr_t riffle_taglib_address(void);

#ifdef __cplusplus
}
#endif

#endif
