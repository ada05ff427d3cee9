#!/usr/bin/env bash
# bench-host's partition scenario by hand, with every CPU accounted for: three VMs of two hogs
# in /capped (weight 200, cpu.max "100000 100000") beside `free` (two hogs, /machine, weight
# 100) on `vsched host --cpus 2`; after 1 s, over SECONDS (default 5), per thread class from
# /proc/PID/task/TID/schedstat: CPU (of one CPU), run-queue wait, and switches per second;
# each CPU's idle from /proc/stat (10 ms ticks); what the daemon charged /capped (cpu.stat).
# Whatever the rows do not add up to (of 2) is other work on the host. Needs FUSE.
# usage: bench/host_part.sh [path/to/vsched] [thread|kvm] [SECONDS]
set -u
V=$(readlink -f "${1:-build/vsched}")
accel=${2:-thread}
secs=${3:-5}
. "$(dirname "$0")/host_lib.sh"
host_start host-part
H=$VSCHED_RUN_DIR/host
echo +cpu >"$H/cgroup.subtree_control" 2>/dev/null
mkdir -p "$H/capped" "$H/machine"
echo 200 >"$H/capped/cpu.weight"
echo "100000 100000" >"$H/capped/cpu.max"
echo 100 >"$H/machine/cpu.weight"
declare -A vp
for vm in c1 c2 c3 free; do
	p=/capped
	[ $vm = free ] && p=/machine
	"$V" run --host --accel "$accel" --name $vm --partition $p --weight 100 --vcpus 2 \
		--payload hog --no-ctl --duration "$((secs + 4))s" >"$tmp/$vm.log" 2>&1 &
	vp[$vm]=$!
	pids="$pids $!"
done
for i in $(seq 100); do [ -d "$H/machine/free" ] && [ -d "$H/capped/c3" ] && break; sleep 0.05; done
sleep 1
# One line per thread or counter: class, ns on a CPU, ns waiting to run, switches.
snap() {
	local vm t c k g r w n u
	for vm in c1 c2 c3 free; do
		g=capped
		[ $vm = free ] && g=free
		for t in /proc/${vp[$vm]}/task/*; do
			c=$(<"$t/comm")
			read -r r w n <"$t/schedstat"
			case $c in vcpu*) k=vcpu ;; *) k=$c ;; esac
			echo "$g.$k $r $w $n"
		done
	done
	for t in /proc/$dpid/task/*; do
		read -r r w n <"$t/schedstat"
		echo "daemon $r $w $n"
	done
	awk '/^cpu[0-9]/ { printf "idle.%s %.0f 0 0\n", $1, $5 * 10000000 }' /proc/stat
	read -r _ u < <(grep usage_usec "$H/capped/cpu.stat")
	echo "capped.charged $((u * 1000)) 0 0"
	echo "wall $(date +%s%N) 0 0"
}
sum() { awk '{ a[$1] += $2; b[$1] += $3; c[$1] += $4 }
	END { for (k in a) printf "%s %.0f %.0f %.0f\n", k, a[k], b[k], c[k] }' "$1"; }
snap >"$tmp/s0"
sleep "$secs"
snap >"$tmp/s1"
awk 'NR == FNR { r[$1] -= $2; w[$1] -= $3; n[$1] -= $4; next }
	{ r[$1] += $2; w[$1] += $3; n[$1] += $4 }
	END { T = r["wall"]
	      for (k in r) if (k != "wall") {
		printf "%-20s %7.4f CPU  wait %6.4f  switches/s %5.0f\n", k, r[k] / T, w[k] / T,
		       n[k] * 1e9 / T
		if (k != "capped.charged") s += r[k] / T
	      }
	      printf "%-20s %7.4f CPU\n", "other (2 - the rest)", 2 - s }' \
	<(sum "$tmp/s0") <(sum "$tmp/s1") | sort
