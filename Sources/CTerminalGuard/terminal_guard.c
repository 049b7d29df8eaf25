/* The crash guard. A fatal signal (a Swift trap is SIGILL or SIGTRAP, a bad pointer SIGSEGV or
   SIGBUS, abort() SIGABRT) while curses owns the terminal would leave it raw: no echo, no line
   editing, the backtrace printed as a staircase. The handler puts back the modes saved before
   curses started and leaves the alternate screen, with async-signal-safe calls only (tcsetattr,
   write, sigaction, raise), then restores the handler that was there before (the Swift runtime's
   backtracer, or the default action) and lets it run: a fault happens again when the faulting
   instruction re-runs on return; a signal that was sent rather than caused (abort(), a
   breakpoint trap) is raised again. The handler runs on a stack of its own (sigaltstack,
   SA_ONSTACK), so a stack overflow, whose SIGSEGV has no stack left to run a handler on, still
   gives the terminal back. */
#include "terminal_guard.h"

#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#define GUARDED_COUNT 6
static const int guarded[GUARDED_COUNT] = {SIGILL, SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGTRAP};
static struct sigaction previous[GUARDED_COUNT];
static struct termios saved_modes;
static volatile sig_atomic_t armed = 0;

/* The stack the handler runs on when the thread's own is exhausted. Kept when one is already set
   up (the Swift runtime's backtracer may have installed its own). */
#define ALTERNATE_STACK_SIZE (256 * 1024)
static char alternate_stack[ALTERNATE_STACK_SIZE] __attribute__((aligned(16)));

static void install_alternate_stack(void) {
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && !(current.ss_flags & SS_DISABLE) && current.ss_size >= 16384) return;
    stack_t stack;
    memset(&stack, 0, sizeof stack);
    stack.ss_sp = alternate_stack;
    stack.ss_size = sizeof alternate_stack;
    stack.ss_flags = 0;
    (void)sigaltstack(&stack, NULL);
}

static void restore_terminal(void) {
    /* Reset attributes, leave the alternate screen, show the cursor, stop focus reports, turn
       keypad transmit mode off (the arrows send their usual codes to the shell again). */
    static const char reset[] = "\033[0m\033[?1049l\033[?25h\033[?1004l\033[?2004l\033[?1l\033>\r\n";
    (void)tcsetattr(STDIN_FILENO, TCSANOW, &saved_modes);
    ssize_t written = write(STDOUT_FILENO, reset, sizeof reset - 1);
    (void)written;
}

static void on_fatal_signal(int signal_number) {
    for (int i = 0; i < GUARDED_COUNT; i++) {
        if (guarded[i] != signal_number) continue;
        if (armed) {
            armed = 0;
            restore_terminal();
        }
        (void)sigaction(signal_number, &previous[i], NULL);
        if (signal_number == SIGABRT || signal_number == SIGTRAP) (void)raise(signal_number);
        return;
    }
}

int spotter_terminal_guard_install(void) {
    if (tcgetattr(STDIN_FILENO, &saved_modes) != 0) return -1;
    install_alternate_stack();
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_fatal_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_NODEFER | SA_ONSTACK;
    for (int i = 0; i < GUARDED_COUNT; i++) (void)sigaction(guarded[i], &action, &previous[i]);
    armed = 1;
    return 0;
}

void spotter_terminal_guard_remove(void) {
    if (!armed) return;
    armed = 0;
    for (int i = 0; i < GUARDED_COUNT; i++) (void)sigaction(guarded[i], &previous[i], NULL);
}

/* The debug switch's stack overflow: each call holds 16 KiB, so the stack runs out after a few
   hundred frames and the backtrace that follows stays short. */
int spotter_debug_overflow_stack(int depth) {
    volatile char frame[16384];
    frame[0] = (char)depth;
    frame[sizeof frame - 1] = (char)depth;
    return spotter_debug_overflow_stack(depth + 1) + frame[0] + frame[sizeof frame - 1];
}
