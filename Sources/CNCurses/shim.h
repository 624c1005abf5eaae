#ifndef RIFFLE_CNCURSES_SHIM_H
#define RIFFLE_CNCURSES_SHIM_H
// SwiftPM drops the -D flags pkg-config returns, so ask for the wide-character API here.
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <locale.h>
#include <wchar.h>
#include <ncursesw/curses.h>
#include <ncursesw/term.h>

// Swift 6 rejects C mutable globals; read them through getters.
static inline WINDOW *riffle_nc_stdscr(void) { return stdscr; }
static inline int riffle_nc_colors(void) { return COLORS; }
static inline int riffle_nc_color_pairs(void) { return COLOR_PAIRS; }
static inline int riffle_nc_lines(void) { return LINES; }
static inline int riffle_nc_cols(void) { return COLS; }

// Attribute macros are function-like or expressions: not imported.
static inline attr_t riffle_nc_a_bold(void) { return A_BOLD; }
static inline attr_t riffle_nc_a_dim(void) { return A_DIM; }
static inline attr_t riffle_nc_a_reverse(void) { return A_REVERSE; }
static inline attr_t riffle_nc_a_underline(void) { return A_UNDERLINE; }
static inline attr_t riffle_nc_a_italic(void) { return A_ITALIC; }
static inline attr_t riffle_nc_a_normal(void) { return A_NORMAL; }

/// Puts one wide cell (a base character plus up to 4 combining marks, NUL-terminated) with
/// attributes and an extended colour pair at (y, x). setcchar takes pairs above 32767 only
/// through its opts pointer.
static inline int riffle_nc_put_cell(int y, int x, const wchar_t *chars, attr_t attrs, int pair) {
  cchar_t cell;
  int ext = pair;
  if (setcchar(&cell, chars, attrs, (short)(pair > 32767 ? 0 : pair), &ext) != OK) {
    return ERR;
  }
  return mvwadd_wch(stdscr, y, x, &cell);
}

/// Reads one key or character without blocking (nodelay must be set). Returns the wget_wch
/// result (OK, KEY_CODE_YES or ERR) and stores the code.
static inline int riffle_nc_get_wch(wint_t *code) { return wget_wch(stdscr, code); }

static inline int riffle_nc_key_code_yes(void) { return KEY_CODE_YES; }

/// Starts the screen with a named terminfo entry instead of $TERM's (a direct-colour variant),
/// on the process's stdout and stdin, which Swift cannot name as FILE pointers.
static inline int riffle_nc_newterm(const char *type) {
  SCREEN *screen = newterm(type, stdout, stdin);
  if (screen == NULL) { return ERR; }
  set_term(screen);
  return OK;
}
#endif
