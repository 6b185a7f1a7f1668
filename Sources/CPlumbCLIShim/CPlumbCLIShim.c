// pipe2 is a GNU extension.
#define _GNU_SOURCE
#include "CPlumbCLIShim.h"
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

static int plumb_inbox[2] = {-1, -1};

sigset_t plumb_caught_signals(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGUSR2);
  return set;
}

int plumb_signal_inbox(void) { return plumb_inbox[0]; }

/// Async-signal-safe: one write(2). A full pipe (thousands of unread signals) drops the byte.
static void plumb_signal_caught(int number) {
  int saved = errno;
  unsigned char byte = (unsigned char)number;
  ssize_t ignored = write(plumb_inbox[1], &byte, 1);
  (void)ignored;
  errno = saved;
}

static void plumb_catch_signals_at_start(int argc, char **argv, char **envp) {
  (void)argc;
  (void)argv;
  (void)envp;
  if (pipe2(plumb_inbox, O_NONBLOCK | O_CLOEXEC) != 0) return;
  // Blocked while the handlers go in one by one: a signal sent once the first is installed
  // (the moment a watcher sees SigCgt change) must not meet the default action of the next.
  sigset_t set = plumb_caught_signals();
  sigprocmask(SIG_BLOCK, &set, NULL);
  struct sigaction action = {0};
  action.sa_handler = plumb_signal_caught;
  action.sa_flags = SA_RESTART;
  sigfillset(&action.sa_mask);
  for (int number = 1; number < NSIG; number++) {
    if (sigismember(&set, number) == 1) sigaction(number, &action, NULL);
  }
  // Unblocked also when a parent started us with them blocked (children of async Swift tests
  // are): a blocked signal would never reach the handler. What came meanwhile arrives now.
  sigprocmask(SIG_UNBLOCK, &set, NULL);
}

int plumb_exec_holding_signals(const char *path, char *const argv[]) {
  sigset_t set = plumb_caught_signals(), before;
  sigprocmask(SIG_BLOCK, &set, &before);
  // What the handler already caught is pending again, for the new program's handler.
  unsigned char byte;
  while (plumb_inbox[0] >= 0 && read(plumb_inbox[0], &byte, 1) == 1) raise(byte);
  execv(path, argv);
  int failure = errno;
  sigprocmask(SIG_SETMASK, &before, NULL);
  return failure;
}

// Only an executable may have a .preinit_array (this target is linked into `plumb` and
// `plumb-serve` alone, each of which gets its own).
__attribute__((section(".preinit_array"), used))
static void (*plumb_catch_signals_entry)(int, char **, char **) = plumb_catch_signals_at_start;
