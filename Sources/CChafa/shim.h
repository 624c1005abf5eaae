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
#endif
