#!/usr/bin/env bash
# `vsched run --domain FILE` and the host scheduler (issue 17), with the domain files of
# tests/libvirt/host/ (each says what it expects on its first line):
#  - bad-*.xml: refused before anything starts (exit 2), one message naming file, line,
#    element and value;
#  - join-*.xml (a <resource><partition>, or <vsched:groups host='yes'>): the domain joins the
#    host scheduler; with none running it stops there (exit 1, "no host scheduler at ..."),
#    and its <shares> is not warned about (the VM's group on the host scheduler takes it);
#  - embedded-*.xml (no partition, or host='no'): runs embedded as before, <shares> reported
#    as not applied;
#  - --host against host='no', and --partition/--weight/--max beside --domain: refused.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/accel-lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
data=$here/../libvirt/host
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export VSCHED_RUN_DIR=$tmp/run
mkdir "$VSCHED_RUN_DIR"

expect() { sed -n '1s/^<!-- expect: \(.*\) -->$/\1/p' "$1"; }
run() { # FILE [flags]: exit status in rc, stderr in $tmp/err
	"$VSCHED" run --domain "$@" --accel thread --duration 300ms --no-ctl \
		--stats "$tmp/s.json" >/dev/null 2>"$tmp/err"
	rc=$?
}

n=0
for f in "$data"/bad-*.xml; do
	want=$(expect "$f")
	[ -n "$want" ] || fail "$f: no expectation on its first line"
	run "$f"
	[ $rc -eq 2 ] || fail "$(basename "$f"): exit $rc, want 2: $(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/err")" = 1 ] && grep -qF "vsched run: $f$want" "$tmp/err" ||
		fail "$(basename "$f"): got '$(cat "$tmp/err")', want 'vsched run: $f$want'"
	[ ! -e "$tmp/s.json" ] || fail "$(basename "$f"): a VM ran"
	n=$((n + 1))
done
for f in "$data"/join-*.xml; do
	run "$f"
	[ $rc -eq 1 ] || fail "$(basename "$f"): exit $rc, want 1 (no host scheduler)"
	[ "$(cat "$tmp/err")" = "vsched run: no host scheduler at $VSCHED_RUN_DIR/host.sock: No such file or directory" ] ||
		fail "$(basename "$f"): $(cat "$tmp/err")"
	[ ! -e "$tmp/s.json" ] || fail "$(basename "$f"): a VM ran"
	n=$((n + 1))
done
for f in "$data"/embedded-*.xml; do
	run "$f"
	[ $rc -eq 0 ] || fail "$(basename "$f"): exit $rc: $(cat "$tmp/err")"
	grep -q "<cputune/shares>: the VM's group has no cpu.weight here; '200' not applied" "$tmp/err" ||
		fail "$(basename "$f"): no 'not applied' warning: $(cat "$tmp/err")"
	grep -q '"path": "/fast"' "$tmp/s.json" || fail "$(basename "$f"): groups not set up"
	rm -f "$tmp/s.json"
	n=$((n + 1))
done

# --host forces joining, but not against the domain's own host='no'.
run "$data/embedded-plain.xml" --host
[ $rc -eq 1 ] && grep -q "^vsched run: no host scheduler at" "$tmp/err" ||
	fail "--host with a plain domain: exit $rc: $(cat "$tmp/err")"
run "$data/embedded-no.xml" --host
[ $rc -eq 2 ] && grep -qF "embedded-no.xml:11: <groups> 'no': host='no' keeps this domain off the host scheduler; --host contradicts it" "$tmp/err" ||
	fail "--host against host='no': exit $rc: $(cat "$tmp/err")"
for b in "--partition /m" "--weight 5" "--max 50000"; do
	# shellcheck disable=SC2086
	run "$data/join-partition.xml" --host $b
	[ $rc -eq 2 ] && grep -q "^vsched run: ${b%% *}: --domain gives the partition, weight and cap" "$tmp/err" ||
		fail "--domain with $b: exit $rc: $(cat "$tmp/err")"
done
# A domain that joins takes no --cpus (the host scheduler's lanes).
"$VSCHED" run --domain "$data/join-metadata.xml" --cpus 1 >/dev/null 2>"$tmp/err"
grep -q "^vsched run: --cpus is refused with a domain that joins the host scheduler" "$tmp/err" ||
	fail "--cpus with a joining domain: $(cat "$tmp/err")"
echo "$n domain files as expected"
