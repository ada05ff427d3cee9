#!/usr/bin/env bash
# The whole tree is writable through the daemon's directory (thread backend, runs everywhere):
#  - a write below a VM group (g/cpu.weight) goes to the VM's VMM: its own directory shows it,
#    the daemon's mirror too, and it lasts past the next subtree batch (a change made in the
#    VM's own directory afterwards);
#  - a bad value there fails with the VMM's errno (ERANGE) and changes nothing;
#  - mkdir and rmdir below a VM group happen in the VM's own tree; rmdir of a group holding a
#    vCPU is EBUSY; vsched.vcpus (slot numbers in the daemon) is refused (EOPNOTSUPP);
#  - cgroup.threads below a VM group moves the vCPU in the VM's own tree; an unprivileged writer
#    (setpriv) is held to cgroup v2 delegation's rule there (EACCES out of its subtree); a
#    group it makes there is its own in the daemon's directory (dir and files);
#  - the VM group's own cpu.weight written in the daemon's directory survives a daemon restart
#    (the VM re-joins with it), as does its subtree.
. "$(dirname "$0")/runtime-lib.sh"
[ -c /dev/fuse ] || { echo "no /dev/fuse: the test writes the daemon's control directory"; exit 77; }
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-fwd
start_host() {
	"$VSCHED" host --cpus 2 >"$TMPD/host$1.log" 2>&1 &
	HP=$!
	PIDS="$PIDS $HP"
	wait_for "[ -S $VSCHED_RUN_DIR/host.sock ] && [ -e $H/cgroup.procs ]" || fail "the daemon did not start"
}
mkdir -p "$VSCHED_RUN_DIR"
start_host 1
"$VSCHED" run --host --accel thread --name w --vcpus 2 --payload hog --duration 20s \
	--group g:weight=300 --assign 1=g >"$TMPD/w.log" 2>&1 &
WP=$!
PIDS="$PIDS $WP"
OWN=$VSCHED_RUN_DIR/w
D=$H/machine/w
wait_for "[ -d $D/g ] && [ -e $OWN/g/cpu.weight ]" || fail "w did not join"

echo 50 >"$D/g/cpu.weight" || fail "write below the VM group: $?"
[ "$(cat "$OWN/g/cpu.weight")" = 50 ] || fail "the VM's own directory does not show the write"
[ "$(cat "$D/g/cpu.weight")" = 50 ] || fail "the daemon's mirror does not show the write"
mkdir "$OWN/later" || fail "mkdir in the VM's own directory"
wait_for "[ -d $D/later ]" || fail "the batch after the VM's own mkdir did not come"
[ "$(cat "$D/g/cpu.weight")" = 50 ] || fail "the next batch undid the write in the daemon's directory"

err=$( (echo 0 >"$D/g/cpu.weight") 2>&1)
echo "$err" | grep -q "Numerical result out of range" || fail "a bad weight: '$err', want ERANGE"
[ "$(cat "$OWN/g/cpu.weight")" = 50 ] || fail "a refused write changed the weight"

mkdir "$D/n" || fail "mkdir below the VM group"
[ -d "$OWN/n" ] || fail "mkdir did not reach the VM's own tree"
rmdir "$D/n" || fail "rmdir below the VM group"
[ ! -e "$OWN/n" ] && [ ! -e "$D/n" ] || fail "rmdir did not reach both trees"
err=$(rmdir "$D/g" 2>&1) && fail "rmdir of a group holding a vCPU succeeded"
echo "$err" | grep -q "Device or resource busy" || fail "rmdir of a busy group: '$err', want EBUSY"
err=$( (echo 0 >"$D/g/vsched.vcpus") 2>&1)
echo "$err" | grep -q "Operation not supported" || fail "vsched.vcpus below a VM: '$err'"

tid0=$(sed -n 's/^0 tid=\([0-9]*\).*/\1/p' "$OWN/vsched.vcpu.stat")
echo "$tid0" >"$D/g/cgroup.threads" || fail "moving vCPU 0 by cgroup.threads"
[ "$(cat "$OWN/g/vsched.vcpus")" = 0-1 ] || fail "vCPU 0 did not move in the VM's own tree"
grep -qx "$tid0" "$D/g/cgroup.threads" || fail "vCPU 0 did not move in the daemon's mirror"

