#!/usr/bin/env bash
# Two VMs joined to `vsched host --cpus 2`, four hogs each (thread backend unless ACCEL says),
# cpu.weight 200:100 on their groups: the CPU split over SECONDS (default 10) from the daemon's
# cpu.stat, against the ideal 2:1 of the capacity the two VMs got. Needs FUSE.
# usage: bench/host_split.sh [path/to/vsched] [SECONDS]
set -u
V=$(readlink -f "${1:-build/vsched}")
secs=${2:-10}
accel=${ACCEL:-thread}
. "$(dirname "$0")/host_lib.sh"
host_start host-split
H=$VSCHED_RUN_DIR/host/machine
for vm in a b; do
	"$V" run --host --accel "$accel" --name $vm --vcpus 4 --payload hog \
		--duration "$((secs + 3))s" >/dev/null 2>&1 &
	pids="$pids $!"
done
for i in $(seq 100); do [ -d "$H/a" ] && [ -d "$H/b" ] && break; sleep 0.05; done
echo 200 >"$H/a/cpu.weight"
sleep 1
# use NAME: U, usage_usec of NAME, and T, when it was read (us), by the shell itself: each VM's
# CPU time over its own window (with $(...) reads, a's began a fork and a read before b's; see
# tests/integration/t-host.sh's usage_at). A read of 10 ms or more is made again, up to 10 times.
use() {
	local i l r0 r1
	for i in 1 2 3 4 5 6 7 8 9 10; do
		r0=${EPOCHREALTIME/./}
		mapfile -t l <"$H/$1/cpu.stat"
		r1=${EPOCHREALTIME/./}
		[ $((r1 - r0)) -lt 10000 ] && break
	done
	U=${l[0]#usage_usec } T=$(((r0 + r1) / 2))
}
use a; a0=$U ta0=$T
use b; b0=$U tb0=$T
sleep "$secs"
use a; a1=$U ta1=$T
use b; b1=$U tb1=$T
awk -v a=$((a1 - a0)) -v b=$((b1 - b0)) -v wa=$((ta1 - ta0)) -v wb=$((tb1 - tb0)) 'BEGIN {
	ra = a / wa; rb = b / wb; got = ra + rb
	printf "weights 200:100, 2 lanes, %.1f s: a %.3f CPUs, b %.3f CPUs (%.3f of 2 delivered)\n",
	       wa / 1e6, ra, rb, got
	printf "a/b = %.3f; a'"'"'s share %.2f %% of what both got (ideal 66.67 %%), " \
	       "error %+.2f %% of capacity\n",
	       ra / rb, 100 * ra / got, 100 * (ra - 2 * got / 3) / 2
}'
