#!/usr/bin/env bash
# Slice ends decided ahead (host/host_ahead.c, sched/runtime/rt_ahead.c, HOST_HELLO_AHEAD):
# two VMs of one hog vCPU each on a 1-lane daemon, 2 s. Every lane change is a slice end: the
# daemon decides it shortly before, publishes "PREEMPT at until" in the holder's entry and
# "GRANT from until" in the successor's, and the holder's VMM applies it at its own slice end.
# Judged on every host, per VM: none of the ends the daemon published was enforced by it at the
# grace, and the VMM applied (--stats runtime.ahead_preempts) at least three quarters, less two,
# of what the daemon logs as published ahead as it leaves (not counted: 0-6 of 31-44 at load 16,
# 1 of 1 at load 17; a VMM that applied a PREEMPT at once, not at `at`, counted 24-37 of 52-56
# when the daemon ran late: failed). Judged only where the host's CPU pressure stayed under half
# over the pair (/proc/pressure/cpu "some": the share of the time in which a runnable thread
# waited for a CPU), or cannot be read: each VM published and applied ahead at least a tenth of
# its lane changes (grants), and at least 5. The daemon is a normal thread that wakes
# HOST_AHEAD_NS (100 us) before an end; on a host whose runnable threads wait, it wakes late and
# decides the end at once, as before (docs/host.md, "Slice ends decided ahead"). At load 15-21
# (pressure 96-99 %) 0-25 % of the ends were published ahead when the vCPUs got 0.02-0.07 of
# their lane, 46-70 % at 0.25: the tenth failed in 4 of 4 runs at load 18-21 (twice each) before
# this gate. Each backend. Before: no ahead_preempts in --stats, no such log.
. "$(dirname "$0")/runtime-lib.sh"
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-ahead
mkdir -p "$VSCHED_RUN_DIR"

host_daemon_start --cpus 1 --no-ctl
pub_re='.*published ahead ([0-9]+) \(enforced at the grace ([0-9]+)\).*'
# A field of a --stats file: st_field FILE KEY (the first)
st_field() { sed -nE "s/.*\"$2\": ([0-9]+).*/\1/p" "$1" | head -1; }
# The host's CPU pressure: "some" total (us in which a runnable thread waited), "" if unknown.
cpu_stall_us() { sed -nE 's/^some .*total=([0-9]+).*/\1/p' /proc/pressure/cpu 2>/dev/null; }
# cpu_stall_since STALL0 WALL0: the share of the time since then with a thread waiting, or "".
cpu_stall_since() {
	local s1
	s1=$(cpu_stall_us)
	[ -n "$1" ] && [ -n "$s1" ] || return 0
	awk "BEGIN { print ($s1 - $1) / (($EPOCHREALTIME - $2) * 1e6) }"
}
# One pair of VMs, 2 s, on the backend $1. False if the host was not too busy to judge and a VM
# applied fewer than a tenth of its lane changes ahead; fails the test on what no load explains.
pair() {
	local accel=$1 vm pid_a pid_b st ahead grants judged ok=0 line pub late stall
	local stall0 wall0=$EPOCHREALTIME

	stall0=$(cpu_stall_us)
	for vm in a b; do
		"$VSCHED" run --host --accel "$accel" --name "$vm$accel$n" --vcpus 1 --payload hog \
			--no-ctl --duration 2s --stats "$TMPD/$vm$accel$n.json" \
			>"$TMPD/$vm$accel$n.log" 2>&1 &
		eval "pid_$vm=\$!"
	done
	wait "$pid_a" || fail "$accel: VM a exited $?"
	wait "$pid_b" || fail "$accel: VM b exited $?"
	wait_for '[ "$(grep -ac "published ahead" "$TMPD/host.log")" -ge $((n + 2)) ]' ||
		fail "$accel: the daemon logged no leave of the pair (published ahead)"
	judged=1
	stall=$(cpu_stall_since "$stall0" "$wall0")
	[ -z "$stall" ] || check "$stall < 0.5" || judged=0
	for vm in a b; do
		st=$TMPD/$vm$accel$n.json
		ahead=$(st_field "$st" ahead_preempts)
		grants=$(st_field "$st" grants)
		line=$(grep -a "/machine/$vm$accel$n: its threads" "$TMPD/host.log")
		pub=$(sed -nE "s/$pub_re/\\1/p" <<<"$line")
		late=$(sed -nE "s/$pub_re/\\2/p" <<<"$line")
		echo "$accel $vm: ${ahead:-?} ends applied ahead of ${grants:-?} grants;" \
			"the daemon published ${pub:-?} ahead, enforced ${late:-?};" \
			"grants from an end taken $(st_field "$st" ahead_grants)," \
			"late p50 $(st_field "$st" ahead_grant_p50_ns) ns," \
			"p90 $(st_field "$st" ahead_grant_p90_ns) ns"
		[ -n "$ahead" ] && [ -n "$grants" ] || fail "$accel $vm: no ahead_preempts or grants"
		[ -n "$pub" ] && [ -n "$late" ] || fail "$accel $vm: no published ahead in the log: $line"
		[ "$late" = 0 ] || fail "$accel $vm: the daemon enforced $late published ends: $line"
		check "4 * $ahead + 8 >= 3 * $pub" ||
			fail "$accel $vm: the VMM applied $ahead of $pub ends published ahead"
		[ "$judged" = 1 ] || continue
		check "$grants >= 20 && $ahead * 10 >= $grants && $pub >= 5" || ok=1
	done
	n=$((n + 2))
	[ "$judged" = 1 ] || echo "$accel: host too busy: runnable threads waited for a CPU" \
		"$(awk "BEGIN { printf \"%.0f\", 100 * $stall }") % of the pair's time (over 50 %)," \
		"how many ends the daemon decided in time not judged"
	return $ok
}

# Whether the daemon's timer wakes ahead of the ends is bimodal by run (a whole 2 s run with 3 of
# 105 applied ahead was seen once in about ten, in the full suite; docs/host.md): a second pair
# then, which must meet the same tenth.
n=0
for accel in $(test_accels); do
	pair "$accel" || { echo "$accel: again"; pair "$accel"; } ||
		fail "$accel: fewer than a tenth of the ends applied ahead, twice"
done
host_daemon_stop
echo "ok"
