#!/usr/bin/env bash
# Concurrent use of a running VM's control directory (8 vCPUs, light duty-cycle guests):
# writers (each checking its write is visible at once), readers (each checking every read is one
# whole, well-formed snapshot), vCPU movers and mkdir/rmdir churn, all at the same time, 20 s on
# every backend. Then the directory must still answer (no deadlock) and stop cleanly.
# STRESS_SECONDS overrides the duration per backend.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ctl-lib.sh"
ctl_require_fuse
ctl_tmp
secs=${STRESS_SECONDS:-20}
R=$TMPD/res

# Writer of gI/cpu.weight: every accepted write must read back at once.
weight_writer() {
	local f=g$1/cpu.weight n=0 bad=0 w got end=$((SECONDS + secs))
	while [ $SECONDS -lt $end ]; do
		w=$((RANDOM % 10000 + 1))
		echo $w >$f || bad=$((bad + 1))
		read -r got <$f
		[ "$got" = "$w" ] || { bad=$((bad + 1)); echo "weight $f: wrote $w read $got"; }
		n=$((n + 1))
	done
	echo "$n $bad" >"$R/weight$1"
}

# Writer of gI/cpu.max with quota = 2 * period; a reader checks that invariant (no mix of two
# writes) and this writer checks read-after-write.
max_writer() {
	local f=g$1/cpu.max n=0 bad=0 p got end=$((SECONDS + secs))
	while [ $SECONDS -lt $end ]; do
		p=$((RANDOM % 999 * 1000 + 1000))
		echo "$((2 * p)) $p" >$f || bad=$((bad + 1))
		read -r got <$f
		[ "$got" = "$((2 * p)) $p" ] || { bad=$((bad + 1)); echo "max $f: wrote $((2 * p)) $p read $got"; }
		n=$((n + 1))
	done
	echo "$n $bad" >"$R/max$1"
}

# Reader: whole snapshots only. cpu.stat must have its 9 keys in order; cpu.max must hold
# the invariant; cgroup.stat its 4 keys.
reader() {
	local n=0 bad=0 s q p end=$((SECONDS + secs)) keys
	keys="usage_usec user_usec system_usec nice_usec nr_periods nr_throttled throttled_usec nr_bursts burst_usec"
	while [ $SECONDS -lt $end ]; do
		for i in 1 2 3; do
			s=$(cut -d' ' -f1 g$i/cpu.stat | tr '\n' ' ')
			[ "$s" = "$keys " ] || { bad=$((bad + 1)); echo "torn cpu.stat: $s"; }
			read -r q p <g$i/cpu.max
			[ "$q" = max ] || [ "$q" = $((2 * p)) ] || { bad=$((bad + 1)); echo "torn cpu.max: $q $p"; }
			s=$(cat cgroup.stat | wc -l)
			[ "$s" = 4 ] || { bad=$((bad + 1)); echo "cgroup.stat lines: $s"; }
			n=$((n + 3))
		done
	done
	echo "$n $bad" >"$R/reader$1"
}

# Mover: vCPUs between the threaded groups and the root; the union must stay all 8 vCPUs.
mover() {
	local n=0 bad=0 v g end=$((SECONDS + secs)) all
	while [ $SECONDS -lt $end ]; do
		v=$((RANDOM % 8))
		g=$((RANDOM % 4))
		if [ $g = 0 ]; then echo $v >vsched.vcpus; else echo $v >g$g/vsched.vcpus; fi ||
			{ bad=$((bad + 1)); echo "move $v to $g failed"; }
		n=$((n + 1))
	done
	all=$(cat cgroup.threads g1/cgroup.threads g2/cgroup.threads g3/cgroup.threads | sort -n | tr '\n' ' ')
	[ "$all" = "$(vcpu_tids "$HPID" | sort -n | tr '\n' ' ')" ] || { bad=$((bad + 1)); echo "vCPUs lost: $all"; }
	echo "$n $bad" >"$R/mover"
}

# Churn: groups made, written, listed and removed.
churn() {
	local n=0 bad=0 end=$((SECONDS + secs))
	while [ $SECONDS -lt $end ]; do
		mkdir c$1 && echo 42 >c$1/cpu.weight && ls c$1 >/dev/null && rmdir c$1 ||
			{ bad=$((bad + 1)); echo "churn c$1 failed"; }
		n=$((n + 1))
	done
	echo "$n $bad" >"$R/churn$1"
}

# The VM, its directory mounted, its groups g1..g3 threaded.
vm_start() {
	vm_up "$1" stress 8 --payload duty:1000/9000 || exit 1
	HPID=$VPID
	echo "$1: driving the control directory of a running VM (pid $HPID)"
	cd "$D" || exit 1
	for i in 1 2 3; do
		mkdir g$i
		echo threaded >g$i/cgroup.type
	done
	rm -rf "$R"
	mkdir -p "$R"
}

for accel in $(test_accels); do
	vm_start "$accel"
	pids=""
	for i in 1 2 3; do weight_writer $i & pids="$pids $!"; done
	for i in 1 2; do max_writer $i & pids="$pids $!"; done
	for i in 1 2; do reader $i & pids="$pids $!"; done
	mover & pids="$pids $!"
	for i in 1 2; do churn $i & pids="$pids $!"; done

	# No deadlock: while they run, the directory keeps answering within a generous bound.
	sleep $((secs / 2))
	if timeout 10 cat cgroup.stat >/dev/null; then ok "answers under load"; else bad "no answer under load"; fi
	for p in $pids; do wait "$p"; done

	total=0
	for f in "$R"/*; do
		read -r n b <"$f"
		total=$((total + n))
		if [ "$b" = 0 ] && [ "$n" -gt 0 ]; then ok "$(basename "$f"): $n operations, all consistent"; else
			bad "$(basename "$f"): $n operations, $b inconsistent"; fi
	done
	echo "total operations in ${secs}s: $total"
	if timeout 10 cat g1/cpu.weight >/dev/null; then ok "answers after the run"; else bad "hung after the run"; fi
	if kill -0 "$HPID"; then ok "server alive"; else bad "server died"; fi
	cd /
	kill -TERM "$HPID"
	if timeout 15 tail --pid="$HPID" -f /dev/null; then ok "stops cleanly"; else bad "did not stop"; fi
	wait "$HPID" 2>/dev/null
done

ctl_finish
