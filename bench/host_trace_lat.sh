#!/usr/bin/env bash
# Where a grant by the daemon goes, round by round: bench-host-latency's rows named in ROWS
# (default parked,pinned; one at a time, each traced alone) under a tracefs instance of their own
# (sched_waking, sched_switch, A's send, the daemon's epoll_wait), then per round: A's send ->
# the daemon on a CPU -> its epoll_wait returns -> its wake-up of B (the grant page's futex) ->
# the daemon back in epoll_wait, and B on a CPU. Median / p90 of each step, how often B ran on
# the daemon's CPU. Times are inflated by the tracing (the same for builds compared in one
# sitting). Needs root and tracefs. docs/host.md, "Latency: the page, step by step".
# usage: bench/host_trace_lat.sh [path/to/bench-host-latency] [ROWS] [ROUNDS] [OUT]
set -u
B=$(readlink -f "${1:-build/bench-host-latency}")
rows=${2:-parked,pinned}
rounds=${3:-2000}
out=${4:-/tmp/vsched-trace-lat.$$}
T=/sys/kernel/tracing
[ -e $T/instances ] || mount -t tracefs nodev $T || exit 1
I=$T/instances/vsched-trace-lat.$$
EV="sched/sched_switch sched/sched_waking syscalls/sys_enter_sendto syscalls/sys_enter_epoll_wait
    syscalls/sys_exit_epoll_wait"
mkdir -p $I || exit 1
trap 'echo 0 >$I/tracing_on; for e in $EV; do echo 0 >$I/events/$e/enable; done; rmdir $I' EXIT
echo 0 >$I/tracing_on
echo 16384 >$I/buffer_size_kb
for e in $EV; do echo 1 >$I/events/$e/enable; done
for row in ${rows//,/ }; do
echo >$I/trace
echo 1 >$I/tracing_on
BENCH_LAT_ROWS=$row BENCH_LAT_ROUNDS=$rounds "$B" 2>/dev/null
echo 0 >$I/tracing_on
cat $I/trace >"$out.$row.trace"
awk '
function ts(    t) { t = $0; sub(/^.*\] [^ ]* */, "", t); sub(/:.*/, "", t); return t * 1e6 }
function cpu(    c) { c = $0; sub(/^[^[]*\[/, "", c); sub(/\].*/, "", c); return c + 0 }
function comm(    c) { c = $0; sub(/^ */, "", c); sub(/-[0-9]+ +\[.*/, "", c); return c }
function field(name,    i) {
	for (i = 1; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2)
	return ""
}
function add(k, v) { n[k]++; s[k, n[k]] = v }
function isort(m,    i, j, x) {	# v[1..m], ascending (mawk has no asort)
	for (i = 2; i <= m; i++) {
		x = v[i]
		for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]
		v[j + 1] = x
	}
}
/^#/ { next }
{
	now = ts(); who = comm(); c = cpu()
	if (who == "lat-main" && / sys_sendto\(/) { t0 = now; st = 1; next }
	if (st == 1 && / sched_switch: / && field("next_comm") == "bench-daemon") {
		t1 = now; d_cpu = c; st = 2; next
	}
	if (st == 2 && who == "bench-daemon" && / sys_epoll_wait -> /) { t2 = now; st = 3; next }
	if (st == 3 && who == "bench-daemon" && / sched_waking: / && field("comm") == "lat-waiter") {
		t3 = now; st = 4; next
	}
	if (st >= 4 && who == "bench-daemon" && / sys_epoll_wait\(/ && !t5) t5 = now
	if (st == 4 && / sched_switch: / && field("next_comm") == "lat-waiter") {
		t4 = now; b_cpu = c; st = 5
	}
	if (st == 5 && t5) {
		add(1, t1 - t0); add(2, t2 - t1); add(3, t3 - t2); add(4, t5 - t3); add(5, t4 - t3)
		add(6, t4 - t0); same += b_cpu == d_cpu; rounds++; st = 0; t5 = 0
	}
}
END {
	k[1] = "send -> daemon on a CPU"; k[2] = "daemon on a CPU -> epoll_wait returns"
	k[3] = "epoll_wait returns -> wakes B"; k[4] = "wakes B -> daemon in epoll_wait"
	k[5] = "wakes B -> B on a CPU"; k[6] = "send -> B on a CPU"
	for (i = 1; i <= 6; i++) {
		m = n[i]
		for (j = 1; j <= m; j++) v[j] = s[i, j]
		isort(m)
		if (m) printf "  %-40s median %6.1f us  p90 %6.1f us\n", k[i], v[int(m / 2) + 1],
			v[int(m * 9 / 10) + 1]
	}
	printf "  rounds traced %d, B on the daemon'"'"'s CPU in %d\n", rounds, same
}' "$out.$row.trace"
done
