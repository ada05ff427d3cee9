#!/usr/bin/env bash
# Handoffs (docs/host.md, "Handoffs"): a 1-lane `vsched host`, one VM of three vCPUs that each
# run 1 ms and sleep 1 ms (duty:1000/1000: 1.5 lanes of demand on one), so that one mostly waits
# while another holds the lane. The daemon publishes the waiter as the lane's successor; the
# holder that blocks hands the lane to it itself, without the daemon's wake-up. Judged on
# `--stats`: runtime.handoffs is at least a tenth of the lane changes (grants), both vCPUs ran,
# each VM exited 0; and on the daemon's count as the VM left: at most a fifth of the handoffs
# revoked by its core. Thread backend, then KVM. Before handoffs: no runtime.handoffs at all.
#
# Not duty:1000/2000 (1 ms of 3 each, exactly one lane of demand), as this test ran first: the
# three fall into a rotation where the sleeper's 2 ms timer ends as the third holder's 1 ms does,
# so whether anyone waits when a holder blocks is a race of microseconds. A debug count in
# rt_hand_off() showed nobody waiting (no offer, nothing to hand) at 700-1600 of ~1850 blocks
# on the thread backend, and 28-122 handoffs in the runs that failed; at 1000/1000 a waiter has
# ~1 ms of margin. What still misses a handoff then is the daemon not having re-published the
# successor yet (the word still holds the last claim: it hears of a claim at the VMM's next
# datagram) or a datagram sent since its offer: 867-908 of 1965-2050 (thread), 732-1153 of
# 2023-2137 (KVM), revoked 0, on a 2-CPU machine at load ~2.
. "$(dirname "$0")/runtime-lib.sh"
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-hand
mkdir -p "$VSCHED_RUN_DIR"

host_daemon_start --cpus 1 --no-ctl

# A loaded host starves the vCPUs (t-host-xhand saw 33 grants in 2 s at load 26): the VM runs
# again, up to 4 times, until its grants add up to 50; the ratio and the daemon's revocations
# are judged on the sums (run by run, one revocation in a starved run of 4 handoffs failed it). No
# handoff fails at any count.
n=0
for accel in $(test_accels); do
	payload=duty:1000/1000
	hands=0 grants=0 runs=0 revs=0
	while [ $runs -lt 4 ] && [ $grants -lt 50 ]; do
		runs=$((runs + 1))
		st=$TMPD/$accel-$runs.json
		"$VSCHED" run --host --accel "$accel" --name "hand$accel" --vcpus 3 \
			--payload "$payload" --no-ctl --duration 2s --stats "$st" \
			>"$TMPD/$accel.log" 2>&1 || fail "$accel $payload: the VM exited $?"
		h=$(sed -nE 's/.*"handoffs": ([0-9]+).*/\1/p' "$st")
		g=$(sed -nE 's/.*"grants": ([0-9]+).*/\1/p' "$st")
		cpu0=$(sed -nE 's/.*"id": 0,.*"cpu_ns": ([0-9]+),.*/\1/p' "$st")
		cpu1=$(sed -nE 's/.*"id": 1,.*"cpu_ns": ([0-9]+),.*/\1/p' "$st")
		echo "$accel $payload run $runs: ${h:-?} handoffs of ${g:-?} grants; vCPU CPU ${cpu0:-?} / ${cpu1:-?} ns"
		[ -n "$h" ] && [ -n "$g" ] || fail "$accel $payload: no handoffs or grants in --stats"
		check "$cpu0 > 0 && $cpu1 > 0" || fail "$accel $payload: a vCPU did not run"
		hands=$((hands + h)) grants=$((grants + g))
		# The daemon's count when the VM left: confirmed and revoked by its core.
		n=$((n + 1))
		wait_for '[ "$(grep -ac "left: hung up (handoffs" "$TMPD/host.log")" -ge $n ]' ||
			fail "$accel $payload: the daemon did not log the VM leaving"
		line=$(grep -a "left: hung up (handoffs" "$TMPD/host.log" | tail -1)
		echo "daemon: $line"
		rev=$(echo "$line" | sed -nE 's/.*\(handoffs: [0-9]+, revoked ([0-9]+);.*/\1/p')
		[ -n "$rev" ] || fail "$accel $payload: no count of revoked handoffs"
		revs=$((revs + rev))
	done
	check "$grants >= 50" || fail "$accel $payload: only $grants grants in $runs runs"
	check "$revs * 5 <= $hands" || fail "$accel $payload: $revs of $hands handoffs revoked"
	check "$hands * 10 >= $grants" || fail "$accel $payload: $hands handoffs in $grants grants"
done
host_daemon_stop
echo "ok"
