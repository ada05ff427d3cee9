#!/usr/bin/env bash
# `vsched apply` and the libvirt hook honour a domain's host scheduler elements
# (<resource><partition>, <vsched:groups host='yes'>) as `vsched run --domain` does (thread
# backend, runs everywhere):
#  - a dry run of a joining domain with no VM running plans its groups straight below the VM
#    (no "libvirt" group) and its <shares>/global cap on its group in the daemon's directory;
#  - a VM started with --domain join-partition.xml under a daemon; the domain edited (shares,
#    global quota, a group's weight) and applied: <shares> becomes the daemon's cpu.weight of
#    /machine/tenant1/NAME, the cap its cpu.max, the group's weight lands in the VM's own
#    directory (and reaches the daemon's mirror); no warning;
#  - the same with another <partition>: applied, one warning naming <partition> (not moved);
#  - an embedded VM given a domain that says host='yes': one warning naming host='yes';
#  - the hook's validation of a QEMU domain with host='yes': one warning naming it, exit 0.
. "$(dirname "$0")/runtime-lib.sh"
[ -c /dev/fuse ] || { echo "no /dev/fuse: the test reads the daemon's control directory"; exit 77; }
data=$(cd "$(dirname "$0")/../libvirt/host" && pwd)
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-apply
fail() { echo "FAIL: $*"; for f in "$TMPD"/*.log "$TMPD"/*.err; do [ -e "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
mkdir -p "$VSCHED_RUN_DIR"
J=join-partition
VM=$VSCHED_RUN_DIR/$J
G=$H/machine/tenant1/$J

# No VM: the plan `vsched run --domain` would apply, the VM group's settings on the daemon.
"$VSCHED" apply --domain "$data/$J.xml" --dry-run >"$TMPD/dry.out" 2>"$TMPD/dry.err" ||
	fail "dry run: exit $?"
[ ! -s "$TMPD/dry.err" ] || fail "dry run warned: $(cat "$TMPD/dry.err")"
grep -q "/libvirt" "$TMPD/dry.out" && fail "dry run nests a libvirt group: the embedded plan"
grep -qx "write $G/cpu.weight 200" "$TMPD/dry.out" && grep -qx "write $G/cpu.max 50000 100000" \
	"$TMPD/dry.out" || fail "dry run: no VM group settings on the host scheduler"

"$VSCHED" host --cpus 2 >"$TMPD/host.log" 2>&1 &
HP=$!
PIDS="$PIDS $HP"
wait_for "[ -S $VSCHED_RUN_DIR/host.sock ] && [ -e $H/cgroup.procs ]" || fail "the daemon did not start"
"$VSCHED" run --domain "$data/$J.xml" --accel thread --duration 8s >"$TMPD/vm.log" 2>&1 &
VP=$!
PIDS="$PIDS $VP"
wait_for "[ -d $G/fast ] && [ -e $VM/fast/cpu.weight ]" || fail "the VM did not join"
[ "$(cat "$G/cpu.weight")" = 200 ] || fail "the VM group's weight is not the domain's <shares>"

sed -e 's|<shares>200<|<shares>400<|' -e 's|<global_quota>50000<|<global_quota>60000<|' \
	-e 's|weight="300"|weight="500"|' "$data/$J.xml" >"$TMPD/$J.xml"
"$VSCHED" apply --domain "$TMPD/$J.xml" >"$TMPD/apply.out" 2>"$TMPD/apply.err" ||
	fail "apply: exit $?"
[ ! -s "$TMPD/apply.err" ] || fail "apply warned: $(cat "$TMPD/apply.err")"
[ "$(cat "$G/cpu.weight")" = 400 ] || fail "<shares> not applied to the daemon's VM group"
[ "$(cat "$G/cpu.max")" = "60000 100000" ] || fail "the global cap not applied to the VM group"
[ "$(cat "$VM/fast/cpu.weight")" = 500 ] || fail "the group's weight not applied"
[ ! -e "$VM/libvirt" ] || fail "apply nested a libvirt group in a joined VM"
wait_for "[ \"\$(cat $G/fast/cpu.weight)\" = 500 ]" || fail "the daemon's mirror did not follow"

sed 's|/machine/tenant1|/machine/other|' "$TMPD/$J.xml" >"$TMPD/moved.xml"
"$VSCHED" apply --domain "$TMPD/moved.xml" >/dev/null 2>"$TMPD/moved.err" || fail "apply: exit $?"
[ "$(wc -l <"$TMPD/moved.err")" = 1 ] && grep -q "<partition>: '/machine/other': VM '$J' runs as /machine/tenant1/$J: a running VM is not moved" \
	"$TMPD/moved.err" || fail "another partition: $(cat "$TMPD/moved.err")"

# An embedded VM, a domain that says it joins.
"$VSCHED" run --domain "$data/embedded-plain.xml" --accel thread --duration 8s \
	>"$TMPD/emb.log" 2>&1 &
PIDS="$PIDS $!"
wait_for "[ -e $VSCHED_RUN_DIR/embedded-plain/fast/cpu.weight ]" || fail "the embedded VM did not start"
sed 's|<vs:groups xmlns:vs="https://vsched.dev/xmlns/groups/1.0">|<vs:groups xmlns:vs="https://vsched.dev/xmlns/groups/1.0" host="yes">|' \
	"$data/embedded-plain.xml" >"$TMPD/emb.xml"
"$VSCHED" apply --domain "$TMPD/emb.xml" >/dev/null 2>"$TMPD/emb.err" || fail "apply: exit $?"
grep -q "<groups>: host='yes': VM 'embedded-plain' runs embedded, not on the host scheduler" \
	"$TMPD/emb.err" || fail "embedded VM, joining domain: $(cat "$TMPD/emb.err")"

# The hook, a QEMU domain (no vsched VM of its name) that says host='yes'.
"$VSCHED" hook join-metadata prepare begin - <"$data/join-metadata.xml" 2>"$TMPD/hook.err" ||
	fail "hook: exit $?"
grep -q "<groups>: host='yes': a libvirt QEMU domain cannot join vsched's host scheduler" \
	"$TMPD/hook.err" || fail "hook, QEMU domain with host='yes': $(cat "$TMPD/hook.err")"
echo "ok"
