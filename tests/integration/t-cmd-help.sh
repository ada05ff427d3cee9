#!/usr/bin/env bash
# The command line (cmd/): `vsched --help` lists every subcommand of main.c's table; each
# subcommand's --help (and -h) lists every option of its table (cmd/*.c), each option --help
# lists is one the parser takes, and an unknown option or subcommand exits 2 with a message.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$VSCHED" --help >"$tmp/top" || fail "vsched --help: exit $?"
cmds=$(sed -n 's/^\t{ "\([a-z]*\)", cmd_[a-z]*, ".*" },$/\1/p' "$top/cmd/main.c")
[ "$(echo "$cmds" | wc -w)" -ge 7 ] || fail "main.c's table: only '$cmds'"
for c in $cmds; do
	grep -q "^  $c " "$tmp/top" || fail "vsched --help lacks '$c'"
done
# man vsched has an entry for each (COMMANDS: a .TP whose next line starts with the name).
man_cmds=$(awk 'p == ".TP" { sub(/^\.B[IR]? "?/, ""); sub(/[ "].*/, ""); print } { p = $0 }' \
	"$top/man/vsched.1")
for c in $cmds; do
	grep -qx "$c" <<<"$man_cmds" || fail "man/vsched.1 has no entry for '$c'"
done
"$VSCHED" nosuchcmd >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "unknown command 'nosuchcmd'" "$tmp/err" || fail "unknown command"
# version and help take no arguments: an extra one is refused, not dropped.
for a in version help --version --help; do
	"$VSCHED" $a >/dev/null 2>&1 || fail "vsched $a: exit $?"
	"$VSCHED" $a extra >"$tmp/out" 2>"$tmp/err"
	[ $? -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q "takes no arguments (got 'extra')" "$tmp/err" ||
		fail "vsched $a extra: not refused"
done

# 'vsched COMMAND --help' (which `vsched --help` promises) works for these two as well.
for c in version help; do
	"$VSCHED" $c --help >"$tmp/out" 2>"$tmp/err" || fail "vsched $c --help: exit $?"
	[ ! -s "$tmp/err" ] && grep -q "^usage: vsched" "$tmp/out" || fail "vsched $c --help: no usage"
	"$VSCHED" $c -h | cmp -s - "$tmp/out" || fail "vsched $c -h differs from --help"
done

n=0
for c in run list top sim apply hook host; do
	src=$top/cmd/cmd_$c.c
	[ "$c" = run ] && src=$top/cmd/run_opts.c
	"$VSCHED" "$c" --help >"$tmp/help" 2>"$tmp/err" || fail "$c --help: exit $?"
	[ ! -s "$tmp/err" ] || fail "$c --help wrote to stderr: $(cat "$tmp/err")"
	grep -q "^usage: vsched $c" "$tmp/help" || fail "$c --help: no usage line"
	"$VSCHED" "$c" -h | cmp -s - "$tmp/help" || fail "$c -h differs from --help"
	# Every row of the table: { "name", ... } or .name = "name".
	opts=$(sed -n 's/^\t\[.*\] = { "\([a-z-]*\)",.*/\1/p; s/^\t{ \.name = "\([a-z-]*\)".*/\1/p' "$src")
	for o in $opts help; do
		grep -qE "^  (-[a-zA-Z], |    )--$o( |$)" "$tmp/help" || fail "$c --help lacks --$o"
		n=$((n + 1))
	done
	# Every option --help lists is one the parser knows (a value it may refuse, but not the
	# option): given before --help, it does not stop the help.
	for o in $(sed -n 's/^  \(-[a-zA-Z], \|    \)--\([a-z-]*\).*/\2/p' "$tmp/help"); do
		arg=$(grep -E "^  (-[a-zA-Z], |    )--$o [A-Z]" "$tmp/help" >/dev/null && echo 1)
		# shellcheck disable=SC2086
		"$VSCHED" "$c" "--$o" $arg --help >/dev/null 2>"$tmp/err"
		grep -q "unknown option" "$tmp/err" && fail "$c: --$o is in --help, not in the parser"
	done
	"$VSCHED" "$c" --no-such-option >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$c --no-such-option: exit $rc, want 2"
	grep -q "^vsched $c: unknown option '--no-such-option'$" "$tmp/err" &&
		grep -q "^Try 'vsched $c --help'.$" "$tmp/err" || fail "$c: $(cat "$tmp/err")"
done
# A value missing and an argument too many are usage errors too.
"$VSCHED" sim --quiet >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "^vsched sim: missing argument" "$tmp/err" || fail "sim without a file"
"$VSCHED" list extra >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "^vsched list: unexpected argument 'extra'" "$tmp/err" || fail "list extra"
"$VSCHED" run --vcpus >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "^vsched run: option '--vcpus' needs a value" "$tmp/err" ||
	fail "run --vcpus: $(cat "$tmp/err")"
# The message names the option at fault: a letter inside a cluster (not the word before it),
# an abbreviation of several long options, a value given to a flag.
errmsg() {
	local want=$1
	shift
	"$VSCHED" "$@" >/dev/null 2>"$tmp/err" </dev/null
	rc=$?
	[ $rc -eq 2 ] && grep -qF "$want" "$tmp/err" || fail "$* (exit $rc): $(cat "$tmp/err"), want '$want'"
}
errmsg "vsched top: unknown option '-x'" top -xb
errmsg "vsched top: unknown option '-x'" top --batch -bx
errmsg "vsched top: option '-n' needs a value" top -bn
errmsg "vsched top: option '--iter' needs a value" top -b --iter
errmsg "vsched run: option '--no' is ambiguous (--no-sched, --no-pin, --no-ctl)" run --no
errmsg "vsched list: option '--all' takes no value" list --all=x
# Output lost to a full disk is an error (it exited 0 with nothing written; only sim checked).
printf '<domain><name>t</name><memory unit="MiB">64</memory></domain>' >"$tmp/d.xml"
for c in version help list "top -b -n 1" "run --help" "apply --domain $tmp/d.xml --dry-run"; do
	VSCHED_RUN_DIR=$tmp/run "$VSCHED" $c >/dev/full 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] && grep -q "^vsched [a-z]*: writing standard output" "$tmp/err" ||
		fail "vsched $c >/dev/full: exit $rc, $(cat "$tmp/err")"
done
# A trace lost to a full disk names the trace, not the scenario ("vsched sim: SCENARIO: writing
# the trace: No space left on device").
"$VSCHED" sim --trace /dev/full "$(dirname "$0")/../../sim/scenarios/mixed.sim" \
	>/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "vsched sim: --trace /dev/full: No space left on device" ] ||
	fail "vsched sim --trace /dev/full: exit $rc, $(cat "$tmp/err")"
# Every option a command's --help lists is in the man page (as \-\-long and \-x); ten were not.
man=$(dirname "$0")/../../man/vsched.1
nman=0
for c in $cmds; do
	for o in $("$VSCHED" $c --help 2>&1 | grep -oE "^ +(-[a-zA-Z], )?--[a-z][a-z-]*" |
		   tr -d ' ,' | sed -E 's/--/ --/'); do
		[ "$o" = --help ] || [ "$o" = -h ] && continue
		grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" "$man" || fail "vsched $c: $o is not in man/vsched.1"
		nman=$((nman + 1))
	done
done
echo "ok: $(echo "$cmds" | wc -w) subcommands, $n table options in --help, $nman in the man page"
