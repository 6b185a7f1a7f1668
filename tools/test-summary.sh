#!/bin/bash
# The one summary of a `swift test` run, for `make test` and `make test-trixie`: reads the
# XCTest log and the run's exit status, prints "N passed, N failed" (in tests: XCTest counts
# failed assertions, several in one test) and exits with the run's status.
#
# A run whose test process died (a crash, a signal) has no closing "Executed N tests" line
# for the whole run, only those of the suites that finished before it: then the summary says
# the run crashed, in which test, and what passed and failed before it, and exits non-zero
# even if the status says otherwise.
#
# Usage: tools/test-summary.sh LOG STATUS
set -u
log=$1
status=${2:-1}
[ -r "$log" ] || { echo "test summary: no test log at $log"; exit "$((status == 0 ? 1 : status))"; }

passed=$(grep -oE "^Test Case '[^']+' passed" "$log" | sort -u | wc -l)
failed=$(grep -oE "^Test Case '[^']+' failed" "$log" | sort -u | wc -l)
# The run's own closing lines: its top suite ("All tests", or "Selected tests" with a
# filter) ended, and XCTest's count right after it.
finished=$(grep -A1 -E "^Test Suite '(All|Selected) tests' (passed|failed) at" "$log" \
    | grep -E "Executed [0-9]+ tests?, with [0-9]+ failures?" | tail -1)

if [ -n "$finished" ]; then
    echo "$passed passed, $failed failed"
    exit "$status"
fi

if ! grep -q "^Test Suite '" "$log"; then
    echo "test summary: no test ran (see $log)"
    exit "$((status == 0 ? 1 : status))"
fi

# The last test that started and never ended is the one the process died in.
running=$(awk '
    /^Test Case .* started/ { split($0, q, "\047"); open = q[2] }
    /^Test Case .* (passed|failed) \(/ { split($0, q, "\047"); if (q[2] == open) open = "" }
    END { print open }' "$log")
signal=$(grep -oE "(Fatal error: .*|exited with (unexpected )?signal code [0-9]+)" "$log" | head -2 | paste -sd ';' - | sed 's/;/; /')
echo "CRASHED: the test process died${running:+ in $running}${signal:+ ($signal)}; $passed passed, $failed failed before it"
exit "$((status == 0 ? 1 : status))"
