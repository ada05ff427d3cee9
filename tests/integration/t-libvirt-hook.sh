#!/usr/bin/env bash
# `vsched hook` as libvirt calls it (argv: guest operation sub-operation extra; XML on stdin),
# without libvirt: which operations act, exit codes, and the opt-in rule. The "running VM" is a
# test cgroup named like the domain under $VSCHED_RUN_DIR (cgroupfs behaves as a vsched
# control directory does), holding a process whose threads are named vcpu0..1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "$1"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root (writes the host's cgroup tree)"
command -v cc >/dev/null || skip "no C compiler for the helper"
v1=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpu(,|$)/ { print $5; exit }' /proc/self/mountinfo)
[ -n "$v1" ] || skip "needs the cgroup v1 cpu hierarchy (t-libvirt-apply covers v2)"

tmp=$(mktemp -d)
base=$v1/vsched-hooktest-$$
name=hookvm
cg=$base/$name
helper_pid=
cleanup() {
	[ -n "$helper_pid" ] && kill "$helper_pid" 2>/dev/null && wait "$helper_pid" 2>/dev/null
	[ -d "$base" ] && find "$base" -depth -mindepth 1 -type d -exec rmdir {} \; 2>/dev/null
	rmdir "$base" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$cg" || skip "cannot create $cg"
cc -O2 -pthread -o "$tmp/vcpu-threads" "$here/helpers/vcpu-threads.c" || fail "helper build"
"$tmp/vcpu-threads" 2 > "$tmp/ready" &
helper_pid=$!
for _ in $(seq 50); do grep -q ready "$tmp/ready" 2>/dev/null && break; sleep 0.1; done
echo "$helper_pid" > "$cg/cgroup.procs" || fail "moving the helper"
tid1=$(for t in /proc/$helper_pid/task/*; do [ "$(cat "$t/comm")" = vcpu1 ] && basename "$t"; done)

cat > "$tmp/d.xml" <<XML
<domain type='kvm'>
  <name>$name</name>
  <memory unit='MiB'>64</memory>
  <vcpu>2</vcpu>
  <metadata>
    <vs:groups xmlns:vs="https://vsched.dev/xmlns/groups/1.0">
      <vs:group name="g" weight="300"/>
      <vs:assign vcpus="1" group="g"/>
    </vs:groups>
  </metadata>
</domain>
XML
sed 's/weight="300"/weight="99999"/' "$tmp/d.xml" > "$tmp/bad.xml"
hook() { VSCHED_RUN_DIR=$base VSCHED_LIBVIRT_RUNDIR=$tmp/none "$VSCHED" hook "$@"; }

# Lifecycle operations that must not act, whatever the XML.
for op in "stopped end -" "release end destroyed" "migrate end -" "daemon start -"; do
	hook $name $op < "$tmp/bad.xml" 2>"$tmp/err" || fail "'$op' failed: $(cat "$tmp/err")"
done
[ -d "$cg/g" ] && fail "a no-op operation created a group"

# Validation before start: a bad domain exits 1 with one message; a good one exits 0.
hook $name prepare begin - < "$tmp/bad.xml" 2>"$tmp/err" && fail "prepare accepted a bad domain"
grep -q "<group> '99999': weight must be in range \[1, 10000\]" "$tmp/err" ||
	fail "prepare message: $(cat "$tmp/err")"
# The XML is libvirt's formatting, not the user's file: the message says so and quotes the line.
grep -q "^vsched hook: libvirt's domain XML (reformatted by libvirt, not your file):7: " "$tmp/err" ||
	fail "prepare message does not say whose XML it is: $(cat "$tmp/err")"
grep -qF '[line 7: `<vs:group name="g" weight="99999"/>`]' "$tmp/err" ||
	fail "prepare message does not quote the line: $(cat "$tmp/err")"
[ "$(wc -l < "$tmp/err")" = 1 ] || fail "more than one line: $(cat "$tmp/err")"
hook $name start begin - < "$tmp/d.xml" || fail "start refused a good domain"
[ -d "$cg/g" ] && fail "start applied the plan (only started does)"

# Name mismatch: the XML is not this guest's.
hook other started begin - < "$tmp/d.xml" 2>"$tmp/err" && fail "name mismatch accepted"

# started: apply. vcpu1's thread lands in g, with the weight (v1: 300 * 1024 / 100).
hook $name started begin - < "$tmp/d.xml" || fail "started"
grep -qx "$tid1" "$cg/g/tasks" || fail "vcpu1 not in g"
[ "$(cat "$cg/g/cpu.shares")" = 3072 ] || fail "g cpu.shares $(cat "$cg/g/cpu.shares")"

# reconnect never fails (libvirt would kill the guest), even with an error to report.
hook $name reconnect begin - < "$tmp/bad.xml" 2>"$tmp/err" || fail "reconnect exited non-zero"
grep -q "weight must be in range" "$tmp/err" || fail "reconnect did not report the error"

# A domain that does not use our namespace and has no vsched VM: left to libvirt entirely.
sed "s/<name>$name</<name>plain</; /metadata/,/\/metadata/d; s/<vcpu>2</<vcpu>2</" "$tmp/d.xml" |
	sed 's/<memory unit=.MiB.>64<\/memory>/<memory>x<\/memory>/' > "$tmp/plain.xml"
hook plain prepare begin - < "$tmp/plain.xml" || fail "a foreign domain was refused"
hook plain started begin - < "$tmp/plain.xml" || fail "a foreign domain failed at started"

# Usage: not libvirt's four arguments.
hook $name started < "$tmp/d.xml" 2>/dev/null
[ $? = 2 ] || fail "usage error is not exit 2"
echo ok
