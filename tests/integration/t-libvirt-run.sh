#!/usr/bin/env bash
# `vsched run --domain FILE`: the VM takes its name, vCPU count and memory from the domain XML,
# its backend from the domain type ('kvm': KVM, 'qemu': the thread backend), and the domain's
# groups and <cputune> are set up on its group tree (seen in --stats); an invalid domain (bad
# value, bad groups, a type vsched does not run, --accel against the type) is refused with one
# message and nothing starts. On every backend; type 'kvm' where KVM is missing is refused.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/accel-lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A private run directory: the domain's name is fixed (fromxml), and another run of the test (a
# second make check on the machine) or a VM of that name in /run/vsched refused this one.
export VSCHED_RUN_DIR=$tmp/run

dom() { # type
	cat > "$tmp/ok.xml" <<XML
<domain type='$1'>
  <name>fromxml</name>
  <memory unit='MiB'>48</memory>
  <vcpu current='2'>3</vcpu>
  <cputune><period>100000</period><quota>60000</quota></cputune>
  <metadata>
    <vs:groups xmlns:vs="https://vsched.dev/xmlns/groups/1.0">
      <vs:group name="latency" weight="400"/>
      <vs:assign vcpus="0" group="latency"/>
    </vs:groups>
  </metadata>
</domain>
XML
}

for accel in $(test_accels); do
	type=$(domain_type "$accel")
	dom "$type"
	out=$("$VSCHED" run --domain "$tmp/ok.xml" --duration 300ms --stats "$tmp/s.json" \
		2>"$tmp/err") || fail "$type: run --domain: $(cat "$tmp/err")"
	echo "$out" | grep -q "^vm fromxml: " || fail "$type: name not taken from the domain: $out"
	[ "$(echo "$out" | grep -c '^vcpu[0-9]')" = 2 ] || fail "$type: want 2 vCPUs (current): $out"
	grep -q "ok.xml:4: <vcpu>: current='2' of 3: vsched has no vCPU hot-plug; vCPU 2 never starts" \
		"$tmp/err" || fail "$type: no hot-plug warning: $(cat "$tmp/err")"
	[ "$(wc -l < "$tmp/err")" = 1 ] || fail "$type: more than the warning: $(cat "$tmp/err")"
	grep -q "\"accel\": \"$accel\"," "$tmp/s.json" || fail "$type: not run on $accel"
	grep -q '"memory": 50331648,' "$tmp/s.json" ||
		fail "$type: memory not 48 MiB: $(grep memory "$tmp/s.json")"
	# The plan ran on the VM's group tree: the groups, their settings, the per-vCPU caps.
	grep -q '{"path": "/latency", "cpu.weight": 400, "cpu.max": "max 100000"' "$tmp/s.json" ||
		fail "$type: no /latency group: $(grep path "$tmp/s.json")"
	grep -q '{"path": "/latency/vcpu0", "cpu.weight": 100, "cpu.max": "60000 100000"' \
		"$tmp/s.json" || fail "$type: no per-vCPU cap for vCPU 0: $(grep path "$tmp/s.json")"
	grep -q '{"path": "/vcpu1", "cpu.weight": 100, "cpu.max": "60000 100000"' "$tmp/s.json" ||
		fail "$type: no per-vCPU cap for vCPU 1: $(grep path "$tmp/s.json")"
	# --accel agreeing with the type is fine.
	"$VSCHED" run --domain "$tmp/ok.xml" --accel "$accel" --duration 100ms >/dev/null 2>&1 ||
		fail "$type: --accel $accel refused"
done

# --accel against the type: a usage error, nothing runs.
dom kvm
out=$("$VSCHED" run --domain "$tmp/ok.xml" --accel thread --duration 300ms 2>"$tmp/err")
rc=$?
[ $rc = 2 ] && [ -z "$out" ] || fail "type kvm with --accel thread: exit $rc: $out"
grep -q "^vsched run: --accel thread contradicts <domain type='kvm'> in $tmp/ok.xml" "$tmp/err" ||
	fail "message: $(cat "$tmp/err")"
