#!/usr/bin/env bash
# caps_classes.sh [BUILD]: every seed of `make fuzz-sim`'s caps kinds (4: periods of 100 ms and
# more, 5: of 10 ms and more, 6: small capped trees; KINDS="4 5" for fewer) over the 0.5 % bound,
# classed by what its report shows (docs/scheduler.md §10), one line each, then the counts per
# kind and class. BUILD is the build folder holding fuzz-sim and vsched (default: build).
# Classes, first match:
#   ref-idles   the root is over the reference by 0.5 % of capacity or more: the core spent a
#               pool later and on fewer lanes than the weighted share (the reference, idle
#               only where a pool is dry, is work-conserving at every instant: §8)
#   lanes-idle  the root is under the reference by 0.5 % or more: lanes idle that it uses
#   idle-child  the worst group is a cpu.idle group (or below one) that got more than owed:
#               a group holding more lanes than its rate took another for it
#   one-lane    one lane: a capped group's turn comes once per rotation of its siblings
#   rest        none of these
set -u
B=${1:-build}
KINDS=${KINDS:-4 5 6}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for k in $KINDS; do
	"$B/fuzz-sim" --kind $k --list | awk '/^  seed/ && $3 > 0.5 { sub(":", "", $2); print $2 }' |
	while read -r s; do
		"$B/fuzz-sim" --kind $k --first "$s" --seeds 1 --worst | sed 1,2d >"$tmp/s.sim"
		"$B/vsched" sim "$tmp/s.sim" >"$tmp/r.txt" || exit 1
		awk -v k=$k -v seed="$s" '
		/^simulated/ { lanes = $5; cap = $(NF - 1) * 1000 }
		/^group +weight/ { g = 1; next }
		g && NF == 0 { g = 0 }
		g && NF >= 7 {
			e = ($(NF - 2) - $(NF - 1)) / cap * 100; idle[$1] = $(NF - 3)
			if ($1 == "/") { root = e; next }
			if ((e < 0 ? -e : e) > (w < 0 ? -w : w)) { w = e; wp = $1 }
		}
		END {
			under_idle = 0; p = wp
			while (p != "") { if (idle[p] == 1) under_idle = 1; sub("/[^/]*$", "", p) }
			if (root >= 0.5) c = "ref-idles"
			else if (root <= -0.5) c = "lanes-idle"
			else if (under_idle && w > 0) c = "idle-child"
			else if (lanes == 1) c = "one-lane"
			else c = "rest"
			printf "kind %s seed %-5s %6.3f %% lanes %-2s root %+6.3f %% worst %s %+.3f %% %s\n",
			       k, seed, w < 0 ? -w : w, lanes, root, wp, w, c
		}' "$tmp/r.txt"
	done
done | tee "$tmp/all"
echo "counts:"
awk '{ n["kind " $2 " " $NF]++; t["kind " $2]++ } END {
	for (x in n) print "  " x, n[x]; for (x in t) print "  " x " total", t[x] }' "$tmp/all" |
	sort
