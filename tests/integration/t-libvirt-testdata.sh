#!/usr/bin/env bash
# libvirt's own test files (../shared/testdata/libvirt, see its SOURCES.md) through the command
# line: `vsched apply --dry-run` shows the plan of each file libvirt's suite accepts (no VM of
# that name runs: the plan `vsched run --domain` would apply) and refuses the ones it refuses,
# with one message. Skips visibly when a clone has no ../shared.
set -u
fail() { echo "FAIL: $*"; exit 1; }
data=${SHARED:-}/testdata/libvirt
[ -n "${SHARED:-}" ] && [ -d "$data" ] ||
	{ echo "skip: ${SHARED:-../shared}/testdata/libvirt is absent (no ../shared next to this clone)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export VSCHED_RUN_DIR=$tmp/run VSCHED_LIBVIRT_RUNDIR=$tmp/libvirt
apply() { "$VSCHED" apply --domain "$data/$1" --dry-run >"$tmp/out" 2>"$tmp/err"; }

for f in qemuxmlconfdata__cputune.xml qemuxml2argvdata__cputune-iothreads.xml; do
	apply $f || fail "$f refused: $(cat "$tmp/err")"
	grep -q "^# no VM named 'QEMUGuest1' runs" "$tmp/out" || fail "$f: no plan: $(cat "$tmp/out")"
	grep -q "^write $VSCHED_RUN_DIR/QEMUGuest1/libvirt/cpu.max max 1000000$" "$tmp/out" ||
		[ $f != qemuxmlconfdata__cputune.xml ] || fail "$f: global cap: $(cat "$tmp/out")"
	grep -q "vsched has no iothreads; ignored" "$tmp/err" || fail "$f: no iothread warning"
done
# Parsed by libvirt, refused by any cgroup back end (shares 0), as by vsched's.
apply qemuxml2argvdata__cputune-zero-shares.xml && fail "zero shares accepted"
grep -q "<shares> '0': shares '0' must be in range \[1, 10000\]" "$tmp/err" ||
	fail "zero shares: $(cat "$tmp/err")"
# A parse error in libvirt's suite.
apply qemuxml2argvdata__cputune-vcpusched-overlap.xml && fail "overlapping vcpusched accepted"
grep -q "vcpussched attributes 'vcpus' must not overlap" "$tmp/err" || fail "overlap: $(cat "$tmp/err")"
[ "$(grep -vc "^vsched apply: warning: " "$tmp/err")" = 1 ] || fail "more than one error line: $(cat "$tmp/err")"
[ -e "$VSCHED_RUN_DIR" ] && fail "a dry run made $VSCHED_RUN_DIR"
echo ok
