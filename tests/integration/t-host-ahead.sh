#!/usr/bin/env bash
# Slice ends decided ahead (host/host_ahead.c, sched/runtime/rt_ahead.c, HOST_HELLO_AHEAD):
# two VMs of one hog vCPU each on a 1-lane daemon, 2 s. Every lane change is a slice end: the
# daemon decides it shortly before, publishes "PREEMPT at until" in the holder's entry and
# "GRANT from until" in the successor's, and the holder's VMM applies it at its own slice end.
# --stats: runtime.ahead_preempts (ends applied as published) is at least a tenth of the lane
# changes (grants: on a loaded host the daemon's timer may wake past an end, which is then
# decided at once as before); the daemon's log as each VM leaves: PREEMPTs published ahead, none
# enforced by the daemon at the grace (the VMM applied each). Each backend. Before: no
# ahead_preempts in --stats, no such log.
. "$(dirname "$0")/runtime-lib.sh"
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-ahead
mkdir -p "$VSCHED_RUN_DIR"

host_daemon_start --cpus 1 --no-ctl
# One pair of VMs, 2 s; true if each applied a tenth of its lane changes ahead.
pair() {
	local accel=$1 vm pid_a pid_b st ahead grants ok=0
	for vm in a b; do
		"$VSCHED" run --host --accel "$accel" --name "$vm$accel" --vcpus 1 --payload hog \
			--no-ctl --duration 2s --stats "$TMPD/$vm$accel.json" \
			>"$TMPD/$vm$accel.log" 2>&1 &
		eval "pid_$vm=\$!"
	done
	wait "$pid_a" || fail "$accel: VM a exited $?"
	wait "$pid_b" || fail "$accel: VM b exited $?"
	n=$((n + 2))
	for vm in a b; do
		st=$TMPD/$vm$accel.json
		ahead=$(sed -nE 's/.*"ahead_preempts": ([0-9]+).*/\1/p' "$st")
		grants=$(sed -nE 's/.*"grants": ([0-9]+).*/\1/p' "$st" | head -1)
		echo "$accel $vm: ${ahead:-?} ends applied ahead of ${grants:-?} grants;" \
			"grants from an end taken $(sed -nE 's/.*"ahead_grants": ([0-9]+).*/\1/p' "$st")," \
			"late p50 $(sed -nE 's/.*"ahead_grant_p50_ns": ([0-9]+).*/\1/p' "$st") ns," \
			"p90 $(sed -nE 's/.*"ahead_grant_p90_ns": ([0-9]+).*/\1/p' "$st") ns"
		[ -n "$ahead" ] && [ -n "$grants" ] || fail "$accel $vm: no ahead_preempts or grants"
		check "$grants >= 20 && $ahead * 10 >= $grants" || ok=1
	done
	return $ok
}

# Whether the daemon's timer wakes ahead of the ends is bimodal by run (a whole 2 s run with 3 of
# 105 applied ahead was seen once in about ten, in the full suite; docs/host.md): a second pair
# then, which must meet the same tenth.
n=0
for accel in $(test_accels); do
	pair "$accel" || { echo "$accel: again"; pair "$accel"; } ||
		fail "$accel: fewer than a tenth of the ends applied ahead, twice"
	wait_for '[ "$(grep -ac "published ahead" "$TMPD/host.log")" -ge $n ]' ||
		fail "$accel: the daemon logged no PREEMPTs published ahead"
	grep -a "published ahead" "$TMPD/host.log" | tail -2 | while read -r line; do
		pub=$(sed -nE 's/.*published ahead ([0-9]+) \(enforced at the grace ([0-9]+)\).*/\1/p' <<<"$line")
		late=$(sed -nE 's/.*published ahead ([0-9]+) \(enforced at the grace ([0-9]+)\).*/\2/p' <<<"$line")
		echo "$accel: daemon: published ahead $pub, enforced $late"
		check "${pub:-0} >= 5 && ${late:-1} == 0" || fail "$accel: $line"
	done || exit 1
done
host_daemon_stop
echo "ok"
