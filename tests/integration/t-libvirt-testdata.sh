#!/usr/bin/env bash
# libvirt's own test files (tests/libvirt/suite, see its SOURCES.md; copied byte for byte from
# the 155 swept on branch xmlcorpus) through the command line, as EXPECT there says:
#  - `vsched apply --dry-run`: a file vsched takes prints the plan `vsched run --domain` would
#    apply (no VM of that name runs), exit 0, and names what it does not apply with its line;
#    one it refuses (as libvirt's suite does, or a documented limit) exits 1 with one message
#    naming file, line, element and value, and writes nothing;
#  - `vsched run --domain` (thread backend) of the type='qemu' files vsched took before branch
#    xmlcorpus refused them: the NUMA cells give the memory, a <cachetune> monitor of all its
#    vCPUs passes, a <vcpus> that enables other vCPUs is named once.
set -u
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
data=$here/../libvirt/suite
[ -f "$data/EXPECT" ] || fail "$data/EXPECT is missing"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export VSCHED_RUN_DIR=$tmp/run VSCHED_LIBVIRT_RUNDIR=$tmp/libvirt
apply() { "$VSCHED" apply --domain "$data/$1" --dry-run >"$tmp/out" 2>"$tmp/err"; }

n=0
while IFS=$'\t' read -r f outcome text; do
	case $f in ''|'#'*) continue ;; esac
	[ -f "$data/$f" ] || fail "EXPECT names $f, which is not in $data"
	apply "$f"
	rc=$?
	if [ "$outcome" = ok ]; then
		[ $rc = 0 ] || fail "$f refused: $(cat "$tmp/err")"
		grep -q "^# no VM named '.*' runs" "$tmp/out" || fail "$f: no plan: $(cat "$tmp/out")"
		grep -v "^vsched apply: warning: " "$tmp/err" | grep -q . &&
			fail "$f: more than warnings: $(cat "$tmp/err")"
	else
		[ $rc = 1 ] || fail "$f: exit $rc, want 1: $(cat "$tmp/err")"
		[ "$(grep -vc "^vsched apply: warning: " "$tmp/err")" = 1 ] ||
			fail "$f: not one error line: $(cat "$tmp/err")"
		[ -s "$tmp/out" ] && fail "$f: refused, yet printed a plan: $(cat "$tmp/out")"
	fi
	grep -qF -- "$data/$f$text" "$tmp/err" || fail "$f: want '$text' in: $(cat "$tmp/err")"
	n=$((n + 1))
done <"$data/EXPECT"
[ $n -ge 15 ] || fail "only $n EXPECT lines checked"
[ "$(ls "$data"/*.xml | wc -l)" -ge 14 ] || fail "files missing from $data"

# Plans: the global cap on a group 'libvirt', <vcpusched idle> as cpu.idle of vCPUs 2-3 only.
apply qemuxmlconfdata__cputune.xml
grep -q "^write $VSCHED_RUN_DIR/QEMUGuest1/libvirt/cpu.max max 1000000$" "$tmp/out" ||
	fail "global cap: $(cat "$tmp/out")"
apply genericxml2xmlindata__cputune.xml
[ "$(grep -c "/vcpu[23]/cpu.idle 1$" "$tmp/out")" = 2 ] &&
	[ "$(grep -c "/vcpu[01]/cpu.idle 0$" "$tmp/out")" = 2 ] || fail "vcpusched idle: $(cat "$tmp/out")"
[ -e "$VSCHED_RUN_DIR" ] && fail "a dry run made $VSCHED_RUN_DIR"

# Started: what the files say, one VM each (thread backend, 200 ms).
mkdir -p "$VSCHED_RUN_DIR"
run() { # FILE: exit status in rc, stderr in $tmp/err, stats in $tmp/s.json
	"$VSCHED" run --domain "$data/$1" --accel thread --duration 200ms --no-ctl \
		--stats "$tmp/s.json" >/dev/null 2>"$tmp/err"
	rc=$?
}
run qemuxml2argvdata__cpu-numa-no-memory-element.xml
[ $rc = 0 ] || fail "NUMA cells' memory: exit $rc: $(cat "$tmp/err")"
grep -q '"memory": 224358400,' "$tmp/s.json" || fail "memory not 219100 KiB: $(cat "$tmp/s.json")"
grep -q '"nr_vcpus": 16,' "$tmp/s.json" || fail "not 16 vCPUs: $(cat "$tmp/s.json")"
run genericxml2xmlindata__cachetune-small.xml
[ $rc = 0 ] || fail "cachetune-small: exit $rc: $(cat "$tmp/err")"
run qemuxml2argvdata__cpu-hotplug-startup.xml
[ $rc = 0 ] || fail "cpu-hotplug-startup: exit $rc: $(cat "$tmp/err")"
grep -q '"nr_vcpus": 3,' "$tmp/s.json" || fail "not 3 vCPUs: $(cat "$tmp/s.json")"
[ "$(grep -c "hot-plug" "$tmp/err")" = 1 ] || fail "hot-plug not named once: $(cat "$tmp/err")"
echo "ok ($n files' expectations)"
