#!/usr/bin/env bash
# The Linux boot path end to end with a stand-in kernel (linux-mini/mini.S, assembled here):
# ELF vmlinux loading, long-mode entry with RSI = zero page, command line and e820 in the zero
# page, COM1 output and input (polled, and by IRQ 4 through the 8259), APs held in wait-for-SIPI, and every way a guest ends: i8042
# reset, triple fault, power-off port, ACPI S5, --duration; INT3 delivered as #BP; STAC, CLAC,
# POPCNT and FWAIT results where this KVM cannot emulate them. Also bad
# kernel files and initrd placement.
set -u
skip() { echo "$1"; exit 77; }
fail() { echo "FAIL: $1"; [ -n "${2:-}" ] && cat "$2"; exit 1; }
. "$(dirname "$0")/accel-lib.sh"
require_kvm
: "${VSCHED:?VSCHED must point at the vsched binary}"
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

as --64 -o "$work/mini.o" "$here/linux-mini/mini.S" || fail "as failed"
ld -m elf_x86_64 -N -Ttext=0x1000000 -e _start -o "$work/mini" "$work/mini.o" 2>/dev/null ||
	fail "ld failed"

# run ACTION EXPECTED_STATUS [stdin]: boots mini with 2 vCPUs, checks status and console.
run() {
	local action=$1 want=$2 input=${3:-} st n
	printf '%s' "$input" | timeout -s KILL 30 "$VSCHED" run --kernel "$work/mini" --memory 64M \
		--vcpus 2 --duration 5 --cmdline "$action marker-$action" >"$work/out" 2>&1
	st=$?
	[ $st -eq "$want" ] || fail "$action: exit status $st, expected $want" "$work/out"
	grep -q "marker-$action / mini kernel: e820 entries=4" "$work/out" ||
		fail "$action: no command line / e820 count on COM1" "$work/out"
	# Only the BSP runs the entry code; the AP waits for a SIPI that never comes.
	n=$(grep -c "mini kernel" "$work/out")
	[ "$n" -eq 1 ] || fail "$action: entry code ran $n times (APs not in wait-for-SIPI?)" "$work/out"
	echo "$action: status $st"
}

run reset 3
grep -q "reset after" "$work/out" || fail "reset: not reported as a reset" "$work/out"
run triple 3
run poweroff 0
grep -q "poweroff after" "$work/out" || fail "poweroff: not reported as power-off" "$work/out"
run s5 0
grep -q "poweroff after" "$work/out" || fail "s5: not reported as power-off" "$work/out"
run echo 0 "Z"
grep -q "<Z>" "$work/out" || fail "echo: the byte from stdin did not reach the guest" "$work/out"
run irq 0 "Q"
grep -q "\[Q\]" "$work/out" || fail "irq: no COM1 interrupt for the byte from stdin" "$work/out"
# INT3 at CPL0: this machine's KVM cannot emulate it, the Linux path delivers the #BP.
run bp 0
grep -q "BA" "$work/out" || fail "bp: the #BP handler did not run and return" "$work/out"
# STAC, CLAC, POPCNT r64 and r32 (zero: ZF set, destination 0), FWAIT.
run c 0
grep -q "SC8Z0W" "$work/out" || fail "c: wrong STAC/CLAC/POPCNT/FWAIT results" "$work/out"
run halt 0
grep -q "stopped after" "$work/out" || fail "halt: --duration did not stop it" "$work/out"

# Bad kernel files: a clear message, exit status 1, nothing started.
bad() {
	local file=$1 msg=$2 st
	"$VSCHED" run --kernel "$file" --duration 5 >"$work/out" 2>&1
	st=$?
	[ $st -eq 1 ] || fail "$file: exit status $st, expected 1" "$work/out"
	grep -q "$msg" "$work/out" || fail "$file: message lacks '$msg'" "$work/out"
	grep -q "vcpu0 " "$work/out" && fail "$file: a vCPU ran" "$work/out"
	echo "refused $(basename "$file"): $(head -n 1 "$work/out")"
}
printf 'not a kernel at all' >"$work/junk"
: >"$work/empty"
head -c 300 "$work/mini" >"$work/truncated"
bad "$work/junk" "neither a bzImage"
bad "$work/empty" "neither a bzImage"
bad "$work/truncated" "outside the file"
bad "$work/missing" "No such file"
bad "$work" "not a regular file"
# An initrd lands in RAM (the guest starts); one that cannot fit is refused before start.
head -c 1048576 /dev/zero >"$work/initrd"
"$VSCHED" run --kernel "$work/mini" --initrd "$work/initrd" --memory 64M --duration 1 \
	--cmdline "halt initrd" </dev/null >"$work/out" 2>&1 || fail "1 MiB initrd: exit status $?" "$work/out"
grep -q "halt initrd / mini kernel" "$work/out" || fail "1 MiB initrd: guest did not run" "$work/out"
head -c $((60 << 20)) /dev/zero >"$work/initrd"
bad_initrd() {
	"$VSCHED" run --kernel "$work/mini" --initrd "$work/initrd" --memory 64M --duration 1 \
		</dev/null >"$work/out" 2>&1
}
bad_initrd && fail "60 MiB initrd in 64 MiB: started" "$work/out"
grep -q "do not fit" "$work/out" || fail "60 MiB initrd: no clear error" "$work/out"
echo "refused: $(head -n 1 "$work/out")"
echo "PASS"
