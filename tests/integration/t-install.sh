#!/usr/bin/env bash
# `make install DESTDIR=...`: the binary, the man page, the libvirt hook and the systemd unit of
# the host scheduler (host/vsched-host.service) with its @BINDIR@ replaced; UNITDIR moves the
# unit. Where systemd-analyze can read units, the installed unit has no key it does not know.
# The C API (vsched.h, libvsched.a, vsched.pc): a C and a C++ program built from the installed
# files alone, through pkg-config, run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The build directory of $VSCHED, relative to the tree when it is in it (nothing is rebuilt).
build=$(realpath --relative-to="$root" "$(dirname "$VSCHED")")

make -s -C "$root" --no-print-directory BUILD="$build" install DESTDIR="$tmp/a" PREFIX=/usr \
	>"$tmp/log" 2>&1 || fail "make install: $(cat "$tmp/log")"
cmp -s "$VSCHED" "$tmp/a/usr/bin/vsched" || fail "the binary was not installed"
[ -f "$tmp/a/usr/share/man/man1/vsched.1" ] || fail "no man page"
unit=$tmp/a/usr/lib/systemd/system/vsched-host.service
[ -f "$unit" ] || fail "no unit: $(cd "$tmp/a" && find . -type f)"
[ "$(stat -c %a "$unit")" = 644 ] || fail "unit mode $(stat -c %a "$unit")"
! grep -q @ "$unit" || fail "unsubstituted: $(grep @ "$unit")"
for want in "Type=notify" "ExecStart=/usr/bin/vsched host --pidfile /run/vsched/host.pid" \
	"Restart=on-failure"; do
	grep -qx "$want" "$unit" || fail "unit lacks '$want'"
done

make -s -C "$root" --no-print-directory BUILD="$build" install DESTDIR="$tmp/b" \
	UNITDIR=/etc/systemd/system BINDIR=/opt/vs/bin >"$tmp/log" 2>&1 ||
	fail "make install UNITDIR=: $(cat "$tmp/log")"
grep -qx "ExecStart=/opt/vs/bin/vsched host --pidfile /run/vsched/host.pid" \
	"$tmp/b/etc/systemd/system/vsched-host.service" || fail "UNITDIR/BINDIR not followed"
[ -x "$tmp/b/opt/vs/bin/vsched" ] || fail "BINDIR not followed for the binary"

# The unit's syntax, with ExecStart pointing at this build (verify wants an executable).
if command -v systemd-analyze >/dev/null; then
	sed "s|^ExecStart=/usr/bin/vsched|ExecStart=$VSCHED|" "$unit" >"$tmp/vsched-host.service"
	systemd-analyze verify --man=no "$tmp/vsched-host.service" >"$tmp/verify" 2>&1
	! grep -v "sysinit.target\|Failed to create\|Failed to load\|not found" "$tmp/verify" |
		grep -q . || fail "systemd-analyze verify: $(cat "$tmp/verify")"
fi
# A program against the installed C API only: no -I or -L into this tree.
inst=$tmp/a/usr
for f in include/vsched.h lib/libvsched.a lib/pkgconfig/vsched.pc; do
	[ -f "$inst/$f" ] || fail "no $f: $(cd "$tmp/a" && find . -type f)"
done
cat >"$tmp/api.c" <<'EOF'
#include <errno.h>
#include <string.h>
#include <vsched.h>

int main(void)
{
	struct vsched *vs = vsched_create(1, 2);
	char buf[64];

	if (!vs || vsched_mkdir_threaded(vs, "web") ||
	    vsched_write_str(vs, "web", "cpu.weight", "300") ||
	    vsched_write_str(vs, "web", "cpu.weight", "0") != -ERANGE ||
	    vsched_assign(vs, "1", "web") ||
	    vsched_read(vs, "web", "cpu.weight", buf, sizeof(buf)) != 4 || strcmp(buf, "300\n") ||
	    vsched_read(vs, "web", "vsched.vcpus", buf, sizeof(buf)) != 2 || strcmp(buf, "1\n"))
		return 1;
	vsched_destroy(vs);
	return 0;
}
EOF
cp "$tmp/api.c" "$tmp/api.cc"
pc() { PKG_CONFIG_PATH=$inst/lib/pkgconfig pkg-config --define-variable=prefix="$inst" "$@" vsched; }
flags=$(pc --cflags) && libs=$(pc --libs) || fail "pkg-config vsched"
case "$flags $libs" in *"$root"*) fail "vsched.pc points into the tree: $flags $libs";; esac
cc -std=c99 -Wall -Werror $flags -o "$tmp/api" "$tmp/api.c" $libs >"$tmp/log" 2>&1 ||
	fail "a C program against the installed API: $(cat "$tmp/log")"
"$tmp/api" || fail "the C program against the installed API failed"
if command -v c++ >/dev/null; then
	c++ -Wall -Werror $flags -o "$tmp/api++" "$tmp/api.cc" $libs >"$tmp/log" 2>&1 ||
		fail "a C++ program against the installed API: $(cat "$tmp/log")"
	"$tmp/api++" || fail "the C++ program against the installed API failed"
fi
echo "installed: binary, man page, hook, unit, C API"
