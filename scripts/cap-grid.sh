#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A grid of simple capped trees (docs/scheduler.md §10, "A cap the reference never reaches"):
# on L = 2..4 lanes, /a (weight 5000, one hog per lane) capped at f x n lanes per period
# (f 0.9-0.99, n 1..L, periods 1, 10, 100 ms) beside two root hogs and /b's hog, 1 s each.
# Prints "L weight period f n" and the max group error (% of capacity) of each vsched given:
#   scripts/cap-grid.sh build/vsched [OTHER-VSCHED...]
[ $# -ge 1 ] || { echo "usage: $0 VSCHED [VSCHED...]" >&2; exit 2; }
T=$(mktemp)
trap 'rm -f $T' EXIT
for L in 2 3 4; do for per in 1000 10000 100000; do for n in $(seq 1 $L); do
	for f in 0.9 0.95 0.97 0.99; do
		q=$(awk "BEGIN { printf \"%d\", $f * $n * $per }")
		[ "$q" -lt 1000 ] && continue
		{ echo "lanes $L"; echo "duration 1s"
		  echo "group /a weight 5000 max ${q}us ${per}us"; echo "group /b"
		  for i in $(seq 0 $((L - 1))); do echo "vcpu $i /a hog"; done
		  echo "vcpu $L / hog"; echo "vcpu $((L + 1)) / hog"; echo "vcpu $((L + 2)) /b hog"
		} > "$T"
		line="$L 5000 $per $f $n"
		for B in "$@"; do
			line="$line $("$B" sim "$T" 2>&1 | awk '/max group error/ { print $(NF-3) }')"
		done
		echo "$line"
	done
done; done; done
