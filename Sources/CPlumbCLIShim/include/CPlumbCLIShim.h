// The `plumb` and `plumb-serve` executables' shim: only what Swift cannot do. Every symbol is prefixed `plumb_`.
#pragma once
#include <signal.h>

/// The stop signals `plumb` catches from its first instruction on: SIGINT, SIGTERM, SIGHUP,
/// SIGUSR1 and SIGUSR2.
///
/// Why C: a function in the executable's `.preinit_array` installs the handler, and the
/// loader runs it before the initializers of every shared library (GLib, GStreamer, the
/// Swift runtime, Foundation) and before `main` — Swift cannot put a function there, and a
/// signal handler must be async-signal-safe, which Swift code does not promise. Blocking the
/// signals instead would not do: an async `main` parks the main thread in libdispatch's
/// `sigsuspend` with an empty mask, where a signal without a handler kills the process.
sigset_t plumb_caught_signals(void);

/// The read end of the pipe the handler writes each caught signal's number to (one byte
/// per signal, in arrival order; non-blocking, close-on-exec), or -1 when the pipe could
/// not be made at start (the signals then kept their default action).
int plumb_signal_inbox(void);

/// Replaces the program with `path` (execv) with the stop signals held: blocked over the
/// exec, and those already caught raised again, so they wait, pending, for the new program's
/// own handler (its `.preinit_array` unblocks them) instead of killing it while it loads.
/// Returns only on failure: errno, with the signals as they were.
int plumb_exec_holding_signals(const char *path, char *const argv[]);
