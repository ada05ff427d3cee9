#!/usr/bin/env bash
# Boots Debian 12's cloud kernel (fetched now with apt-get download, cached under the build
# dir, never committed) and checks the serial console:
#  1. the bzImage, entered at its 64-bit entry with our zero page: the decompressor runs and
#     reads our command line ("KASLR disabled: 'nokaslr' on cmdline.");
#  2. the same kernel as an uncompressed ELF vmlinux (decompressed here from the bzImage's
#     payload): "Linux version", our e820 map, our ACPI tables and 2 CPUs from the MADT
#     appear on ttyS0.
# Then SIGTERM must stop the VM cleanly. Skips only without /dev/kvm or without the package.
# VSCHED_LINUX_SLOW=1 also waits for the bzImage's own "Linux version" (about 3 minutes here:
# the decompressor's CPL0 code is emulated by this machine's KVM; docs/linux-boot.md).
set -u
skip() { echo "$1"; exit 77; }
fail() { echo "FAIL: $1"; [ -n "${2:-}" ] && [ -f "$2" ] && tail -n 30 "$2"; exit 1; }

. "$(dirname "$0")/accel-lib.sh"
require_kvm
: "${VSCHED:?VSCHED must point at the vsched binary}"
cache="$(dirname "$VSCHED")/linux-cache"
mkdir -p "$cache" || fail "cannot create $cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- fetch: the package the metapackage linux-image-cloud-amd64 depends on ----------------
vmlinuz=$(ls "$cache"/vmlinuz-* 2>/dev/null | head -n 1)
if [ -z "$vmlinuz" ]; then
	pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null |
	      awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	[ -n "$pkg" ] || skip "package linux-image-cloud-amd64 unknown to apt (no apt lists?)"
	(cd "$work" && apt-get download -q "$pkg" >/dev/null 2>&1) ||
		skip "cannot download $pkg with apt-get download"
	dpkg-deb -x "$work"/"$pkg"_*.deb "$work/pkg" || fail "dpkg-deb -x failed"
	cp "$work"/pkg/boot/vmlinuz-* "$cache"/ || fail "no vmlinuz in $pkg"
	vmlinuz=$(ls "$cache"/vmlinuz-* | head -n 1)
fi
echo "kernel: $vmlinuz"

# --- vmlinux: the compressed payload of a bzImage, unpacked with the matching tool ---------
u8() { od -An -tu1 -j "$2" -N1 "$1" | tr -d ' '; }
u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
vmlinux="$cache/vmlinux"
if [ ! -s "$vmlinux" ]; then
	[ "$(dd if="$vmlinuz" bs=1 skip=$((0x202)) count=4 status=none)" = HdrS ] ||
		fail "$vmlinuz is not a bzImage"
	setup=$((($(u8 "$vmlinuz" $((0x1f1))) + 1) * 512))
	off=$((setup + $(u32 "$vmlinuz" $((0x248)))))
	len=$(u32 "$vmlinuz" $((0x24c)))
	dd if="$vmlinuz" of="$work/payload" bs=1M iflag=skip_bytes,count_bytes \
		skip="$off" count="$len" status=none || fail "cannot cut the payload"
	magic=$(od -An -tx1 -N4 "$work/payload" | tr -d ' ')
	case $magic in
	1f8b*) tool="gzip -dc" ;;
	fd377a58) tool="xz -dc --single-stream" ;;
	28b52ffd) tool="zstd -dcq" ;;
	02214c18) tool="lz4 -dc" ;;
	425a68*) tool="bzip2 -dc" ;;
	5d0000*) tool="xz -dc --format=lzma" ;;
	*) fail "unknown kernel compression (payload magic $magic)" ;;
	esac
	command -v "${tool%% *}" >/dev/null || fail "${tool%% *} missing (scripts/deps.sh)"
	# The kernel appends the decompressed size after the stream; the tools may complain
	# about those trailing bytes, so judge the output, not the exit status.
	$tool <"$work/payload" >"$work/vmlinux" 2>/dev/null
	[ "$(head -c 4 "$work/vmlinux" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] ||
		fail "decompressing with $tool gave no ELF file"
	mv "$work/vmlinux" "$vmlinux"
fi

# Boots a kernel until pattern shows on the console (or timeout s), then SIGTERMs the VMM.
boot() {
	local kernel=$1 pattern=$2 timeout=$3 out=$4 pid i status
	"$VSCHED" run --kernel "$kernel" --memory 256M --vcpus 2 --duration 600 \
		--cmdline "console=ttyS0 earlyprintk=serial,ttyS0,115200 reboot=k panic=-1 pci=off 8250.nr_uarts=1 nokaslr" \
		</dev/null >"$out" 2>"$out.err" &
	pid=$!
	for ((i = 0; i < timeout * 10; i++)); do
		grep -qs "$pattern" "$out" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	seen=$((i / 10))
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	status=$?
	cat "$out.err" >>"$out"
	echo "$(basename "$kernel"): '$pattern' after ${seen}s; vsched exit status $status"
	return $status
}

if [ "${VSCHED_LINUX_SLOW:-0}" = 1 ]; then
	boot "$vmlinuz" "Linux version" 600 "$work/bz.out"
	st=$?
	grep -q "Linux version [0-9]" "$work/bz.out" ||
		fail "bzImage: no banner on ttyS0" "$work/bz.out"
else
	# The whole line, as for the SMP line below: a SIGTERM as "KASLR disabled" showed cut it.
	boot "$vmlinuz" "KASLR disabled: 'nokaslr' on cmdline" 60 "$work/bz.out"
	st=$?
fi
grep -q "KASLR disabled: 'nokaslr' on cmdline" "$work/bz.out" ||
	fail "bzImage: the decompressor did not report our command line" "$work/bz.out"
# Still running when SIGTERM came: 128 + 15. A guest reset (3) would also be a clean end.
[ $st -eq 143 ] || [ $st -eq 3 ] || fail "bzImage: vsched exit status $st" "$work/bz.out"

# The SMP line comes after the banner, the e820 map and the ACPI table list.
# The whole line: the serial console writes it a byte at a time, and a kill mid-line cut it.
boot "$vmlinux" "smpboot: Allowing [0-9][0-9]* CPUs" 240 "$work/elf.out"
st=$?
grep -q "Linux version [0-9]" "$work/elf.out" || fail "vmlinux: no banner on ttyS0" "$work/elf.out"
grep -q "BIOS-e820: \[mem 0x0000000000100000-0x000000000fffffff\] usable" "$work/elf.out" ||
	fail "vmlinux: the kernel did not print our e820 map" "$work/elf.out"
grep -q "ACPI: RSDP 0x00000000000F2000" "$work/elf.out" ||
	fail "vmlinux: the kernel did not find our RSDP" "$work/elf.out"
# The cloud kernel has no MP table parser: both CPUs come from our MADT.
grep -q "smpboot: Allowing 2 CPUs" "$work/elf.out" ||
	fail "vmlinux: the kernel did not see 2 CPUs in the MADT" "$work/elf.out"
[ $st -eq 143 ] || [ $st -eq 3 ] || fail "vmlinux: vsched exit status $st" "$work/elf.out"
grep -m1 "Linux version" "$work/elf.out"
echo "PASS"
