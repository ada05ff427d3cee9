#!/usr/bin/env bash
# What a killed daemon leaves in the run directory is cleaned by the next one: its socket and
# pid file (taken over), and its control directory's dead FUSE mount also when the next one
# runs with --no-ctl (it stayed: `ls` of the run directory showed `d?????????`, ENOTCONN).
. "$(dirname "$0")/runtime-lib.sh"
[ -c /dev/fuse ] || { echo "no /dev/fuse: the test kills a daemon with a directory"; exit 77; }
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-stale
mkdir -p "$VSCHED_RUN_DIR"

host_daemon_start --cpus 1 --pidfile "$TMPD/host.pid"
wait_for "[ -e $H/cgroup.procs ]" || fail "no control directory"
kill -9 "$HP"
wait "$HP" 2>/dev/null
stat "$H" >/dev/null 2>&1 && fail "the killed daemon's mount still answers"
host_daemon_start --cpus 1 --pidfile "$TMPD/host.pid" --no-ctl
wait_for '[ "$(cat "$TMPD/host.pid")" = "$HP" ]' || fail "the stale pid file was not taken over"
if ! stat "$H" >/dev/null 2>&1 && ls -a "$VSCHED_RUN_DIR" | grep -qx host; then
	fail "the dead mount $H stayed: $(stat "$H" 2>&1)"
fi
host_daemon_stop
host_daemon_start --cpus 1 --max-vcpus 1
wait_for "[ -e $H/cgroup.procs ]" || fail "no control directory after --no-ctl"
# More vCPUs than free slots: said so ("No space left on device" before).
"$VSCHED" run --accel thread --host --no-ctl --vcpus 2 --duration 1s >"$TMPD/big.log" 2>&1 &&
	fail "2 vCPUs joined a daemon of 1 slot"
grep -q "too few free vCPU slots for this VM's vCPUs (its --max-vcpus" "$TMPD/big.log" ||
	fail "the slots' refusal: $(cat "$TMPD/big.log")"
host_daemon_stop
echo "socket, pid file and the dead mount of a killed daemon cleaned"

# Another user than the socket's: told the daemon is there and refuses it ("no host
# scheduler at ...: Permission denied" before).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	host_daemon_start --cpus 1 --no-ctl
	chmod 0777 "$TMPD" "$VSCHED_RUN_DIR"
	setpriv --reuid 65534 --regid 65534 --clear-groups "$VSCHED" run --accel thread --host \
		--no-ctl --duration 1s >"$TMPD/user.log" 2>&1 && fail "uid 65534 joined"
	grep -q "^vsched run: the host scheduler at $VSCHED_RUN_DIR/host.sock: Permission denied" \
		"$TMPD/user.log" || fail "another user's refusal: $(cat "$TMPD/user.log")"
	host_daemon_stop
fi
echo "another user is told the socket is not theirs"
