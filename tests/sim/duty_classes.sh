#!/usr/bin/env bash
# duty_classes.sh [BUILD] [KIND] [LIST]: every seed of a `make fuzz-sim` duty kind (2: duty and bursty
# vCPUs beside hogs on 1-16 lanes, the default; 3: work every 10 ms and more) over the 0.5 %
# bound, classed by what its report shows (docs/scheduler.md §10), one line each, then the
# counts per class. BUILD is the build folder holding fuzz-sim and vsched (default: build); LIST,
# a file holding `fuzz-sim --kind KIND --list` output, saves running every seed again.
# Classes, first match:
#   lanes-idle  the root is under the reference by 0.5 % of capacity or more: lanes idle while
#               the reference keeps them busy (a vCPU owed nearly a CPU lost service it can
#               never make up, or a waker's work was done sooner than GPS does it)
#   ref-idles   the root is over the reference by 0.5 % or more
#   idle-child  the worst group is a cpu.idle group (or below one) that got more than owed
#   split       the worst group's top-level ancestor is within half the worst error: the
#               error is a split inside a group whose total is right
#   top         none of these: a top-level group's total is wrong
# Each line also gives the shortest duty or bursty period of the scenario (ms).
set -u
B=${1:-build}
K=${2:-2}
L=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{ if [ -n "$L" ]; then cat "$L"; else "$B/fuzz-sim" --kind "$K" --list; fi; } | awk '/^  seed/ && $3 > 0.5 { sub(":", "", $2); print $2 }' |
while read -r s; do
	"$B/fuzz-sim" --kind "$K" --first "$s" --seeds 1 --worst | sed 1,2d >"$tmp/s.sim"
	"$B/vsched" sim "$tmp/s.sim" >"$tmp/r.txt" || exit 1
	per=$(awk '$1 == "vcpu" && ($4 == "duty" || $4 == "bursty") {
		p = $6; sub("us", "", p); if (m == "" || p + 0 < m) m = p + 0 }
		END { printf "%.2f", m / 1000 }' "$tmp/s.sim")
	awk -v seed="$s" -v per="$per" '
	/^simulated/ { lanes = $5; cap = $(NF - 1) * 1000 }
	/^group +weight/ { g = 1; next }
	g && NF == 0 { g = 0 }
	g && NF >= 7 {
		e = ($(NF - 2) - $(NF - 1)) / cap * 100; idle[$1] = $(NF - 3); err[$1] = e
		if ($1 == "/") { root = e; next }
		if ((e < 0 ? -e : e) > (w < 0 ? -w : w)) { w = e; wp = $1 }
	}
	END {
		under_idle = 0; p = wp
		while (p != "") { if (idle[p] == 1) under_idle = 1; top = p; sub("/[^/]*$", "", p) }
		t = err[top]; aw = w < 0 ? -w : w
		if (root <= -0.5) c = "lanes-idle"
		else if (root >= 0.5) c = "ref-idles"
		else if (under_idle && w > 0) c = "idle-child"
		else if ((t < 0 ? -t : t) < aw / 2) c = "split"
		else c = "top"
		printf "seed %-5s %6.3f %% lanes %-2s root %+6.3f %% worst %s %+.3f %% period %s ms %s\n",
		       seed, aw, lanes, root, wp, w, per, c
	}' "$tmp/r.txt"
done | tee "$tmp/all"
echo "counts:"
awk '{ n[$NF]++; t++ } END { for (x in n) print "  " x, n[x]; print "  total", t }' "$tmp/all" | sort
