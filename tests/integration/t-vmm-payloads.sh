#!/usr/bin/env bash
# Every payload kind runs on its own vCPU and its counters advance (unscheduled: the vCPU
# scheduler would add slice-end exits to the halt-duty count below), on every backend.
set -u
. "$(dirname "$0")/lib-vmm.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for accel in $(test_accels); do
	echo "== $accel"
	"$VSCHED" run --accel "$accel" --no-sched --vcpus 4 \
		--payload 0=hog,1=duty:2000/3000,2=halt-duty:2000/3000,3=io:500 \
		--duration 1.5 --stats "$out/s.json" >"$out/log" 2>&1
	rc=$?
	cat "$out/log"
	[ $rc -eq 0 ] || fail "$accel: exit status $rc, want 0"
	[ "$(vmm_field "$out/s.json" exit)" = stopped ] || fail "$accel: exit reason"
	for v in 0 1 2 3; do
		u=$(vmm_vcpu_field "$out/s.json" $v units)
		[ "${u:-0}" -gt 1000 ] || fail "$accel: vcpu$v did only ${u:-0} units"
		t=$(vmm_vcpu_field "$out/s.json" $v tid)
		[ "${t:-0}" -gt 0 ] || fail "$accel: vcpu$v has no tid"
	done
	# duty sleeps through the paravirtual port: once per 2 ms burst, so at least once per 10 ms
	# of its CPU (counted against its CPU, not the wall: a loaded host gave it 0.095 s of 1.5).
	s=$(vmm_vcpu_field "$out/s.json" 1 sleeps)
	c=$(vmm_vcpu_field "$out/s.json" 1 cpu_ns)
	[ "${s:-0}" -ge 10 ] && [ "${s:-0}" -ge $(( ${c:-0} / 10000000 )) ] ||
		fail "$accel: duty vCPU slept ${s:-0} times in ${c:-0} ns of CPU"
	for v in 1 2; do
		c=$(vmm_vcpu_field "$out/s.json" $v cpu_ns)
		# 40 % duty over 1.5 s: 0.6 s of busy; 1.2 s would mean it never idled.
		[ "${c:-0}" -lt 1200000000 ] || fail "$accel: vcpu$v used ${c} ns of CPU: it did not idle"
	done
	# halt-duty idles halted inside the backend (KVM: HLT woken by the LAPIC timer; thread:
	# blocked in the kernel), not through exits: about 300 busy/halt periods in 1.5 s, but
	# only the hello and final exits.
	e=$(vmm_vcpu_field "$out/s.json" 2 exits)
	[ "${e:-99}" -lt 10 ] || fail "$accel: halt-duty vCPU made $e exits"
	# io makes a port exit every 500 units.
	u=$(vmm_vcpu_field "$out/s.json" 3 units)
	io=$(vmm_vcpu_field "$out/s.json" 3 io_port_exits)
	[ "${io:-0}" -ge $((u / 500 - 1)) ] && [ "${io:-0}" -gt 10 ] ||
		fail "$accel: io exits $io for $u units"
done
echo "payloads ok"
