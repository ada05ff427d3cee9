#!/usr/bin/env bash
# The tree above the VM groups survives the daemon (thread backend, runs everywhere): a
# partition's cpu.max and weight, a group made by hand with its cpu.max and owner, the root's
# cgroup.max.descendants, after SIGKILL and a new daemon (Restart=on-failure), then after
# SIGTERM and a new one (systemctl restart); the VM re-joins under its capped partition with
# its own cap; a second daemon refused on the run directory does not touch the saved tree.
# Before, a new daemon made the partitions again as VMs re-joined, with none of their settings.
. "$(dirname "$0")/runtime-lib.sh"
[ -c /dev/fuse ] || { echo "no /dev/fuse: the test writes the daemon's directory"; exit 77; }
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-tree
mkdir -p "$VSCHED_RUN_DIR"
is() { [ "$(cat "$H/$1" 2>&1)" = "$2" ] || fail "$1: '$(cat "$H/$1" 2>&1)', want '$2' ($3)"; }

host_daemon_start --cpus 2
"$VSCHED" run --accel thread --name v --vcpus 2 --payload hog --duration 30s --host \
	--partition /tenant/t1 --max "30000 100000" >"$TMPD/v.log" 2>&1 &
PIDS="$PIDS $!"
wait_for "[ -e $H/tenant/t1/v/cpu.max ]" || fail "v did not join"
echo "50000 100000" >"$H/tenant/t1/cpu.max" && echo 300 >"$H/tenant/cpu.weight" &&
	mkdir "$H/spare" && echo "max 50000" >"$H/spare/cpu.max" && chown 65534 "$H/spare" &&
	echo 20 >"$H/cgroup.max.descendants" && chown 65534:65534 "$H/spare/cpu.max" &&
	chmod 640 "$H/tenant/cpu.weight" && chown 65534 "$H/tenant/t1/v/cpu.weight" ||
	fail "cannot set the tree up"
host_tree_saved 'write\t/tenant/t1\tcpu.max\t50000 100000$' 'write\t/tenant\tcpu.weight\t300$' \
	'write\t/spare\tcpu.max\tmax 50000$' '^chown\t/spare\t65534\t' \
	'write\t/\tcgroup.max.descendants\t20$' 'attr\t/spare/cpu.max\t-\t65534:65534\t' \
	'attr\t/tenant/cpu.weight\t0640\t' 'vattr\t.*\t/tenant/t1/v/cpu.weight\t-\t65534:'
check() {
	wait_for "[ -e $H/cgroup.procs ]" || fail "no control directory ($1)"
	is tenant/t1/cpu.max "50000 100000" "$1"
	is tenant/cpu.weight 300 "$1"
	is spare/cpu.max "max 50000" "$1"
	is cgroup.max.descendants 20 "$1"
	[ "$(stat -c %u "$H/spare")" = 65534 ] || fail "/spare's owner lost ($1)"
	# Files' owners and modes (the directory's records; before, lost at a restart).
	[ "$(stat -c %u:%g "$H/spare/cpu.max")" = 65534:65534 ] ||
		fail "/spare/cpu.max's owner lost ($1)"
	[ "$(stat -c %a "$H/tenant/cpu.weight")" = 640 ] || fail "/tenant/cpu.weight's mode lost ($1)"
	wait_for "[ -e $H/tenant/t1/v/cpu.max ]" || fail "v did not join again ($1)"
	wait_for "[ \"\$(stat -c %u $H/tenant/t1/v/cpu.weight)\" = 65534 ]" ||
		fail "v's group's cpu.weight's owner lost ($1)"
	is tenant/t1/v/cpu.max "30000 100000" "$1"
}
check "the first daemon"

"$VSCHED" host --cpus 2 >"$TMPD/second.log" 2>&1 && fail "a second daemon started"
host_daemon_restart 9 --cpus 2
check "after SIGKILL"
grep -q "restored from $VSCHED_RUN_DIR/.host-tree" "$TMPD/host.log" ||
	fail "the new daemon did not say it restored the tree"
host_daemon_restart TERM --cpus 2
check "after SIGTERM"

# A daemon that answers v's re-join and refuses it (1 slot, v has 2 vCPUs): v says so once,
# runs on unscheduled, and joins the next daemon. It dialled on without a word.
kill -9 "$HP"
wait "$HP" 2>/dev/null
host_daemon_start --cpus 2 --max-vcpus 1
wait_for "grep -q 'the host scheduler refuses this VM (No space left on device)' $TMPD/v.log" ||
	fail "v's refused re-join was not said"
sleep 0.5
[ "$(grep -c 'refuses this VM' "$TMPD/v.log")" = 1 ] || fail "v's refusal said more than once"
host_daemon_restart 9 --cpus 2
wait_for "[ -e $H/tenant/t1/v/cpu.max ]" || fail "v did not join the next daemon"
host_daemon_stop
echo "the tree above the VMs kept across SIGKILL and SIGTERM restarts"
