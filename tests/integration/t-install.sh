#!/usr/bin/env bash
# `make install DESTDIR=...`: the binary, the man page, the libvirt hook and the systemd unit of
# the host scheduler (host/vsched-host.service) with its @BINDIR@ replaced; UNITDIR moves the
# unit. Where systemd-analyze can read units, the installed unit has no key it does not know.
# The C API (vsched.h, libvsched.a, vsched.pc): a C and a C++ program built from the installed
# files alone, through pkg-config, run; the header strictly (C89/C99/C++98 -pedantic); the
# library's global symbols only the API's; docs/api.md's example built and run as printed.
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
# Libs names only what the installed objects need: a program needs no libfuse3 or libxml2
# development files (branch apicheck: Libs had -lxml2 -lfuse3 that no API function uses).
case " $libs " in *" -lfuse3 "* | *" -lxml2 "*) fail "vsched.pc's Libs: $libs";; esac
# The .pc's directories are where the files went.
[ -f "$(pc --variable=includedir)/vsched.h" ] || fail "includedir: $(pc --variable=includedir)"
[ -f "$(pc --variable=libdir)/libvsched.a" ] || fail "libdir: $(pc --variable=libdir)"

# The header alone, strictly: C99 and C89 (-pedantic), C++98 and later.
printf '#include <vsched.h>\n' >"$tmp/h.c"
for std in c99 c89 c11; do
	cc -std=$std -pedantic -Wall -Wextra -Werror $flags -c -o "$tmp/h.o" "$tmp/h.c" \
		>"$tmp/log" 2>&1 || fail "vsched.h with -std=$std -pedantic: $(cat "$tmp/log")"
done
if command -v c++ >/dev/null; then
	cp "$tmp/h.c" "$tmp/h.cc"
	for std in c++98 c++11; do
		c++ -std=$std -pedantic -Wall -Wextra -Werror $flags -c -o "$tmp/h.o" "$tmp/h.cc" \
			>"$tmp/log" 2>&1 || fail "vsched.h with -std=$std -pedantic: $(cat "$tmp/log")"
	done
fi

# The library's global symbols are exactly the header's functions (branch apicheck: every
# module's, ~850 names such as cpuset_parse and xwarn).
sed -n '/^typedef/d; s/^[a-z][^(]*[ *]\(vsched_[a-z_]*\)(.*/\1/p' "$inst/include/vsched.h" |
	sort >"$tmp/want.syms"
# Every vsched_*( the header names, however a declaration is laid out, is one of them.
grep -o 'vsched_[a-z_]*(' "$inst/include/vsched.h" | tr -d '(' | sort -u |
	cmp -s - "$tmp/want.syms" ||
	fail "vsched.h names functions the symbol list (Makefile's API_SYMS sed) misses"
nm -g --defined-only "$inst/lib/libvsched.a" | awk 'NF == 3 { print $3 }' | sort >"$tmp/got.syms"
[ -s "$tmp/want.syms" ] && cmp -s "$tmp/want.syms" "$tmp/got.syms" ||
	fail "libvsched.a's global symbols are not vsched.h's: $(diff "$tmp/want.syms" "$tmp/got.syms" |
		grep '^[<>]' | head -5 | tr '\n' ' ')"
# A program taking the address of each links: the library defines every one.
{
	echo '#include <vsched.h>'
	echo 'int main(void)'
	echo '{'
	echo '	void (*volatile f)(void) = 0;'
	sed 's/.*/	f = (void (*)(void))&;/' "$tmp/want.syms"
	echo '	return f == 0;'
	echo '}'
} >"$tmp/all.c"
cc -std=c99 -Wall -Wextra -Werror $flags -o "$tmp/all" "$tmp/all.c" $libs >"$tmp/log" 2>&1 ||
	fail "a program using every function of vsched.h: $(head -5 "$tmp/log")"
# So a program may have functions named as the library's internals: it links, runs, and the
# library calls its own.
cat >"$tmp/clash.c" <<'EOF2'
#include <vsched.h>

int cpuset_parse(const char *s);
int file_read(const char *path);
void xwarn(const char *msg);

int cpuset_parse(const char *s) { return s ? 99 : 98; }
int file_read(const char *path) { return path ? 97 : 96; }
void xwarn(const char *msg) { (void)msg; }

int main(void)
{
	struct vsched *vs = vsched_create(1, 2);
	char buf[16];

	if (!vs || vsched_mkdir_threaded(vs, "g") || vsched_assign(vs, "1", "g") ||
	    vsched_read(vs, "g", "vsched.vcpus", buf, sizeof(buf)) != 2 || buf[0] != '1')
		return 1;
	vsched_destroy(vs);
	return cpuset_parse("x") == 99 && file_read("y") == 97 ? 0 : 1;
}
EOF2
cc -std=c99 -Wall -Werror $flags -o "$tmp/clash" "$tmp/clash.c" $libs >"$tmp/log" 2>&1 ||
	fail "a program with its own cpuset_parse(): $(head -3 "$tmp/log")"
"$tmp/clash" || fail "a program with its own cpuset_parse() ran wrong"

# docs/api.md's example as printed: its first C block, built with pkg-config alone, prints
# the text block after it.
doc=$root/docs/api.md
awk '/^```c$/ { on = 1; next } on && /^```$/ { exit } on' "$doc" >"$tmp/example.c"
awk '/^```text$/ { on = 1; next } on && /^```$/ { exit } on' "$doc" >"$tmp/example.want"
[ -s "$tmp/example.c" ] && [ -s "$tmp/example.want" ] || fail "no example in $doc"
cc -std=c99 -pedantic -Wall -Wextra -Werror $flags -o "$tmp/example" "$tmp/example.c" $libs \
	>"$tmp/log" 2>&1 || fail "docs/api.md's example does not build: $(head -5 "$tmp/log")"
"$tmp/example" >"$tmp/example.out" 2>&1 || fail "docs/api.md's example failed"
diff -u "$tmp/example.want" "$tmp/example.out" >"$tmp/log" ||
	fail "docs/api.md's example prints otherwise: $(cat "$tmp/log")"
echo "installed: binary, man page, hook, unit, C API (symbols, header, docs example)"
