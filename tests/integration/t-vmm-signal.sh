#!/usr/bin/env bash
# SIGTERM, SIGINT and SIGHUP stop a running VM cleanly: 128+signal, stats written, threads named; a
# reader of its output that goes away (`vsched run | head`) does not kill it (SIGPIPE would leave
# its control directory mounted and its record behind); on every backend.
set -u
. "$(dirname "$0")/lib-vmm.sh"
out=$(mktemp -d)
trap 'fusermount3 -u -z "$out/run/pipe" 2>/dev/null; rm -rf "$out"' EXIT

for accel in $(test_accels); do
	for sig in TERM INT HUP; do
		rm -f "$out/s.json"
		"$VSCHED" run --accel "$accel" --vcpus 2 --payload hog --stats "$out/s.json" \
			>"$out/log" 2>&1 &
		pid=$!
		# Wait until both vCPU threads exist, and check their names on the way.
		for i in $(seq 100); do
			[ "$(cat /proc/$pid/task/*/comm 2>/dev/null | grep -c '^vcpu[01]$')" -eq 2 ] && break
			sleep 0.05
		done
		[ "$(cat /proc/$pid/task/*/comm 2>/dev/null | grep -c '^vcpu[01]$')" -eq 2 ] ||
			fail "$accel: vCPU threads vcpu0/vcpu1 not found"
		sleep 0.3
		kill -$sig $pid
		wait $pid
		rc=$?
		cat "$out/log"
		want=$((128 + $(kill -l $sig)))
		[ $rc -eq $want ] || fail "$accel: SIG$sig: exit status $rc, want $want"
		[ "$(vmm_field "$out/s.json" exit)" = stopped ] || fail "$accel: SIG$sig: exit reason"
		[ "$(vmm_field "$out/s.json" signal)" = "$(kill -l $sig)" ] ||
			fail "$accel: SIG$sig: signal field"
		u=$(vmm_vcpu_field "$out/s.json" 1 units)
		[ "${u:-0}" -gt 0 ] || fail "$accel: SIG$sig: no work before the signal"
	done
done
# stdout a pipe whose reader is gone by the first monitor line: the VM runs its --duration and
# goes as always, unmounted and unlisted.
export VSCHED_RUN_DIR=$out/run
for accel in $(test_accels); do
	"$VSCHED" run --accel "$accel" --name pipe --payload hog --monitor --duration 2 \
		2>"$out/err" | true
	rc=${PIPESTATUS[0]}
	[ $rc -eq 0 ] || fail "$accel: stdout closed: exit status $rc, want 0 ($(cat "$out/err"))"
	! grep -q " $out/run/pipe " /proc/self/mounts || fail "$accel: stdout closed: still mounted"
	[ ! -e "$out/run/.vms/pipe" ] || fail "$accel: stdout closed: its record left"
done
# A second SIGINT during the teardown (`timeout -s INT` signals the process and its group) is the
# stop already under way: the whole summary on stdout (a file), exit 130; one that comes after the
# teardown, once the old action is back, ends the process by SIGINT as any program, its summary
# written. Before, that action killed it inside the teardown, the summary unflushed (3-5 ms apart:
# 6 of 6 runs, 0 lines).
for accel in $(test_accels); do
	python3 - "$VSCHED" "$accel" "$out/two" <<'PY' || fail "$accel: a second SIGINT in the teardown"
import os, signal, subprocess, sys, time
vs, accel, path = sys.argv[1:4]
for gap in (0.003, 0.004, 0.005, 0.003, 0.004):
    with open(path, "w") as f:
        p = subprocess.Popen([vs, "run", "--accel", accel, "--vcpus", "4", "--payload", "hog",
                              "--duration", "5s"], stdout=f, stderr=subprocess.DEVNULL)
        # Its handlers are set before the VM is made: wait for the vCPU threads, not a guess.
        for _ in range(1000):
            try:
                names = [open("/proc/%d/task/%s/comm" % (p.pid, t)).read().strip()
                         for t in os.listdir("/proc/%d/task" % p.pid)]
            except OSError:
                names = []
            if sum(n.startswith("vcpu") for n in names) == 4:
                break
            time.sleep(0.01)
        time.sleep(0.1)
        p.send_signal(signal.SIGINT)
        time.sleep(gap)
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
        rc = p.wait()
    lines = open(path).read().splitlines()
    if rc not in (130, -signal.SIGINT) or len(lines) < 6:
        sys.exit("gap %.0f ms: exit %d, %d summary lines" % (gap * 1000, rc, len(lines)))
PY
done
echo "signals ok"
