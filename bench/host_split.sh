#!/usr/bin/env bash
# Two VMs joined to `vsched host --cpus 2`, four hogs each (thread backend unless ACCEL says),
# cpu.weight 200:100 on their groups: the CPU split over SECONDS (default 10) from the daemon's
# cpu.stat, against the ideal 2:1 of the capacity the two VMs got. Needs FUSE.
# usage: bench/host_split.sh [path/to/vsched] [SECONDS]
set -u
V=$(readlink -f "${1:-build/vsched}")
secs=${2:-10}
accel=${ACCEL:-thread}
tmp=$(mktemp -d /tmp/vsched-host-split.XXXXXX)
export VSCHED_RUN_DIR=$tmp/run
H=$VSCHED_RUN_DIR/host/machine
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	grep -o " $tmp[^ ]*" /proc/self/mounts | while read -r m; do umount -l "$m"; done
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$VSCHED_RUN_DIR"
"$V" host --cpus 2 2>"$tmp/host.log" &
pids=$!
for i in $(seq 100); do [ -e "$VSCHED_RUN_DIR/host/cgroup.procs" ] && break; sleep 0.05; done
for vm in a b; do
	"$V" run --host --accel "$accel" --name $vm --vcpus 4 --payload hog \
		--duration "$((secs + 3))s" >/dev/null 2>&1 &
	pids="$pids $!"
done
for i in $(seq 100); do [ -d "$H/a" ] && [ -d "$H/b" ] && break; sleep 0.05; done
echo 200 >"$H/a/cpu.weight"
sleep 1
use() { sed -n 's/^usage_usec //p' "$H/$1/cpu.stat"; }
a0=$(use a) b0=$(use b) t0=$(date +%s%N)
sleep "$secs"
a1=$(use a) b1=$(use b) t1=$(date +%s%N)
awk -v a=$((a1 - a0)) -v b=$((b1 - b0)) -v w=$(((t1 - t0) / 1000)) 'BEGIN {
	got = (a + b) / w
	printf "weights 200:100, 2 lanes, %.1f s: a %.3f CPUs, b %.3f CPUs (%.3f of 2 delivered)\n",
	       w / 1e6, a / w, b / w, got
	printf "a/b = %.3f; a'"'"'s share %.2f %% of what both got (ideal 66.67 %%), " \
	       "error %+.2f %% of capacity\n",
	       a / b, 100 * a / (a + b), 100 * (a / w - 2 * got / 3) / 2
}'
