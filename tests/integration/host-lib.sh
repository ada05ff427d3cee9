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
# host_daemon_restart SIG ARGS...: the daemon killed with SIG (TERM: it must exit 0), a new one
# started with ARGS
host_daemon_restart() {
	local sig=$1
	shift
	if [ "$sig" = TERM ]; then
		host_daemon_stop
	else
		kill -"$sig" "$HP"
		wait "$HP" 2>/dev/null
	fi
	host_daemon_start "$@"
}
# host_tree_saved PATTERN...: up to 5 s each for the daemon's saved tree (<run dir>/.host-tree,
# written within 250 ms of a change, by a thread that may wait for a CPU) to hold a line matching
# each Perl regex (\t a tab): what a SIGKILLed daemon's successor restores, not a sleep's guess.
host_tree_has() { grep -qP -- "$1" "$VSCHED_RUN_DIR/.host-tree" 2>/dev/null; }
host_tree_saved() {
	local p
	for p in "$@"; do
		wait_for 'host_tree_has "$p"' || fail "the daemon did not save a line like '$p': \
$(cat "$VSCHED_RUN_DIR/.host-tree" 2>&1)"
	done
}
# host_deleg_begin NAME: the delegation tests' start: host_test_begin, user U (65534) and as_u to
# run as it, a daemon on 2 CPUs, and start_w LOG [run flags]: VM w (one hog vCPU, group d) in
# the background ($WP), its directory in the daemon's $D
host_deleg_begin() {
	host_test_begin "$1"
	U=65534
	mkdir -p "$VSCHED_RUN_DIR"
	chmod 755 "$TMPD" "$VSCHED_RUN_DIR"
	host_daemon_start --cpus 2
	wait_for "[ -e $H/cgroup.procs ]" || fail "no control directory $H"
	D=$H/machine/w
}
as_u() { setpriv --reuid="$U" --regid="$U" --clear-groups "$@"; }
start_w() {	# LOG [run flags]
	local log=$1
	shift
	"$VSCHED" run --host --accel thread --name w --vcpus 1 --payload hog --duration 30s \
		--group d "$@" >"$TMPD/$log.log" 2>&1 &
	WP=$!
	PIDS="$PIDS $WP"
}
# held_stats FILE WAKER NR_VCPUS WHAT: one run's --stats of the held-lane tests: held lanes taken
# and the waker's wake-ups added to $held and $sleeps, said with every vCPU's CPU time; fails
# when a figure is missing or a vCPU did not run.
held_stats() {
	local f=$1 w=$2 n=$3 what=$4 h s c i cpus="" ran=1
	h=$(sed -nE 's/.*"held_offers": ([0-9]+).*/\1/p' "$f")
	s=$(sed -nE "s/.*\"id\": $w,.*\"sleeps\": ([0-9]+),.*/\1/p" "$f")
	for ((i = 0; i < n; i++)); do
		c=$(sed -nE "s/.*\"id\": $i,.*\"cpu_ns\": ([0-9]+),.*/\1/p" "$f")
		cpus="$cpus${cpus:+ / }${c:-?}"
		[ "${c:-0}" -gt 0 ] || ran=0
	done
	echo "$what run $runs: ${h:-?} held lanes taken by vCPU $w in ${s:-?} wake-ups; vCPU CPU $cpus ns"
	[ -n "$h" ] && [ -n "$s" ] || fail "$what: no held_offers or sleeps in --stats"
	[ $ran = 1 ] || fail "$what: a vCPU did not run"
	held=$((held + h)) sleeps=$((sleeps + s))
}