# Delegation (cgroup v2) holds for forwarded moves: d, below w in the daemon's directory, is
# delegated to U as on cgroupfs (chown of the group, its cgroup.procs and cgroup.threads). U may
# move a vCPU only between groups whose common ancestor's cgroup.procs it may write: from g
# into d they meet at w, root's: EACCES, and the vCPU stays; root makes that move; from d/x
# into d they meet at d, U's: done. Before, the VMM made every forwarded move.
U=65534
as_u() { setpriv --reuid=$U --regid=$U --clear-groups "$@"; }
chmod 755 "$TMPD" "$VSCHED_RUN_DIR"
mkdir "$D/d" "$D/d/x" && echo threaded >"$D/d/cgroup.type" &&
	echo threaded >"$D/d/x/cgroup.type" || fail "making the delegated groups d, d/x"
chown $U:$U "$D/d" "$D/d/cgroup.procs" "$D/d/cgroup.threads" || fail "chown of d"
as_u cat "$D/d/cgroup.threads" >/dev/null || fail "U cannot read d's cgroup.threads"
err=$(as_u bash -c "echo $tid0 >$D/d/cgroup.threads" 2>&1) &&
	fail "U moved vCPU 0 from g into d (common ancestor w is not U's)"
echo "$err" | grep -q "Permission denied" || fail "U's move from g into d: '$err', want EACCES"
grep -qx "$tid0" "$D/g/cgroup.threads" && [ "$(cat "$OWN/g/vsched.vcpus")" = 0-1 ] ||
	fail "a refused move moved vCPU 0"
echo "$tid0" >"$D/d/x/cgroup.threads" || fail "root's move of vCPU 0 from g into d/x"
[ "$(cat "$OWN/d/x/vsched.vcpus")" = 0 ] || fail "root's move did not reach the VM's tree"
as_u bash -c "echo $tid0 >$D/d/cgroup.threads" || fail "U's move from d/x into d (both U's)"
[ "$(cat "$OWN/d/vsched.vcpus")" = 0 ] || fail "U's move did not reach the VM's tree"
echo "$tid0" >"$D/g/cgroup.threads" || fail "moving vCPU 0 back into g"
# A group U makes below d (a forwarded mkdir) is U's in the daemon's directory, its files too,
# as cgroup_mkdir() makes it: U makes it threaded and moves a vCPU in. It was d's owner's, its
# files root's: U's cgroup.type write was EACCES.
as_u mkdir "$D/d/u" || fail "U cannot make d/u"
[ "$(stat -c %u:%g "$D/d/u" "$D/d/u/cgroup.type" | sort -u)" = "$U:$U" ] ||
	fail "d/u is not U's: $(stat -c '%n %u:%g' "$D/d/u" "$D/d/u/cgroup.type")"
as_u bash -c "echo threaded >$D/d/u/cgroup.type" || fail "U cannot make its d/u threaded"
[ "$(cat "$OWN/d/u/cgroup.type")" = threaded ] || fail "d/u's type did not reach the VM's tree"
as_u rmdir "$D/d/u" || fail "U cannot remove d/u"

# The VM group's own setting: the daemon's, kept by the VMM for a re-join.
echo 400 >"$D/cpu.weight" || fail "cpu.weight of the VM group"
sleep 0.2
kill -9 "$HP"
wait_for "grep -q 'host scheduler lost' $TMPD/w.log" || fail "w did not notice the daemon's death"
umount -l "$H" 2>/dev/null
start_host 2
wait_for "[ -d $D/g ]" || fail "w did not join the new daemon"
[ "$(cat "$D/cpu.weight")" = 400 ] || fail "the VM group's weight was lost in the restart: $(cat "$D/cpu.weight")"
[ "$(cat "$D/g/cpu.weight")" = 50 ] || fail "the forwarded weight was lost in the restart"
kill -TERM "$WP"
wait "$WP"
kill -TERM "$HP"
wait "$HP" || fail "the daemon exited $?"
# Its default directory is the daemon's own, also when a killed daemon made it.
[ -e "$H" ] && fail "the daemon left $H behind (made by the daemon killed before it)"
echo "ok"
