#!/usr/bin/env bash
# The Rust tests on other days than today: the money of a day depends on the calendar (a charge
# due on a Saturday is due on the Monday; interest counts from the effective due date; plan
# steps after the due date count from it too), so a test that picks "30 days ago" or "in 2
# days" passes on most days and fails on the ones where that day is a weekend or a holiday.
# CI runs on whatever day it runs; this runs the suite as if it were each of the given instants
# (UTC), with libfaketime moving the clock of the test processes only (cargo and rustc keep
# the real one), and lists what failed on each.
#
#   tests/date-sweep.sh                       # a Friday, a Saturday, a Sunday, a Monday after a
#                                             # holiday Friday, Christmas Eve, Ash Wednesday
#   tests/date-sweep.sh 2027-03-01T02:50:00   # any instants (02:50 UTC is 23:50 in Brasília)
#   SWEEP_FILTER='binary(integration)' tests/date-sweep.sh   # a nextest filter
#
# Needs Debian's `faketime` package (apt-get install faketime). Not part of ./test.sh: each
# instant is a whole run of the suite. PostgreSQL keeps the real clock, so a test comparing
# the database's now() with the server's may differ under a moved clock. The tests that run
# cargo themselves (tidy's, the conformance fixture's build test) are left out: cargo hangs
# under libfaketime.
set -euo pipefail
cd "$(dirname "$0")/.."

library=/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1
if [ ! -e "$library" ]; then
  echo "tests/date-sweep.sh: needs libfaketime ($library): apt-get install faketime" >&2
  exit 1
fi
instants=("$@")
if [ ${#instants[@]} -eq 0 ]; then
  instants=(2026-12-11T14:00:00 2026-12-12T15:00:00 2026-12-13T14:00:00 2027-01-04T14:00:00
            2026-12-24T14:00:00 2027-02-10T13:00:00)
fi
filter=${SWEEP_FILTER:-"not test(tidy::) and not binary(models_follow_the_document)"}

# The test binaries run through a target runner that preloads the library; cargo itself (and
# the rustc it asks for its target directory) hangs under it.
runner=$(mktemp -d)/faketime-runner
cat > "$runner" <<EOF
#!/bin/sh
LD_PRELOAD=$library exec "\$@"
EOF
chmod +x "$runner"

cargo nextest run --workspace --locked --no-run --cargo-quiet
logs=$(mktemp -d)
failed=0
for instant in "${instants[@]}"; do
  offset=$(python3 -c 'import datetime as d, sys
t = d.datetime.fromisoformat(sys.argv[1]).replace(tzinfo=d.timezone.utc)
print("%+d" % (t - d.datetime.now(d.timezone.utc)).total_seconds())' "$instant")
  log="$logs/${instant//:/}.log"
  CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER=$runner FAKETIME=$offset \
    FAKETIME_DONT_FAKE_MONOTONIC=1 FAKETIME_DONT_RESET=1 \
    cargo nextest run --workspace --locked --no-fail-fast --cargo-quiet -E "$filter" > "$log" 2>&1 || true
  failures=$(grep -E '^\s+(FAIL|TIMEOUT) \[' "$log" | sed -E 's/.*\) //' | sort -u || true)
  if [ -n "$failures" ]; then
    failed=1
    echo "== $instant UTC: failed ($log)"
    echo "$failures" | sed 's/^/   /'
  else
    echo "== $instant UTC: $(grep -E '^\s+Summary' "$log" | sed -E 's/^\s+//')"
  fi
done
exit $failed
