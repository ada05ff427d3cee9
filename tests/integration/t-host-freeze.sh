#!/usr/bin/env bash
# A VMM frozen by a cgroup freezer (docker pause, systemctl freeze) loses its lanes soon after
# their slice ends (docs/host.md, Faults: "a VMM stops answering"), thread backend: `vsched
# host --cpus 2`, VM b (four hogs) and VM c (two hogs). b is moved into a freezer cgroup and
# frozen for 1 s, by each freezer this host has (cgroup v2's cgroup.freeze, the v1 freezer;
# skipped where there is none or it cannot be written). A frozen thread is not stopped (T): D
# under v1, S under v2 (6.18), so the daemon judges it by its schedstat times.
#  - while b is frozen, b holds no lane 0.4 s after the freeze, and the lanes go to c: c's two
#    vCPUs hold both lanes in at least 30 % of the samples over the next second (c's CPU is
#    printed, not judged: at load 30 it got less than a tenth of a CPU);
#  - the daemon's log as the VMs leave: b revoked as asleep at least once a freeze, the latest
#    of those less than 90 ms after its slice end: nominally 10 ms (its times read at its end
#    + 5 ms, judged at + 10 ms), the daemon's own wait for a CPU adds tens of ms on a loaded
#    host (38-54 ms at load 12-21, 67.5 ms at load 31); the grace cannot give less than 92 ms
#    (100 ms from the grant, the slice at most 8 ms). Not judged where the host gave c less
#    than a quarter CPU while b was frozen (as t-host.sh's split: the daemon itself waits
#    for a CPU there, 98 ms at load 28 with ten busy loops beside, where c's live vCPUs were
#    revoked at the grace up to 133 ms after their ends). Before, a frozen thread kept the
#    grace each time a vCPU of b was granted (main: 8 of 8 at the grace, the latest 100.3 ms
#    after its end, load 21).
#  - c, running all along, revoked 0 as asleep or running without a word (at the grace, the
#    old rule, a live VM starved 100 ms is revoked on a host loaded enough); b, thawed, runs.
. "$(dirname "$0")/runtime-lib.sh"
need_cpus 2
[ -c /dev/fuse ] || { echo "no /dev/fuse: the test reads the daemon's control directory"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "needs root to make a freezer cgroup"; exit 77; }
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-freeze

