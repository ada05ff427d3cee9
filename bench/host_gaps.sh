#!/usr/bin/env bash
# Where a lane's CPU is without a vCPU, from bench/host_trace.sh's OUT.trace and OUT.tids: per
# CPU the stretches between a vCPU thread leaving it and the next one running there (count, CPU
# share, those over 1 ms); per waker class (daemon: the grant page's futex wake; vsched-host:
# the agent; vsched-rt: the helper; vcpu; migration: a thread moved after it ran, as a grantee
# woken on its old lane's CPU re-pinning itself) the vCPU threads' wake-ups: count, how many ran
# on a CPU other than the one they were woken on (moved before they ran, as by the agent's
# GRANT), wake -> run median / p90, over 1 ms. docs/host.md, "Latency: the grant page".
# usage: bench/host_gaps.sh OUT
set -u
out=${1:?usage: host_gaps.sh OUT (from bench/host_trace.sh)}
awk '
FNR == NR {	# OUT.tids: pid tid name [name VM]; the daemon'"'"'s threads have no VM
	if ($2 == "*") next
	k[$2] = NF >= 5 ? ($3 ~ /^vcpu/ ? "vcpu" : $3) : "daemon"
	next
}
function kind(tid, comm) {
	if (k[tid] != "") return k[tid]	# k[] gains empty entries as it is read
	sub(/\/[0-9]+$/, "", comm)
	return "other:" comm
}
function field(name,    i) {
	for (i = 1; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2)
	return ""
}
/: sched_(waking|wakeup|switch):/ {
	match($0, /\[[0-9]+\]/); cpu = substr($0, RSTART + 1, RLENGTH - 2) + 0
	match($0, /[0-9]+\.[0-9]+: sched_/); t = substr($0, RSTART, RLENGTH - 8) + 0
	match($0, /^ *.+-[0-9]+ +\[/); who = substr($0, 1, RLENGTH - 1); sub(/ +\[$/, "", who)
	sub(/ +$/, "", who); sub(/^ +/, "", who)
	wpid = who; sub(/.*-/, "", wpid); wcomm = who; sub(/-[0-9]+$/, "", wcomm)
	if (!t0) t0 = t
	t1 = t
}
/: sched_waking:/ {
	p = field("pid")
	if (k[p] == "vcpu") { wt[p] = t; wk[p] = kind(wpid, wcomm); tg[p] = field("target_cpu") + 0 }
	next
}
/: sched_wakeup:/ {
	p = field("pid")
	if (p in wt) tg[p] = field("target_cpu") + 0
	next
}
/: sched_switch:/ {
	pp = field("prev_pid"); np = field("next_pid")
	if (k[pp] == "vcpu" && k[np] != "vcpu") since[cpu] = t
	if (k[np] != "vcpu") next
	if (cpu in since) {
		g = t - since[cpu]; delete since[cpu]
		ng[cpu]++; sg[cpu] += g
		if (g > 1e-3) { nl[cpu]++; sl[cpu] += g }
		if (g > mg[cpu]) mg[cpu] = g
	}
	if (np in wt) {
		c = wk[np]; d = t - wt[np]; delete wt[np]
		n[c]++; dl[c, n[c]] = d
		if (tg[np] != cpu) moved[c]++
		if (d > 1e-3) slow[c]++
	}
}
END {
	T = t1 - t0
	printf "window %.3f s\n", T
	for (c in ng)
		printf "cpu%d: no-vCPU stretches %d, %.4f CPU; over 1 ms %d, %.4f CPU; longest %.2f ms\n",
		       c, ng[c], sg[c] / T, nl[c], sl[c] / T, mg[c] * 1e3
	for (c in n) {
		m = n[c]
		for (i = 1; i <= m; i++) {	# insertion sort: mawk has no asort()
			v = dl[c, i]
			for (j = i - 1; j >= 1 && a[j] > v; j--) a[j + 1] = a[j]
			a[j + 1] = v
		}
		printf "vCPU wake-ups by %s: %d/s, ran elsewhere %d, wake -> run median %.0f us p90 %.0f us, over 1 ms %d\n",
		       c, m / T, moved[c], a[int(m / 2) + 1] * 1e6, a[int(m * 9 / 10) + 1] * 1e6, slow[c]
		delete a
	}
}' "$out.tids" "$out.trace"
