#!/usr/bin/env bash
# A user other than root and the host scheduler (thread backend): with the daemon's socket made
# writable (it is root's, 0755, by default), uid 65534 joins only below a partition it owns
# (chown in the daemon's directory, as a delegatee makes groups on cgroupfs), and its VM group
# is its own; a root-owned partition is refused, naming it, and nothing is made there. Before,
# any user who could connect joined anywhere with any --weight.
. "$(dirname "$0")/runtime-lib.sh"
[ -c /dev/fuse ] || { echo "no /dev/fuse: the test chowns in the daemon's directory"; exit 77; }
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null ||
	{ echo "needs root and setpriv: the test joins as uid 65534"; exit 77; }
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-user
U=65534
as_u() { setpriv --reuid=$U --regid=$U --clear-groups "$@"; }
mkdir -p "$VSCHED_RUN_DIR/.vms"
chmod 0777 "$TMPD" "$VSCHED_RUN_DIR" "$VSCHED_RUN_DIR/.vms"
host_daemon_start --cpus 2
chmod 0666 "$VSCHED_RUN_DIR/host.sock"
mkdir -p "$H/tenant/u" && echo +cpu >"$H/tenant/cgroup.subtree_control" &&
	chown $U:$U "$H/tenant/u" || fail "cannot delegate /tenant/u"

as_u "$VSCHED" run --accel thread --host --no-ctl --name r --partition /tenant --weight 10000 \
	--duration 1s >"$TMPD/r.log" 2>&1 && fail "uid $U joined root's /tenant"
grep -q "uid $U may not make /tenant/r " "$TMPD/r.log" || fail "the refusal: $(cat "$TMPD/r.log")"
[ -e "$H/tenant/r" ] && fail "the refused join left /tenant/r"
as_u "$VSCHED" run --accel thread --host --no-ctl --name m --duration 1s >"$TMPD/m.log" 2>&1 &&
	fail "uid $U joined /machine, made in root's root"
[ -e "$H/machine" ] && fail "the refused join left /machine"

as_u "$VSCHED" run --accel thread --host --no-ctl --name v --partition /tenant/u/p \
	--payload hog --duration 3s >"$TMPD/v.log" 2>&1 &
PIDS="$PIDS $!"
wait_for "[ -e $H/tenant/u/p/v/cpu.weight ]" || fail "uid $U did not join its own /tenant/u/p"
[ "$(stat -c %u "$H/tenant/u/p/v")" = $U ] || fail "v's group is not uid $U's"
host_daemon_stop
echo "uid $U joins below its own partition only"