# Type 'kvm' where KVM is missing: refused, saying why and what runs instead.
case " $(test_accels) " in
*" kvm "*) ;;
*)
	out=$("$VSCHED" run --domain "$tmp/ok.xml" --duration 300ms 2>"$tmp/err")
	rc=$?
	[ $rc = 1 ] && [ -z "$out" ] || fail "type kvm without KVM: exit $rc: $out"
	grep -q "<domain type='kvm'> needs KVM: .*type 'qemu' runs on the thread backend" \
		"$tmp/err" || fail "type kvm without KVM: $(cat "$tmp/err")"
	;;
esac
# A type vsched does not run: the element, line and value.
sed "s/type='kvm'/type='xen'/" "$tmp/ok.xml" > "$tmp/xen.xml"
"$VSCHED" run --domain "$tmp/xen.xml" --duration 300ms >/dev/null 2>"$tmp/err" && fail "xen accepted"
grep -q "xen.xml:1: <domain> 'xen': domain type 'xen': vsched runs type 'kvm'" "$tmp/err" ||
	fail "message: $(cat "$tmp/err")"

# --domain brings its own groups: --group/--assign beside it is a usage error.
"$VSCHED" run --domain "$tmp/ok.xml" --assign 0=latency --duration 300ms >/dev/null 2>&1
[ $? = 2 ] || fail "--domain with --assign accepted"

# Invalid: one message naming file, line, element and value; exit 2; no VM.
sed 's/weight="400"/weight="0"/' "$tmp/ok.xml" > "$tmp/bad.xml"
out=$("$VSCHED" run --domain "$tmp/bad.xml" --duration 300ms 2>"$tmp/err")
rc=$?
[ $rc = 2 ] || fail "bad domain: exit $rc, want 2"
[ -z "$out" ] || fail "something ran: $out"
grep -q "bad.xml:8: <group> '0': weight must be in range \[1, 10000\]" "$tmp/err" ||
	fail "message: $(cat "$tmp/err")"
[ "$(wc -l < "$tmp/err")" = 1 ] || fail "more than one message: $(cat "$tmp/err")"

# More vCPUs than the VMM runs: the <vcpu> element, its line and value; exit 2.
printf '<domain><name>x</name><memory>1024</memory>\n<vcpu>200</vcpu></domain>' > "$tmp/big.xml"
"$VSCHED" run --domain "$tmp/big.xml" --duration 300ms >/dev/null 2>"$tmp/err"
[ $? = 2 ] || fail "200 vCPUs: not exit 2"
grep -q "big.xml:2: <vcpu> '200': 200 vCPUs to start, this VMM runs at most 128" "$tmp/err" ||
	fail "message: $(cat "$tmp/err")"

# Too little RAM for payload guests: <memory> and its line, not the --memory flag it excludes.
printf '<domain><name>x</name>\n<memory>1024</memory></domain>' > "$tmp/small.xml"
out=$("$VSCHED" run --domain "$tmp/small.xml" --duration 300ms 2>"$tmp/err")
[ $? = 2 ] || fail "1 MiB of RAM: not exit 2"
[ -z "$out" ] || fail "something ran: $out"
grep -q "small.xml:2: <memory>: 1024K of RAM; a VM of payload guests (no <os><kernel>) needs" \
	"$tmp/err" || fail "message: $(cat "$tmp/err")"
# A dry run of a VM that does not run shows what run would do: here, refuse (it printed a plan).
out=$(VSCHED_RUN_DIR=$tmp/run "$VSCHED" apply --domain "$tmp/small.xml" --dry-run 2>"$tmp/err")
[ $? != 0 ] || fail "apply --dry-run of a VM run refuses: exit 0"
[ -z "$out" ] || fail "apply --dry-run printed a plan: $out"
grep -q "small.xml:2: <memory>: 1024K of RAM" "$tmp/err" || fail "dry run: $(cat "$tmp/err")"

printf '<domain><name>x</name><memory>1024</memory>\n<cputune><shares>0</shares></cputune></domain>' \
	> "$tmp/zero.xml"
"$VSCHED" run --domain "$tmp/zero.xml" --duration 300ms >/dev/null 2>"$tmp/err" &&
	fail "shares 0 accepted"
grep -q "zero.xml:2: <shares> '0': shares '0' must be in range \[1, 10000\]" "$tmp/err" ||
	fail "message: $(cat "$tmp/err")"
echo ok
