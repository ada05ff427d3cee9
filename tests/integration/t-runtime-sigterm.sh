#!/usr/bin/env bash
# SIGTERM while the only group is throttled (quota 1 ms per 100 ms, two hogs): the VMM stops
# within 5 s, exits 143 (128 + SIGTERM) and still writes its statistics; on every backend.
. "$(dirname "$0")/runtime-lib.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for accel in $(test_accels); do
	"$VSCHED" run --accel "$accel" --vcpus 2 --payload hog --cpus 1 --stats "$out" \
		--group c:max="1000 100000" --assign 0-1=c >/dev/null &
	pid=$!
	# SIGTERM once the vCPUs ran 5 ms (the group's 1 ms quota used up, so throttled), not
	# after a fixed 1 s: at load 21 they had not run 1 ms by then (nr_throttled 0, failed).
	# Up to 20 s.
	for i in $(seq 200); do
		ran=0
		for t in /proc/$pid/task/*; do
			case $(cat "$t/comm" 2>/dev/null) in
			vcpu*) read -r r _ <"$t/schedstat" 2>/dev/null && ran=$((ran + r)) ;;
			esac
		done
		[ $ran -ge 5000000 ] && break
		sleep 0.1
	done
	sleep 0.2
	kill -TERM $pid
	for i in $(seq 50); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $pid 2>/dev/null; then
		kill -KILL $pid
		echo "$accel: still running 5 s after SIGTERM"
		exit 1
	fi
	wait $pid
	rc=$?
	[ $rc -eq 143 ] || { echo "$accel: exit status $rc, want 143"; exit 1; }
	thr=$(group_stat "$out" /c nr_throttled)
	echo "$accel: exit 143, nr_throttled $thr"
	[ -n "$thr" ] && [ "$thr" -gt 0 ] || { echo "$accel: group was never throttled"; exit 1; }
done
