# Sourced by the host scheduler's tests (t-host*.sh): a private run directory, the daemon's
# control directory $H, the processes to kill at exit ($PIDS) and the mounts to undo.
#   host_test_begin NAME
host_test_begin() {
	TMPD=$(mktemp -d "/tmp/vsched-$1.XXXXXX")
	export VSCHED_RUN_DIR=$TMPD/run
	H=$VSCHED_RUN_DIR/host
	PIDS=""
	trap host_test_cleanup EXIT
}
host_test_cleanup() {
	local p
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	grep -o " $TMPD[^ ]*" /proc/self/mounts 2>/dev/null | while read -r m; do umount -l "$m"; done
	rm -rf "$TMPD"
}
# The logs of the test's processes with the failure (a test may define its own after this).
fail() { echo "FAIL: $*"; for f in "$TMPD"/*.log; do echo "--- $f"; cat "$f"; done; exit 1; }
# wait_for COND-COMMAND: up to 5 s
wait_for() {
	local i
	for i in $(seq 500); do eval "$1" && return 0; sleep 0.01; done
	return 1
}
# host_daemon_start ARGS...: `vsched host ARGS` in the background ($HP, killed at exit), its log
# host.log, back once its socket is there
host_daemon_start() {
	"$VSCHED" host "$@" >"$TMPD/host.log" 2>&1 &
	HP=$!
	PIDS="$PIDS $HP"
	wait_for '[ -S "$VSCHED_RUN_DIR/host.sock" ]' || fail "the daemon did not start"
}
# host_daemon_stop: SIGTERM, and the daemon must exit 0
host_daemon_stop() {
	kill -TERM "$HP"
	wait "$HP" || fail "the daemon exited $? on SIGTERM"
}
