#!/usr/bin/env bash
# Offers of a held lane for a preemption by virtual time (docs/host.md, "Held-lane offers: what
# the rule covers"). VM "heldvt", no cpu.idle group: vCPU 0 a hog in group bg (weight 100),
# vCPU 1 in group fg (weight 400) wakes every 2 ms (duty:200/2000). A wake-up of vCPU 1 that
# finds it behind vCPU 0 by more than min_run (it waited, owed, before its last block) takes
# vCPU 0's lane by virtual time; the daemon decides that ahead (sched_wake_vt_lane()) and offers
# the held lane to the VM.
# - 1 lane: the closed form. Before it, only a cpu.idle holder's lane was offered.
# - 2 lanes, beside VM "other", one hog that keeps a whole lane (at equal VM weights the wake
#   leaves it its rate): the fluid solve with the waker added, and the other holder's charges
#   before the honour cannot bring the key under the margin. Before it, no offer on 2 lanes.
# Judged on `--stats`: runtime.held_offers > 0, both vCPUs ran, the VMs exited 0. Thread
# backend, then KVM, on each daemon.
. "$(dirname "$0")/runtime-lib.sh"
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-heldvt
mkdir -p "$VSCHED_RUN_DIR"

for lanes in 1 2; do
	host_daemon_start --cpus "$lanes" --no-ctl
	for accel in $(test_accels); do
		# A loaded host starves the vCPUs (load 18: 54 wake-ups in 2 s): the VMs run again,
		# up to 4 times, until vCPU 1's wake-ups add up to 100. No offer fails at any count.
		held=0 sleeps=0 runs=0
		what="$lanes lanes, $accel"
		while [ $runs -lt 4 ] && [ $sleeps -lt 100 ]; do
			runs=$((runs + 1))
			st=$TMPD/$lanes-$accel-$runs.json
			op=
			if [ "$lanes" -gt 1 ]; then
				"$VSCHED" run --host --accel "$accel" --name "other$accel" --vcpus 1 \
					--payload hog --no-ctl --duration 3s \
					>"$TMPD/$accel-other.log" 2>&1 &
				op=$!
				PIDS="$PIDS $op"
				sleep 0.3
			fi
			"$VSCHED" run --host --accel "$accel" --name "heldvt$accel" --vcpus 2 \
				--payload 0=hog,1=duty:200/2000 --group bg:weight=100 \
				--group fg:weight=400 --assign 0=bg --assign 1=fg --no-ctl --duration 2s \
				--stats "$st" >"$TMPD/$lanes-$accel.log" 2>&1 ||
				fail "$what: the VM exited $?"
			[ -z "$op" ] || wait "$op" || fail "$what: VM other exited $?"
			held_stats "$st" 1 2 "$what"
		done
		check "$sleeps >= 100" || fail "$what: vCPU 1 slept only $sleeps times in $runs runs"
		check "$held > 0" || fail "$what: no held lane taken in $sleeps wake-ups"
	done
	host_daemon_stop
done
echo "ok"
