#ifndef RIFFLE_CCHAFA_SHIM_H
#define RIFFLE_CCHAFA_SHIM_H
// chafa.h needs glib's headers: chafa.pc requires glib-2.0, and without libglib2.0-dev
// SwiftPM silently drops every chafa flag (the only error is "chafa.h not found").
#include <chafa.h>

// Symbol tags are a C enum whose combined values (HALF, BAD, ALL) Swift imports awkwardly;
// these give the sets the cover renderer uses as plain ints.

/// The symbols cover art is drawn with: space, solid and partial blocks, halves, quadrants.
static inline ChafaSymbolTags riffle_chafa_cover_tags(void) {
  return (ChafaSymbolTags)(CHAFA_SYMBOL_TAG_SPACE | CHAFA_SYMBOL_TAG_SOLID
                           | CHAFA_SYMBOL_TAG_BLOCK | CHAFA_SYMBOL_TAG_HALF
                           | CHAFA_SYMBOL_TAG_QUAD);
}

/// Symbols that are double width or ambiguous in some terminals or fonts: never used, so every
/// cover cell is exactly one column wide.
static inline ChafaSymbolTags riffle_chafa_unsafe_tags(void) {
  return (ChafaSymbolTags)(CHAFA_SYMBOL_TAG_WIDE | CHAFA_SYMBOL_TAG_AMBIGUOUS
                           | CHAFA_SYMBOL_TAG_UGLY);
}

/// Terminal sequences for sixel output and nothing else: chafa_canvas_print in sixel mode needs
/// only these two, and a detected entry would depend on the environment chafa reads.
static inline ChafaTermInfo *riffle_chafa_sixel_term_info(void) {
  ChafaTermInfo *info = chafa_term_info_new();
  if (info == NULL) { return NULL; }
  if (!chafa_term_info_set_seq(info, CHAFA_TERM_SEQ_BEGIN_SIXELS, "\033P%1;%2;%3q", NULL)
      || !chafa_term_info_set_seq(info, CHAFA_TERM_SEQ_END_SIXELS, "\033\\", NULL)) {
    chafa_term_info_unref(info);
    return NULL;
  }
  return info;
}

/// The canvas printed with `info` as a malloc'd C string (free with riffle_chafa_free); its
/// length in `length`. A GString cannot be freed from Swift without glib's headers imported.
static inline char *riffle_chafa_print(ChafaCanvas *canvas, ChafaTermInfo *info, size_t *length) {
  GString *text = chafa_canvas_print(canvas, info);
  if (text == NULL) { return NULL; }
  *length = text->len;
  return g_string_free(text, FALSE);
}

static inline void riffle_chafa_free(char *text) { g_free(text); }
#endif
