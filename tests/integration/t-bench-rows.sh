#!/usr/bin/env bash
# bench-fair -n: every fairness scenario's groups (as the vsched side makes them through the
# launch specs) and its fluid ideal can be made, so `make bench` produces every row. The idle
# row failed in every make bench from fdd1cfb (--group refused its weight beside idle=1) while
# the bench exited 0. Nothing is timed here.
set -u
bench=$(dirname "$VSCHED")/bench-fair
[ -x "$bench" ] || { echo "no $bench (make check builds the benches first)"; exit 77; }
out=$("$bench" -n 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] || { echo "FAIL: bench-fair -n exit $rc"; exit 1; }
# One line per scenario of bench/scenario.c, none failed.
want=$(grep -c '\.name = "' "$(dirname "$0")/../../bench/scenario.c")
got=$(grep -c ': groups and ideal ok$' <<<"$out")
[ "$got" = "$want" ] || { echo "FAIL: $got of $want scenarios ok"; exit 1; }
echo "PASS: $got scenarios"
