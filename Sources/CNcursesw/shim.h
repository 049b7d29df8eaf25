#ifndef SPOTTER_CNCURSESW_SHIM_H
#define SPOTTER_CNCURSESW_SHIM_H
/* Wide-character ncurses for Swift. Swift cannot call C macros with arguments or
   variadic functions, so the few the terminal adapter needs get static inline wrappers. */
#define _XOPEN_SOURCE_EXTENDED 1
#include <locale.h>
#include <wchar.h>
#include <ncursesw/ncurses.h>
#include <langinfo.h>
#include <stdio.h>
#include <string.h>

static inline int spotter_addwstr_at(int y, int x, const wchar_t *s) { return mvaddwstr(y, x, s); }
static inline int spotter_addnwstr_at(int y, int x, const wchar_t *s, int n) { return mvaddnwstr(y, x, s, n); }
/* Inserting, unlike adding, never wraps: the one way to put a character in the bottom-right cell without scrolling. */
static inline int spotter_insnwstr_at(int y, int x, const wchar_t *s, int n) { return mvins_nwstr(y, x, s, n); }
static inline int spotter_attron(int attrs) { return attron(attrs); }
static inline int spotter_attroff(int attrs) { return attroff(attrs); }
static inline int spotter_attrset(int attrs) { return attrset(attrs); }
static inline int spotter_color_pair(int n) { return COLOR_PAIR(n); }
static inline int spotter_a_bold(void) { return A_BOLD; }
static inline int spotter_a_reverse(void) { return A_REVERSE; }
static inline int spotter_a_dim(void) { return A_DIM; }
static inline int spotter_a_underline(void) { return A_UNDERLINE; }
static inline int spotter_lines(void) { return LINES; }
static inline int spotter_cols(void) { return COLS; }
static inline WINDOW *spotter_stdscr(void) { return stdscr; }
static inline int spotter_key_resize(void) { return KEY_RESIZE; }
static inline int spotter_getmaxyx_rows(void) { int y, x; getmaxyx(stdscr, y, x); (void)x; return y; }
static inline int spotter_getmaxyx_cols(void) { int y, x; getmaxyx(stdscr, y, x); (void)y; return x; }
/* The locale's character set (after setlocale), e.g. "UTF-8" or "ANSI_X3.4-1968". */
static inline const char *spotter_codeset(void) { return nl_langinfo(CODESET); }
/* newterm on the process's own stdin/stdout (Swift 6 cannot touch the C globals directly). */
static inline SCREEN *spotter_newterm(void) { return newterm(NULL, stdout, stdin); }
static inline int spotter_flush_stdout(void) { return fflush(stdout); }
#endif
