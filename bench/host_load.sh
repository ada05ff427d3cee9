#!/usr/bin/env bash
# Issue 17's split beside host load: `vsched host --cpus 2`, two VMs of four hogs (ACCEL),
# cpu.weight 200:100, LOOPS nice-0 busy loops beside, SECONDS (default 8) sampled every 50 ms:
# each VM's charged usage (the daemon's cpu.stat), its vCPUs' state and lane (the daemon's
# vsched.vcpu.stat) and their threads' CPU time (/proc/PID/task/TID/schedstat: what ran). The
# reads are the shell's own (mapfile, no fork). Prints, per disjoint 2 s window, a/b of the
# charged rates and of the threads' CPU time, and the CPUs both VMs got; the longest stretch in
# which b's charge did not grow and in which b held no lane. OUT.samples keeps the samples.
# usage: bench/host_load.sh [path/to/vsched] [thread|kvm] [LOOPS] [SECONDS] [OUT]
set -u
V=$(readlink -f "${1:-build/vsched}")
accel=${2:-thread}
loops=${3:-1}
secs=${4:-8}
out=${5:-/tmp/host_load}
. "$(dirname "$0")/host_lib.sh"
host_start host-load
H=$VSCHED_RUN_DIR/host/machine
for i in $(seq "$loops"); do
	nice -n 0 bash -c 'while :; do :; done' &
	pids="$pids $!"
done
for vm in a b; do
	"$V" run --host --accel "$accel" --name $vm --vcpus 4 --payload hog \
		--duration "$((secs + 2))s" >"$out.$vm.log" 2>&1 &
	pids="$pids $!"
	eval "pid_$vm=$!"
done
for i in $(seq 200); do
	[ -e "$H/a/vsched.vcpu.stat" ] && [ -e "$H/b/vsched.vcpu.stat" ] && break
	sleep 0.05
done
echo 200 >"$H/a/cpu.weight"
sleep 0.7
declare -A tids
for vm in a b; do
	mapfile -t l <"$H/$vm/vsched.vcpu.stat"
	t=""
	for x in "${l[@]}"; do x=${x#*tid=}; t="$t ${x%% *}"; done
	tids[$vm]=$t
done
# A line: time (us), then per VM: its name, usage_usec, state:lane:usage of each vCPU,
# "real" and its threads' CPU time (us).
end=$((${EPOCHREALTIME/./} + secs * 1000000))
: >"$out.samples"
while now=${EPOCHREALTIME/./}; [ "$now" -le $end ]; do
	line=$now
	for vm in a b; do
		mapfile -t l <"$H/$vm/cpu.stat"
		line="$line $vm ${l[0]#usage_usec }"
		mapfile -t l <"$H/$vm/vsched.vcpu.stat"
		for x in "${l[@]}"; do
			s=${x#*state=} ln=${x#*lane=} u=${x#*usage_usec=}
			line="$line ${s%% *}:${ln%% *}:${u%% *}"
		done
		pid=pid_$vm real=0
		for t in ${tids[$vm]}; do
			read -r r _ <"/proc/${!pid}/task/$t/schedstat" && real=$((real + r / 1000))
		done
		line="$line real $real"
	done
	echo "$line" >>"$out.samples"
	sleep 0.05
done
wait "$pid_a" "$pid_b"
awk -v accel="$accel" -v loops="$loops" '
{ t[NR] = $1; ua[NR] = $3; ra[NR] = $9; ub[NR] = $11; rb[NR] = $17
  held = 0; for (k = 12; k <= 15; k++) { split($k, f, ":"); if (f[2] >= 0) held++ }
  nolane[NR] = !held }
END {
	n = NR; i = 1
	for (j = 2; j <= n; j++) if (t[j] - t[i] >= 2000000) {
		w = t[j] - t[i]; a = (ua[j] - ua[i]) / w; b = (ub[j] - ub[i]) / w
		A = (ra[j] - ra[i]) / w; B = (rb[j] - rb[i]) / w
		ws = ws sprintf(" %.2f", b > 0 ? a / b : 99); rs = rs sprintf(" %.2f", B > 0 ? A / B : 99)
		gs = gs sprintf(" %.2f", a + b); i = j
	}
	st = 1; for (i = 2; i <= n; i++) { if (ub[i] > ub[st]) st = i; else if (t[i] - t[st] > stall) stall = t[i] - t[st] }
	st = 0; for (i = 1; i <= n; i++) if (nolane[i]) { if (!st) st = i; if (t[i] - t[st] > none) none = t[i] - t[st] } else st = 0
	printf "%s, %d busy loops: 2 s windows a/b charged%s; threads%s; CPUs got%s; " \
	       "b charged nothing for %d ms, held no lane for %d ms\n",
	       accel, loops, ws, rs, gs, stall / 1000, none / 1000
}' "$out.samples"
