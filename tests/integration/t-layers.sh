#!/usr/bin/env bash
# scripts/check-layers.sh: passes on the tree, and fails on copies of it with one crossing
# include each, naming the file, the line and the rule; docs/architecture.md shows its table.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$top/scripts/check-layers.sh" "$top" >/dev/null || fail "the tree itself crosses a boundary"
# docs/architecture.md quotes the script's table: the block after its marker is the same.
sed -n "/^read -r -d '' LAYERS <<'EOF'$/,/^EOF$/p" "$top/scripts/check-layers.sh" |
	sed '1d;$d' >"$tmp/script"
awk '/^<!-- The block below is scripts\/check-layers.sh/ { m = 1; next }
     m == 1 && /^```$/ { m = 2; next }
     m == 2 && /^```$/ { exit }
     m == 2' "$top/docs/architecture.md" >"$tmp/doc"
[ -s "$tmp/script" ] && cmp -s "$tmp/script" "$tmp/doc" ||
	fail "docs/architecture.md's table is not scripts/check-layers.sh's: $(diff "$tmp/script" "$tmp/doc")"
# FILE (appended to), INCLUDE, what the message must say.
bad=(
	"vmm/kick.c|ctl/ctl.h|vmm may not include ctl"
	"sched/core.c|vmm/vm.h|sched may not include vmm"
	"sched/core.c|sched/runtime.h|sched may not include sched/runtime"
	"sched/runtime/rt_pin.c|vmm/payload.h|sched/runtime may not include vmm"
	"ctl/fs.c|sched/group.h|ctl may not include sched"
	"ctl/mount.c|vmm/vm.h|ctl may not include vmm"
	"libvirt-hooks/plan.c|ctl/ctl.h|libvirt-hooks may not include ctl"
	"util/file.c|vsched.h|util may not include api"
	"include/vsched.h|cmd/cmd.h|api may not include cmd"
	"include/vmm/vm.h|sched/runtime.h|vmm may not include sched/runtime"
	"sched/sim/sim.c|../../include/vmm/vm.h|sched may not include vmm"
)
n=0
for b in "${bad[@]}"; do
	IFS='|' read -r file inc want <<<"$b"
	rm -rf "$tmp/tree"
	mkdir "$tmp/tree"
	(cd "$top" && cp -r util sched vmm ctl libvirt-hooks cmd include "$tmp/tree/")
	echo "#include \"$inc\"" >>"$tmp/tree/$file"
	line=$(wc -l <"$tmp/tree/$file")
	if "$top/scripts/check-layers.sh" "$tmp/tree" >/dev/null 2>"$tmp/err"; then
		fail "$file including $inc passed"
	fi
	grep -q "^$file:$line: #include \"$inc\": $want " "$tmp/err" ||
		fail "$file: $(cat "$tmp/err")"
	n=$((n + 1))
done
echo "layers: the tree passes, $n crossing includes refused"
