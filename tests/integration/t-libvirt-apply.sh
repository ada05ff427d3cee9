#!/usr/bin/env bash
# `vsched apply` against a real cgroupfs directory: a test cgroup in the host's cpu hierarchy
# (v1 "cpu" or v2), holding a stand-in VMM whose threads are named vcpu0..3. Checks that groups
# are made with the right values, vCPU threads land in the right groups, --dry-run touches
# nothing, a bad domain changes nothing, and re-applying an edited domain re-tunes live.
set -u
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "$1"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root (writes the host's cgroup tree)"
command -v cc >/dev/null || skip "no C compiler for the helper"

tmp=$(mktemp -d)
helper_pid=
cg=
cleanup() {
	[ -n "$helper_pid" ] && kill "$helper_pid" 2>/dev/null && wait "$helper_pid" 2>/dev/null
	if [ -n "$cg" ] && [ -d "$cg" ]; then
		find "$cg" -depth -mindepth 1 -type d -exec rmdir {} \; 2>/dev/null
		rmdir "$cg" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# The cpu controller: a v1 hierarchy that has it, else cgroup v2 with cpu available.
v1=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpu(,|$)/ { print $5; exit }' /proc/self/mountinfo)
v2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
if [ -n "$v1" ]; then
	flavor=v1
	cg=$v1/vsched-test-$$
	procs=cgroup.procs
elif [ -n "$v2" ] && grep -qw cpu "$v2/cgroup.controllers" 2>/dev/null; then
	flavor=v2
	cg=$v2/vsched-test-$$
	procs=cgroup.procs
	echo +cpu > "$v2/cgroup.subtree_control" 2>/dev/null
else
	skip "no cgroup hierarchy with the cpu controller"
fi
mkdir "$cg" 2>/dev/null || skip "cannot create $cg (read-only cgroup tree?)"

cc -O2 -pthread -o "$tmp/vcpu-threads" "$here/helpers/vcpu-threads.c" || fail "helper build"
"$tmp/vcpu-threads" 4 > "$tmp/ready" &
helper_pid=$!
for _ in $(seq 50); do grep -q ready "$tmp/ready" 2>/dev/null && break; sleep 0.1; done
echo "$helper_pid" > "$cg/$procs" || fail "moving the helper into $cg"
tid() { for t in /proc/$helper_pid/task/*; do [ "$(cat "$t/comm")" = "vcpu$1" ] && basename "$t"; done; }
in_group() { # vcpu group
	local t; t=$(tid "$1")
	if [ $flavor = v1 ]; then grep -qx "$t" "$cg/$2/tasks"; else grep -qx "$t" "$cg/$2/cgroup.threads"; fi
}

dom() { # weight-of-fast quota-of-fast
	cat > "$tmp/d.xml" <<XML
<domain type='kvm'>
  <name>applytest</name>
  <memory unit='MiB'>64</memory>
  <vcpu placement='static'>4</vcpu>
  <cputune><period>100000</period><quota>60000</quota></cputune>
  <metadata>
    <vs:groups xmlns:vs="https://vsched.dev/xmlns/groups/1.0">
      <vs:group name="fast" weight="$1" quota="$2"/>
      <vs:group name="batch" weight="50"/>
      <vs:group name="bg" parent="batch" idle="yes"/>
      <vs:assign vcpus="0-1" group="fast"/>
      <vs:assign vcpus="2" group="bg"/>
    </vs:groups>
  </metadata>
</domain>
XML
}
weight_of() { # group -> weight as cpu.weight (v1: from cpu.shares)
	if [ $flavor = v1 ]; then cat "$cg/$1/cpu.shares"; else cat "$cg/$1/cpu.weight"; fi
}
quota_of() {
	if [ $flavor = v1 ]; then cat "$cg/$1/cpu.cfs_quota_us"; else cut -d' ' -f1 "$cg/$1/cpu.max"; fi
}

# Dry run: prints the writes, touches nothing.
dom 400 150000
out=$("$VSCHED" apply --domain "$tmp/d.xml" --ctl "$cg" --pid "$helper_pid" --dry-run) ||
	fail "dry run failed"
echo "$out" | grep -q "^mkdir $cg/fast$" || fail "dry run does not show mkdir: $out"
echo "$out" | grep -q "^write $cg/fast/vcpu0/" || fail "dry run misses the vCPU leaf: $out"
[ -d "$cg/fast" ] && fail "dry run created a group"

# A bad domain: one message with file, line, element, value; nothing changes.
sed 's/weight="50"/weight="0"/' "$tmp/d.xml" > "$tmp/bad.xml"
err=$("$VSCHED" apply --domain "$tmp/bad.xml" --ctl "$cg" --pid "$helper_pid" 2>&1) &&
	fail "bad domain accepted"
echo "$err" | grep -q "bad.xml:9: <group> '0': weight must be in range \[1, 10000\]" ||
	fail "error message: $err"
[ -d "$cg/fast" ] && fail "bad domain created a group"

# For real.
"$VSCHED" apply --domain "$tmp/d.xml" --ctl "$cg" --pid "$helper_pid" || fail "apply"
in_group 0 fast/vcpu0 || fail "vcpu0 not in fast/vcpu0"
in_group 1 fast/vcpu1 || fail "vcpu1 not in fast/vcpu1"
in_group 2 batch/bg/vcpu2 || fail "vcpu2 not in batch/bg/vcpu2"
in_group 3 vcpu3 || fail "vcpu3 not in vcpu3"
if [ $flavor = v1 ]; then
	[ "$(weight_of fast)" = 4096 ] || fail "fast cpu.shares $(weight_of fast), want 4096"
else
	[ "$(weight_of fast)" = 400 ] || fail "fast cpu.weight $(weight_of fast), want 400"
fi
[ "$(quota_of fast)" = 150000 ] || fail "fast quota $(quota_of fast)"
[ "$(quota_of fast/vcpu0)" = 60000 ] || fail "fast/vcpu0 quota $(quota_of fast/vcpu0)"
[ "$(cat "$cg/batch/bg/cpu.idle")" = 1 ] || fail "bg not idle"

# Live re-tune: edit the domain, apply again.
dom 200 80000
"$VSCHED" apply --domain "$tmp/d.xml" --ctl "$cg" --pid "$helper_pid" || fail "re-apply"
if [ $flavor = v1 ]; then
	[ "$(weight_of fast)" = 2048 ] || fail "re-tuned cpu.shares $(weight_of fast)"
else
	[ "$(weight_of fast)" = 200 ] || fail "re-tuned cpu.weight $(weight_of fast)"
fi
[ "$(quota_of fast)" = 80000 ] || fail "re-tuned quota $(quota_of fast)"
in_group 0 fast/vcpu0 || fail "vcpu0 moved away on re-apply"
echo "ok ($flavor)"
