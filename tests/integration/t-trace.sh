#!/usr/bin/env bash
# --trace (docs/trace.md): the trace of `vsched sim sim/scenarios/mixed.sim` and of a 3 s
# `vsched run` (every backend) pass scripts/trace-check.sh (trace-event format: known phases,
# complete or balanced slices, per-track time order, no overlapping slices on a lane or vCPU
# track), and each vCPU's slices add up to its usage within 0.1 %: in the simulator their
# running time and charged CPU both equal the report's usage; in the runtime the CPU charged to
# the slices (args.cpu_ns) equals its group's cpu.stat usage_usec (one vCPU per group). A
# cpu.weight, a cpu.max and vCPU moves written to a running VM's control directory appear as
# instants with the new values. The checker itself must refuse broken traces, and a --trace path
# that cannot be written is refused.
. "$(dirname "$0")/runtime-lib.sh"
command -v jq >/dev/null || { echo "jq missing (scripts/deps.sh installs it)"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
checker="$here/../../scripts/trace-check.sh"
tmp=$(mktemp -d)
vm=
trap '[ -z "$vm" ] || { kill -TERM $vm; wait $vm; } 2>/dev/null; rm -rf "$tmp"' EXIT

# within A B: |A - B| <= 0.1 % of B, or 1 us (cpu.stat's unit) for tiny values.
within() {
	check "($1 - $2 <= $2 / 1000 + 1000) && ($2 - $1 <= $2 / 1000 + 1000)"
}

# The checker fails on what Perfetto would misread.
bad() {
	printf '%s' "$2" > "$tmp/bad.json"
	if "$checker" "$tmp/bad.json" >/dev/null 2>&1; then
		echo "FAIL: trace-check accepted $1"; exit 1
	fi
}
meta='{"ph":"M","name":"thread_name","pid":2,"tid":1,"args":{"name":"vcpu0"}}'
bad "no JSON" '{"traceEvents": ['
bad "an unknown phase" "{\"traceEvents\":[$meta,{\"ph\":\"Q\",\"pid\":2,\"tid\":1,\"ts\":1}]}"
bad "overlapping slices" "{\"traceEvents\":[$meta,
	{\"ph\":\"X\",\"pid\":2,\"tid\":1,\"ts\":1,\"dur\":5,\"name\":\"a\"},
	{\"ph\":\"X\",\"pid\":2,\"tid\":1,\"ts\":4,\"dur\":5,\"name\":\"b\"}]}"
bad "time going back" "{\"traceEvents\":[$meta,
	{\"ph\":\"i\",\"s\":\"t\",\"pid\":2,\"tid\":1,\"ts\":5,\"name\":\"a\"},
	{\"ph\":\"i\",\"s\":\"t\",\"pid\":2,\"tid\":1,\"ts\":4,\"name\":\"b\"}]}"
bad "an unbalanced B" "{\"traceEvents\":[$meta,
	{\"ph\":\"B\",\"pid\":2,\"tid\":1,\"ts\":1,\"name\":\"a\"}]}"
bad "E without B" "{\"traceEvents\":[$meta,{\"ph\":\"E\",\"pid\":2,\"tid\":1,\"ts\":1}]}"
bad "a negative dur" "{\"traceEvents\":[$meta,
	{\"ph\":\"X\",\"pid\":2,\"tid\":1,\"ts\":1,\"dur\":-1,\"name\":\"a\"}]}"
bad "an unnamed track" '{"traceEvents":[{"ph":"X","pid":2,"tid":9,"ts":1,"dur":1,"name":"a"}]}'

# The simulator: slices add up to the report's per-vCPU usage (ms with 3 decimals).
"$VSCHED" sim "$here/../../sim/scenarios/mixed.sim" --trace "$tmp/sim.json" > "$tmp/sim.txt" ||
	{ echo "FAIL: vsched sim --trace"; exit 1; }
"$checker" "$tmp/sim.json" > "$tmp/sim.sums" || { echo "FAIL: sim trace"; exit 1; }
[ "$(wc -l < "$tmp/sim.sums")" = 12 ] ||
	{ echo "FAIL: sim: vCPU tracks"; cat "$tmp/sim.sums"; exit 1; }
while read -r name cpu run; do
	id=${name#vcpu}
	ms=$(awk -v id="$id" '$1 == "vcpu" { t = 1; next } t && $1 == id { print $4; exit }' \
		"$tmp/sim.txt")
	[ -n "$ms" ] || { echo "FAIL: sim report has no vCPU $id"; exit 1; }
	u=$(awk -v m="$ms" 'BEGIN { printf "%.0f", m * 1e6 }')
	within "$cpu" "$u" && within "$run" "$u" ||
		{ echo "FAIL: sim $name: cpu $cpu, running $run ns, report $u ns"; exit 1; }
done < "$tmp/sim.sums"
for ev in running waiting sleeping kick move refill usage 'quota left' cpu.weight cpu.max; do
	jq -e --arg n "$ev" 'any(.traceEvents[]; .name == $n)' "$tmp/sim.json" >/dev/null ||
		{ echo "FAIL: sim trace has no '$ev'"; exit 1; }
done
echo "sim: 12 vCPU tracks match the report"

# A trace that cannot be written says why (the disk is full), and the run fails.
for what in "sim $here/../../sim/scenarios/burst.sim" "run --accel thread -d 0.2 --no-ctl"; do
	err=$("$VSCHED" $what --trace /dev/full 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 1 ] && echo "$err" | grep -q "No space left on device" ||
		{ echo "FAIL: $what --trace /dev/full: exit $rc: $err"; exit 1; }
done
echo "--trace /dev/full: ENOSPC reported, exit 1"

# The runtime: a hog in a capped group, a duty and a halting duty vCPU, a hog; 2 lanes.
for accel in $(test_accels); do
	"$VSCHED" run --accel "$accel" --vcpus 4 --cpus 2 --duration 3s --no-ctl \
		--payload 0=hog,1=duty:3000/7000,2=halt-duty:2000/3000,3=hog \
		--group g0:max="20000 100000" --group g1 --group g2 --group g3 \
		--assign 0=g0 --assign 1=g1 --assign 2=g2 --assign 3=g3 \
		--stats "$tmp/stats.json" --trace "$tmp/run.json" >/dev/null ||
		{ echo "FAIL: $accel: vsched run --trace"; exit 1; }
	"$checker" "$tmp/run.json" > "$tmp/run.sums" || { echo "FAIL: $accel: run trace"; exit 1; }
	[ "$(wc -l < "$tmp/run.sums")" = 4 ] || { echo "FAIL: $accel: vCPU tracks"; exit 1; }
	while read -r name cpu run; do
		u=$(group_stat "$tmp/stats.json" "/g${name#vcpu}" usage_usec)
		within "$cpu" "$((u * 1000))" ||
			{ echo "FAIL: $accel: $name: slices charged $cpu ns, cpu.stat $u us"; exit 1; }
		echo "$accel: $name: cpu.stat $u us, slices $cpu ns CPU, running $run ns wall"
	done < "$tmp/run.sums"
	for ev in running waiting sleeping usage 'quota left' refill; do
		jq -e --arg n "$ev" 'any(.traceEvents[]; .name == $n)' "$tmp/run.json" >/dev/null ||
			{ echo "FAIL: $accel: run trace has no '$ev'"; exit 1; }
	done
	jq -e 'any(.traceEvents[]; .ph == "X" and .pid == 1)' "$tmp/run.json" >/dev/null ||
		{ echo "FAIL: $accel: no lane slices"; exit 1; }
done

# Changes while a VM runs, through its control directory: a cpu.weight, a cpu.max and two moves
# (cgroup.threads, vsched.vcpus) appear as instants with the new values, after the writes (which
# come at least 500 ms into the trace), and the trace still passes the checker.
if [ -c /dev/fuse ]; then
	# instant NAME TRACK-FILTER ARG VALUE: an instant at >= 500 ms with that argument
	instant() {
		jq -e --arg n "$1" --arg v "$4" "any(.traceEvents[]; .ph == \"i\" and
			.name == \$n and .ts >= 500000 and $2 and .args.$3 == \$v)" \
			"$tmp/set.json" >/dev/null ||
			{ echo "FAIL: $accel: no '$1' instant with $3 $4"; exit 1; }
	}
	gpid() {
		jq -r --arg g "group $1" 'first(.traceEvents[] | select(.ph == "M" and
			.name == "process_name" and .args.name == $g) | .pid)' "$tmp/set.json"
	}
	export VSCHED_RUN_DIR=$tmp/run
	for accel in $(test_accels); do
		"$VSCHED" run --accel "$accel" --name tr --vcpus 3 --cpus 2 --duration 60s \
			--payload 0=hog,1=hog,2=duty:2000/3000 \
			--group g0 --group g1 --group g2 --assign 0=g0 --assign 1=g1 --assign 2=g1 \
			--trace "$tmp/set.json" >"$tmp/set.log" 2>&1 &
		vm=$!
		D=$VSCHED_RUN_DIR/tr
		for i in $(seq 100); do
			[ "$(cat "$D/g1/vsched.vcpus" 2>/dev/null)" = 1-2 ] && break
			sleep 0.1
		done
		sleep 0.5
		tid1=$(grep -lx vcpu1 /proc/$vm/task/*/comm | cut -d/ -f5)
		{ echo 250 >"$D/g1/cpu.weight" && echo "30000 50000" >"$D/g0/cpu.max" &&
			echo "$tid1" >"$D/g0/cgroup.threads" && echo 2 >"$D/g2/vsched.vcpus"; } ||
			{ echo "FAIL: $accel: control directory writes"; cat "$tmp/set.log"; exit 1; }
		sleep 0.3
		kill -TERM $vm
		wait $vm
		rc=$?
		vm=
		[ $rc = 143 ] || { echo "FAIL: $accel: exit $rc after SIGTERM"; cat "$tmp/set.log"; exit 1; }
		"$checker" "$tmp/set.json" >/dev/null || { echo "FAIL: $accel: settings trace"; exit 1; }
		instant cpu.weight ".pid == $(gpid /g1)" value 250
		instant cpu.max ".pid == $(gpid /g0)" value "30000 50000"
		instant cpu.max.burst ".pid == $(gpid /g0)" value 0
		instant move '.pid == 2 and .tid == 2' to /g0
		instant move '.pid == 2 and .tid == 3' to /g2
		echo "$accel: cpu.weight, cpu.max and two moves recorded with their new values"
	done
else
	echo "skip: settings changed at run time (no /dev/fuse for the control directory)"
fi

# A path that cannot be written: refused before anything runs, nothing left behind.
# Exit status 1, a setup failure as an unreadable --kernel is (it was 2, usage).
for o in --trace --stats; do
	"$VSCHED" run --accel thread --payload hog --no-ctl --duration 100ms \
		$o "$tmp/no/such/dir.json" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || { echo "FAIL: run with an unwritable $o: exit $rc, want 1"; exit 1; }
	grep -q -- "$o $tmp/no/such/dir.json: No such file or directory" "$tmp/err" ||
		{ cat "$tmp/err"; exit 1; }
done
if "$VSCHED" sim --trace "$tmp/no/such/dir.json" "$here/../../sim/scenarios/mixed.sim" \
	>/dev/null 2>"$tmp/err"; then
	echo "FAIL: sim accepted an unwritable --trace"; exit 1
fi
grep -q -- "--trace $tmp/no/such/dir.json: No such file or directory" "$tmp/err" ||
	{ cat "$tmp/err"; exit 1; }
# --trace beside --stats naming the same file (by another name too), or beside --no-sched
# (no decisions to record): usage errors before anything runs, no file written. Before, the
# stats replaced the trace at exit, and --no-sched wrote a trace without a slice.
for args in "--trace $tmp/same.json --stats $tmp/same.json" \
	"--trace $tmp/same.json --stats $tmp/../$(basename "$tmp")/same.json" \
	"--no-sched --trace $tmp/same.json"; do
	# shellcheck disable=SC2086
	"$VSCHED" run --accel thread --payload hog --no-ctl --duration 100ms $args \
		>/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || { echo "FAIL: run $args: exit $rc, want 2"; cat "$tmp/err"; exit 1; }
	grep -Eq -- "--trace and --stats name the same file|--no-sched excludes --trace" \
		"$tmp/err" || { cat "$tmp/err"; exit 1; }
	[ ! -e "$tmp/same.json" ] || { echo "FAIL: run $args wrote the file"; exit 1; }
done
# A run that fails before the VM starts leaves a file that was there as it was (it removed it:
# a --stats path that cannot be written deleted an existing --trace file); a run that works
# replaces a longer file that was there with its whole document.
printf '{"kept": true}\n' > "$tmp/kept.json"
"$VSCHED" run --accel thread --payload hog --no-ctl --duration 100ms --trace "$tmp/kept.json" \
	--stats "$tmp/no/such/dir.json" >/dev/null 2>&1 && { echo "FAIL: run accepted --stats"; exit 1; }
[ "$(cat "$tmp/kept.json" 2>&1)" = '{"kept": true}' ] ||
	{ echo "FAIL: a failed run changed the existing --trace file: $(cat "$tmp/kept.json" 2>&1)"; exit 1; }
head -c 400000 /dev/zero | tr '\0' x > "$tmp/long.json"
cp "$tmp/long.json" "$tmp/long-stats.json"
"$VSCHED" run --accel thread --payload hog --no-ctl --duration 100ms --trace "$tmp/long.json" \
	--stats "$tmp/long-stats.json" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
jq -e .traceEvents "$tmp/long.json" >/dev/null && jq -e .nr_vcpus "$tmp/long-stats.json" >/dev/null ||
	{ echo "FAIL: an existing longer file was not replaced by the document"; exit 1; }
echo ok
