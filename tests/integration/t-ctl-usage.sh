#!/usr/bin/env bash
# cpu.stat through the control directory against the kernel's own account of the vCPU threads
# (/proc/PID/task/TID/schedstat, nanoseconds of CPU time): per vCPU (vsched.vcpu.stat), per
# group (a vCPU moved into a group at a known point) and for the whole VM (root cpu.stat),
# each within 1 % (plus the CPU time that passes while reading); and a cpu.max write in effect.
# On every backend.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ctl-lib.sh"
if [ ! -c /dev/fuse ]; then
	echo "no /dev/fuse on this machine: control-directory tests need FUSE"
	exit 77
fi
ctl_tmp

# within LABEL VALUE LOW HIGH: LOW - 1 % <= VALUE <= HIGH + 1 %.
within() {
	local lo=$(($3 - $3 / 100)) hi=$(($4 + $4 / 100))
	if [ "$2" -ge "$lo" ] && [ "$2" -le "$hi" ]; then
		ok "$1: $2 us in [$3, $4] (+-1 %)"
	else
		bad "$1: $2 us outside [$lo, $hi]"
	fi
}

for accel in $(test_accels); do
	echo "== $accel"
	vm_up "$accel" usage 2 --payload hog || exit 1
	read -r t0 t1 < <(vcpu_tids "$VPID" | tr '\n' ' ')
	cpu_us() { echo $(($(cut -d' ' -f1 /proc/$VPID/task/$1/schedstat) / 1000)); }

	# vCPU 1 into group a; its CPU time at the move is a's zero.
	mkdir "$D/a"
	echo threaded >"$D/a/cgroup.type"
	m0=$(cpu_us "$t1")
	echo "$t1" >"$D/a/cgroup.threads"
	m1=$(cpu_us "$t1")
	sleep 3

	for v in 0 1; do
		t=$(eval echo \$t$v)
		grp=$([ $v = 1 ] && echo a || echo .)
		b=$(cpu_us "$t")
		u=$(sed -n "s/^$v tid=$t usage_usec=\([0-9]*\) .*/\1/p" "$D/$grp/vsched.vcpu.stat")
		a=$(cpu_us "$t")
		within "vCPU $v usage" "$u" "$b" "$a"
	done

	b=$(cpu_us "$t1")
	u=$(sed -n 's/^usage_usec //p' "$D/a/cpu.stat")
	a=$(cpu_us "$t1")
	within "group a usage since the move" "$u" $((b - m1)) $((a - m0))

	b=$(($(cpu_us "$t0") + $(cpu_us "$t1")))
	u=$(sed -n 's/^usage_usec //p' "$D/cpu.stat")
	a=$(($(cpu_us "$t0") + $(cpu_us "$t1")))
	within "root usage" "$u" "$b" "$a"
	# One snapshot: user + system = usage, give or take the 1 us that truncating each of the three
	# nanosecond sums separately loses (the kernel prints them the same way).
	snap=$(cat "$D/cpu.stat")
	u=$(echo "$snap" | sed -n 's/^usage_usec //p')
	us=$(echo "$snap" | awk '/^user_usec/ {s += $2} /^system_usec/ {s += $2} END {print s}')
	if [ "$us" -eq "$u" ] || [ "$us" -eq $((u - 1)) ]; then
		ok "user + system = usage (one read): $us us of $u"
	else
		bad "user + system = usage (one read): got $us, want $u or $((u - 1))"
	fi

	# A write takes effect at once: a 0.2-CPU cap on a (a hog vCPU) throttles within the next
	# periods, and a gets at most 0.2 CPU (+50 % for the first period and scheduling noise). On a
	# host loaded enough that the vCPU gets less than its quota in every period there is nothing
	# to throttle, so the window runs until the first throttle (at most 10 s); not throttled by
	# then is a failure only if a used more than the cap allows.
	echo "20000 100000" >"$D/a/cpu.max"
	u0=$(sed -n 's/^usage_usec //p' "$D/a/cpu.stat")
	w0=$(date +%s%N)
	sleep 2
	for _ in $(seq 16); do
		[ "$(sed -n 's/^nr_throttled //p' "$D/a/cpu.stat")" -gt 0 ] && break
		sleep 0.5
	done
	stat=$(cat "$D/a/cpu.stat")
	w=$((($(date +%s%N) - w0) / 1000))
	u1=$(echo "$stat" | sed -n 's/^usage_usec //p')
	thr=$(echo "$stat" | sed -n 's/^nr_throttled //p')
	cap=$((w / 5))
	if [ "$thr" -gt 0 ]; then ok "cap in effect: nr_throttled $thr"
	elif [ $((u1 - u0)) -lt "$cap" ]; then
		ok "not throttled: the host gave a $((u1 - u0)) us of the $cap the cap allows in $w us"
	else bad "no throttling after cpu.max ($((u1 - u0)) us used in $w us)"; fi
	if [ $((u1 - u0)) -le $((cap * 3 / 2)) ]; then ok "capped usage over $w us: $((u1 - u0)) us"; else
		bad "capped usage over $w us: $((u1 - u0)) us (cap allows $cap)"; fi

	# cpu.stat.local: a/k, below the capped a, is held by a's pool (its own cpu.stat counts
	# none): throttled_usec grows there once a throttles after the move.
	echo +cpu >"$D/a/cgroup.subtree_control"
	mkdir "$D/a/k"
	echo threaded >"$D/a/k/cgroup.type"
	n0=$(sed -n 's/^nr_throttled //p' "$D/a/cpu.stat")
	echo "$t1" >"$D/a/k/cgroup.threads"
	for _ in $(seq 20); do
		[ "$(sed -n 's/^nr_throttled //p' "$D/a/cpu.stat")" -gt $((n0 + 1)) ] && break
		sleep 0.5
	done
	n1=$(sed -n 's/^nr_throttled //p' "$D/a/cpu.stat")
	loc=$(sed -n 's/^throttled_usec //p' "$D/a/k/cpu.stat.local")
	own=$(sed -n 's/^throttled_usec //p' "$D/a/k/cpu.stat")
	if [ "$n1" -le $((n0 + 1)) ]; then
		ok "a not throttled again after the move (host too loaded): local $loc us"
	elif [ "${loc:-0}" -gt 0 ] && [ "$own" = 0 ]; then
		ok "a/k held by a: cpu.stat.local throttled_usec $loc, cpu.stat's $own"
	else
		bad "a/k: cpu.stat.local '$(cat "$D/a/k/cpu.stat.local")', cpu.stat throttled_usec '$own'"
	fi

	kill -TERM "$VPID"
	wait "$VPID"
done
ctl_finish
