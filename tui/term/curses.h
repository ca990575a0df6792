/* The one wrapper around the curses header (ncursesw). Only tui/term*.c
 * include it; everything else draws through tui/term/term.h. */
#ifndef C2C_CURSES_H
#define C2C_CURSES_H

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <ncursesw/curses.h>

#endif /* C2C_CURSES_H */