# The freezers here: "v2 DIR" (a cgroup2 mount with cgroup.freeze in a new child) and "v1 DIR".
FREEZERS=()
v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)freezer(,|$)/ { print $2; exit }' /proc/self/mounts)
[ -n "$v2" ] && FREEZERS+=("v2 $v2")
[ -n "$v1" ] && FREEZERS+=("v1 $v1")
[ ${#FREEZERS[@]} -gt 0 ] || { echo "no cgroup freezer mounted (v1 freezer or cgroup2)"; exit 77; }
GROUPS_MADE=""
freeze_cleanup() {
	local g
	for g in $GROUPS_MADE; do
		[ -e "$g/freezer.state" ] && echo THAWED >"$g/freezer.state"
		[ -e "$g/cgroup.freeze" ] && echo 0 >"$g/cgroup.freeze"
	done
	host_test_cleanup
	for g in $GROUPS_MADE; do rmdir "$g" 2>/dev/null; done
}
trap freeze_cleanup EXIT

mkdir -p "$VSCHED_RUN_DIR"
host_daemon_start --cpus 2
wait_for "[ -e $H/cgroup.procs ]" || fail "the daemon's directory did not appear"
run_vm() {	# NAME VCPUS
	"$VSCHED" run --host --accel thread --name "$1" --vcpus "$2" --payload hog \
		--duration 60s >"$TMPD/$1.log" 2>&1 &
	PIDS="$PIDS $!"
	eval "PID_$1=$!"
}
run_vm b 4
run_vm c 2
wait_for "[ -d $H/machine/b ] && [ -d $H/machine/c ]" || fail "the VMs did not join"
sleep 0.3
# b_held: lanes b's vCPUs hold in the daemon (read by the shell itself).
b_held() {
	local l x n=0
	mapfile -t l <"$H/machine/b/vsched.vcpu.stat"
	for x in "${l[@]}"; do [[ $x == *lane=[0-9]* ]] && n=$((n + 1)); done
	echo $n
}
usage() { sed -n 's/^usage_usec //p' "$H/machine/$1/cpu.stat"; }
c_held() { grep -c 'lane=[0-9]' "$H/machine/c/vsched.vcpu.stat"; }

frozen=0 busy=0
for f in "${FREEZERS[@]}"; do
	kind=${f%% *} mnt=${f#* }
	g=$mnt/vsched-freeze-$$
	mkdir "$g" 2>/dev/null || { echo "$kind: cannot make $g, skipped"; continue; }
	GROUPS_MADE="$GROUPS_MADE $g"
	if [ "$kind" = v2 ]; then
		home=$mnt$(sed -n 's/^0:://p' "/proc/$PID_b/cgroup")
		[ -e "$g/cgroup.freeze" ] || { echo "v2: no cgroup.freeze, skipped"; continue; }
	else
		home=$mnt$(awk -F: '$2 ~ /(^|,)freezer(,|$)/ { print $3 }' "/proc/$PID_b/cgroup")
	fi
	echo "$PID_b" >"$g/cgroup.procs" 2>/dev/null || { echo "$kind: cannot move b, skipped"; continue; }
	wait_for "[ \$(b_held) -gt 0 ]" || fail "$kind: b holds no lane before the freeze"
	t0=${EPOCHREALTIME/./}
	if [ "$kind" = v2 ]; then
		echo 1 >"$g/cgroup.freeze"
		wait_for "grep -q 'frozen 1' $g/cgroup.events" || fail "v2: b did not freeze"
	else
		echo FROZEN >"$g/freezer.state"
		wait_for "grep -q FROZEN $g/freezer.state" || fail "v1: b did not freeze"
	fi
	t1=${EPOCHREALTIME/./}
	for j in $(seq 1000); do [ "$(b_held)" = 0 ] && break; sleep 0.002; done
	t2=${EPOCHREALTIME/./}
	st=$(awk '{ print $3 }' /proc/$PID_b/task/*/stat | sort | uniq -c | tr -s ' \n' ' ')
	sleep 0.4
	held=$(b_held)
	c0=$(usage c) u0=${EPOCHREALTIME/./}
	both=0 n=0
	while [ $((${EPOCHREALTIME/./} - u0)) -lt 1000000 ]; do
		n=$((n + 1))
		[ "$(c_held)" = 2 ] && both=$((both + 1))
		sleep 0.05
	done
	c1=$(usage c) u1=${EPOCHREALTIME/./}
	if [ "$kind" = v2 ]; then echo 0 >"$g/cgroup.freeze"; else echo THAWED >"$g/freezer.state"; fi
	echo "$PID_b" >"$home/cgroup.procs" || fail "$kind: cannot move b back to $home"
	echo "$kind: frozen in $(((t1 - t0) / 1000)) ms, b's threads' states: $st;" \
	     "b held no lane $(((t2 - t0) / 1000)) ms after the freeze (polled), $held lanes" \
	     "0.4 s later; c held both lanes in $both of $n samples, got $((c1 - c0)) us over" \
	     "$((u1 - u0)) us"
	[ "$held" = 0 ] || fail "$kind: the frozen VM b still holds $held lanes"
	[ $((both * 10)) -ge $((n * 3)) ] ||
		fail "$kind: c held both lanes in $both of $n samples while b was frozen"
	frozen=$((frozen + 1))
	check "($c1 - $c0) < 0.25 * ($u1 - $u0)" && busy=1
	sleep 0.3
done
[ $frozen -gt 0 ] || { echo "no freezer could be used here (see above)"; exit 77; }
ub=$(usage b)
sleep 0.5
[ "$(usage b)" -gt "$ub" ] || fail "b, thawed, did not run again"
kill -TERM "$PID_b" "$PID_c"
wait "$PID_b" "$PID_c"
host_daemon_stop
line() { grep "/machine/$1: .*revoked" "$TMPD/host.log"; }
echo "b: $(line b | sed -nE 's/.*(silent past .*)/\1/p')"
echo "c: $(line c | sed -nE 's/.*(silent past .*)/\1/p')"
judged() {	# NAME: asleep, ran without a word, the latest of them after its end (us)
	local re='.*; asleep ([0-9]+), ran without a word ([0-9]+), the latest of them ([0-9]+) us'
	line "$1" | sed -nE "s/$re .*/\1 \2 \3/p"
}
read -r c_asleep c_ran _ <<<"$(judged c)"
[ "$c_asleep" = 0 ] && [ "$c_ran" = 0 ] ||
	fail "the running VM c was revoked as asleep ${c_asleep:-?}, as running ${c_ran:-?} times"
read -r asleep _ late <<<"$(judged b)"
[ -n "$asleep" ] && [ "$asleep" -ge "$frozen" ] ||
	fail "b was revoked as asleep ${asleep:-?} times in $frozen freezes"
if [ $busy = 1 ]; then
	echo "host too busy (c got less than a quarter CPU while b was frozen): how soon not judged"
else
	[ -n "$late" ] && [ "$late" -lt 90000 ] ||
		fail "b was revoked as asleep ${late:-?} us after its slice end, 90 ms or more"
fi
echo "ok"
