#ifndef SPOTTER_TERMINAL_GUARD_H
#define SPOTTER_TERMINAL_GUARD_H
/* Gives the terminal back when the UI dies of a fatal signal (see terminal_guard.c). */

/* Saves the terminal's modes as they are now (call it before curses changes them) and installs
   the handler for SIGILL, SIGSEGV, SIGBUS, SIGFPE, SIGABRT and SIGTRAP. Returns 0, or -1 when
   standard input's modes cannot be read (then nothing is installed). */
int spotter_terminal_guard_install(void);

/* Puts the previous handlers back: the UI ended normally and restored the terminal itself. */
void spotter_terminal_guard_remove(void);

/* Recurses until the stack runs out (the UI's SPOTTER_DEBUG_CRASH=stack-overflow switch). */
int spotter_debug_overflow_stack(int depth);

#endif
