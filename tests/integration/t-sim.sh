#!/usr/bin/env bash
# `vsched sim` on every example scenario: each runs, prints the report, and stays within the
# accuracy bound its name promises (0.1 % of capacity for hog-only scenarios, 0.5 % otherwise).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir="$here/../../sim/scenarios"
n=0
for f in "$dir"/*.sim; do
	err=$("$VSCHED" sim --quiet "$f")
	bound=0.1
	grep -qE 'duty|bursty' "$f" && bound=0.5
	awk -v e="$err" -v b="$bound" 'BEGIN { exit !(e <= b) }' ||
		{ echo "$(basename "$f"): error $err % > $bound %"; exit 1; }
	"$VSCHED" sim "$f" | grep -q '^max group error vs the fluid ideal'
	n=$((n + 1))
done
[ "$n" -ge 12 ] || { echo "only $n scenarios"; exit 1; }
# Bad input: a clear error and exit status 1; usage errors exit 2.
printf 'lanes 0\n' > /tmp/vsched-t-sim.$$
if "$VSCHED" sim /tmp/vsched-t-sim.$$ 2>/tmp/vsched-t-sim.err.$$; then exit 1; fi
grep -q 'line 1: lanes must be' /tmp/vsched-t-sim.err.$$
# Input that is no scenario (issue 18 item 12): refused naming the file, exit status 1.
head -c 4096 "$VSCHED" > /tmp/vsched-t-sim.$$
for f in /dev/zero /dev/null /tmp/vsched-t-sim.$$ /tmp; do
	if "$VSCHED" sim "$f" 2>/tmp/vsched-t-sim.err.$$; then echo "$f: accepted"; exit 1; fi
	grep -qE "^vsched sim: $f: (line [0-9]+: .*not a scenario|Is a directory)\$" \
		/tmp/vsched-t-sim.err.$$ || { cat /tmp/vsched-t-sim.err.$$; exit 1; }
done
# A bursty gap of 1 ns drew 0 (branch audit7): the run never left its first instant.
printf 'duration 10ms\nvcpu 0 / bursty 1ns 1ns\nvcpu 1 / hog\n' > /tmp/vsched-t-sim.$$
timeout 60 "$VSCHED" sim --quiet /tmp/vsched-t-sim.$$ >/dev/null || { echo "bursty 1ns 1ns"; exit 1; }
# A report lost to a full disk exited 0.
if "$VSCHED" sim "$dir/flat.sim" >/dev/full 2>/tmp/vsched-t-sim.err.$$; then
	echo "report to /dev/full: exit 0"; exit 1
fi
grep -q '^vsched sim: writing the report: ' /tmp/vsched-t-sim.err.$$
# --trace naming the scenario replaced it with the trace (branch newuser2): refused, file intact.
cp "$dir/flat.sim" /tmp/vsched-t-sim.$$
if "$VSCHED" sim -q --trace /tmp/../tmp/vsched-t-sim.$$ /tmp/vsched-t-sim.$$ >/dev/null \
	2>/tmp/vsched-t-sim.err.$$; then
	echo "--trace the scenario: exit 0"; exit 1
fi
grep -q "is the scenario file: it would be overwritten" /tmp/vsched-t-sim.err.$$ &&
	cmp -s "$dir/flat.sim" /tmp/vsched-t-sim.$$ || { echo "--trace the scenario"; exit 1; }
rm -f /tmp/vsched-t-sim.$$ /tmp/vsched-t-sim.err.$$
set +e
"$VSCHED" sim >/dev/null 2>&1
[ $? -eq 2 ] || exit 1
echo "ok: $n scenarios"
