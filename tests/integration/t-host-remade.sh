#!/usr/bin/env bash
# A delegation below a VM group goes back after a daemon restart to that group only, not to one
# made again under its path (thread backend, runs everywhere): root chowns the VM's groups x
# and y (directory, cgroup.procs) to U (uid 65534) in the daemon's directory. The daemon stops;
# while none runs, x is removed and made again in the VM's own directory (its VMM's); a new
# daemon starts. The VM re-joins: the new x and its files are root's and U cannot write them,
# y (untouched) is still U's. Before, the daemon matched a kept owner by the group's path
# alone and handed U the new x (GROUP carried no identity of the group: protocol 16 does).
. "$(dirname "$0")/runtime-lib.sh"
[ -c /dev/fuse ] || { echo "no /dev/fuse: the test writes the daemon's directory"; exit 77; }
command -v setpriv >/dev/null || { echo "no setpriv"; exit 77; }
. "$(dirname "$0")/host-lib.sh"
host_deleg_begin host-remade
start_w w1
V=$VSCHED_RUN_DIR/w	# the VM's own directory
wait_for "[ -d $D/d ] && [ -d $V/d ]" || fail "w did not join"
mkdir "$V/x" "$V/y" || fail "mkdir x, y in w's own directory"
wait_for "[ -d $D/x ] && [ -d $D/y ]" || fail "x, y not mirrored in the daemon's directory"
chown $U:$U "$D/x" "$D/x/cgroup.procs" "$D/y" "$D/y/cgroup.procs" || fail "chown of x, y"
as_u mkdir "$D/x/u" && as_u rmdir "$D/x/u" || fail "U cannot make x/u (before)"
host_tree_saved 'vown\t.*\t/machine/w/x\t65534\t65534\t' 'vown\t.*\t/machine/w/y\t65534\t65534\t'
host_daemon_stop
# No daemon: the VMM falls back, its own directory is its own to change.
rmdir "$V/x" && mkdir "$V/x" || fail "x not made again in w's own directory"
host_daemon_start --cpus 2
wait_for "[ -d $D/x ] && [ -d $D/y ]" || fail "w did not join again"
# What is given back reaches the directory right after the re-join's event: wait for y's. A VMM
# that leaves the new daemon once more (on a loaded machine it may judge it stuck: "stopped
# answering") takes its delegations with it, by design (ctl_forget()): y is not judged then.
if wait_for '[ "$(stat -c %u "$D/y/cgroup.procs" 2>&1)" = $U ]'; then
	[ "$(stat -c %u "$D/y")" = $U ] || fail "y's directory lost its owner"
	as_u mkdir "$D/y/u" && as_u rmdir "$D/y/u" || fail "U cannot make y/u (after)"
elif [ "$(grep -c "joined the host scheduler again" "$TMPD/w1.log")" -gt 1 ]; then
	echo "w left the new daemon and joined again (load): y's delegation went with it; not judged"
else
	fail "y lost its owners: $(stat -c '%n %u' "$D/y" "$D/y/cgroup.procs" | tr '\n' ' ')"
fi
sleep 0.3	# anything still due would land by now
wait_for "[ -e $D/x/cgroup.procs ]" || fail "x is gone"
own=$(stat -c '%n %u' "$D/x" "$D/x/cgroup.procs")
[ "$(awk '{ print $2 }' <<<"$own" | sort -u)" = 0 ] ||
	fail "the new x got the old x's owners: $(tr '\n' ' ' <<<"$own")"
as_u mkdir "$D/x/u" 2>/dev/null && fail "U made a group in the new x"
kill -9 "$WP"
host_daemon_stop
echo "a kept delegation goes back to its group only, not to one made again under its path"
