#!/usr/bin/env bash
# Offers of a held lane for a preemption by virtual time (docs/host.md, "Held-lane offers: what
# the rule covers"): a 1-lane `vsched host`, one VM, no cpu.idle group: vCPU 0 a hog in group bg
# (weight 100), vCPU 1 in group fg (weight 400) wakes every 2 ms (duty:200/2000). A wake-up of
# vCPU 1 that finds it behind vCPU 0 by more than min_run (it waited, owed, before its last
# block) takes the lane by virtual time; the daemon decides that ahead on one lane
# (sched_wake_vt_lane()) and offers the held lane to the VM. Judged on `--stats`:
# runtime.held_offers > 0 (0 before: only a cpu.idle holder's lane was offered), both vCPUs ran,
# the VM exited 0. Thread backend, then KVM.
. "$(dirname "$0")/runtime-lib.sh"
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-heldvt
mkdir -p "$VSCHED_RUN_DIR"

host_daemon_start --cpus 1 --no-ctl

for accel in $(test_accels); do
	st=$TMPD/$accel.json
	"$VSCHED" run --host --accel "$accel" --name "heldvt$accel" --vcpus 2 \
		--payload 0=hog,1=duty:200/2000 --group bg:weight=100 --group fg:weight=400 \
		--assign 0=bg --assign 1=fg --no-ctl \
		--duration 2s --stats "$st" >"$TMPD/$accel.log" 2>&1 || fail "$accel: the VM exited $?"
	held=$(sed -nE 's/.*"held_offers": ([0-9]+).*/\1/p' "$st")
	sleeps=$(sed -nE 's/.*"id": 1,.*"sleeps": ([0-9]+),.*/\1/p' "$st")
	cpu0=$(sed -nE 's/.*"id": 0,.*"cpu_ns": ([0-9]+),.*/\1/p' "$st")
	cpu1=$(sed -nE 's/.*"id": 1,.*"cpu_ns": ([0-9]+),.*/\1/p' "$st")
	echo "$accel: ${held:-?} held lanes taken by vCPU 1 in ${sleeps:-?} wake-ups; vCPU CPU ${cpu0:-?} / ${cpu1:-?} ns"
	[ -n "$held" ] && [ -n "$sleeps" ] || fail "$accel: no held_offers or sleeps in --stats"
	check "$sleeps >= 100" || fail "$accel: vCPU 1 slept only $sleeps times"
	check "$held > 0" || fail "$accel: no held lane taken in $sleeps wake-ups"
	check "$cpu0 > 0 && $cpu1 > 0" || fail "$accel: a vCPU did not run"
done
host_daemon_stop
echo "ok"
