#!/usr/bin/env bash
# `vsched top` with a host scheduler running (thread backend, runs everywhere): the daemon's tree
# (<run dir>/host) is a section of its own, first, labelled host:/, with its partitions, the VM
# groups and the VMs' subtrees below them (the same columns as a VM's groups: weights, caps,
# usage, vCPU rows as slots), then every VM's own section as before (an embedded VM's too). In
# batch mode and in a tmux pane (keys sent, the pane captured). The daemon stopped: the
# section goes. Before, top read the registry of VMs alone: no partition, no VM group.
. "$(dirname "$0")/runtime-lib.sh"
[ -c /dev/fuse ] || { echo "no /dev/fuse: top reads the control directories"; exit 77; }
command -v tmux >/dev/null || { echo "no tmux (scripts/deps.sh installs it)"; exit 77; }
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-top
TMUX_SOCK=vsched-host-top-$$
trap 'tmux -L "$TMUX_SOCK" kill-server 2>/dev/null; host_test_cleanup' EXIT
fail() { echo "FAIL: $*"; echo "--- top"; echo "$b"; for f in "$TMPD"/*.log; do echo "--- $f"; cat "$f"; done; exit 1; }
# field BLOCK LABEL COLUMN: a column (awk field, 2 = CPU%) of the row whose label is LABEL.
field() {
	awk -v l="$2" -v c="$3" '{ x = $1; sub(/^[-+]/, "", x) } x == l { print $c; exit }' <<<"$1"
}
# in_range WHAT VALUE LO HI
in_range() {
	awk -v v="$2" -v lo="$3" -v hi="$4" \
		'BEGIN { exit !(v != "" && v != "-" && v >= lo && v <= hi) }' ||
		fail "$1 = '$2', want [$3, $4]"
}
last_block() { awk '/^vsched top - /{ b = "" } { b = b $0 "\n" } END { printf "%s", b }' <<<"$1"; }
start_vm() {	# NAME VCPUS [run flags]
	local name=$1 n=$2
	shift 2
	"$VSCHED" run --accel thread --name "$name" --vcpus "$n" --payload hog --duration 60s \
		"$@" >"$TMPD/$name.log" 2>&1 &
	PIDS="$PIDS $!"
}

host_daemon_start --cpus 2
wait_for "[ -e $H/cgroup.procs ]" || fail "no control directory $H"
mkdir "$H/tenant" && echo 300 >"$H/tenant/cpu.weight" &&
	echo "50000 100000" >"$H/tenant/cpu.max" || fail "cannot make /tenant"
start_vm web1 2 --host --partition /tenant --group fe:weight=300 --assign 0=fe
start_vm db1 1 --host --weight 200
start_vm e 1
wait_for "[ -d $H/tenant/web1/fe ] && [ -d $H/machine/db1 ] && [ -f $VSCHED_RUN_DIR/e/vsched.lanes ]" ||
	fail "the VMs did not come up"

# A VM that lost the daemon during the interval (its agent heard nothing for 0.5 s: the daemon
# waited that long for a CPU at load 27) joins again as a new group, whose usage starts over:
# its row shows no rate ('-', failed). Such an interval is taken again, up to 3 times.
lost() { cat "$TMPD"/web1.log "$TMPD"/db1.log | grep -c 'host scheduler lost'; }
for try in 1 2 3; do
	l0=$(lost)
	out=$("$VSCHED" top -b -n 2 -d 2 -v 2>&1) || fail "top exited $?"
	[ "$(lost)" = "$l0" ] && break
	echo "a VM lost the daemon during the interval: taken again"
done
b=$(last_block "$out")
echo "$b"
case $(head -n 1 <<<"$b") in
*"VMs 3  host scheduler"*) ;;
*) fail "title: $(head -n 1 <<<"$b")" ;;
esac
# The daemon's tree first, right below the header.
[ "$(sed -n 3p <<<"$b" | awk '{ print $1 }')" = "-host:/" ] || fail "host:/ is not the first row"
for row in /tenant /tenant/web1 /tenant/web1/fe /machine /machine/db1 web1 /fe db1 e; do
	[ -n "$(field "$b" "$row" 2)" ] || fail "no row $row"
done
[ "$(field "$b" /tenant 4)" = 300 ] || fail "/tenant weight: $(field "$b" /tenant 4)"
[ "$(field "$b" /tenant 5)" = 50000/100000 ] || fail "/tenant cpu.max: $(field "$b" /tenant 5)"
[ "$(field "$b" /machine/db1 4)" = 200 ] || fail "/machine/db1 weight"
[ "$(field "$b" /tenant/web1/fe 4)" = 300 ] || fail "/tenant/web1/fe weight"
[ "$(field "$b" /machine/db1 5)" = max ] || fail "/machine/db1 cpu.max"
# /tenant's cap: half a CPU (its usage is charged by the daemon: its VMM's other threads too).
in_range "/tenant CPU%" "$(field "$b" /tenant 2)" 2 56
in_range "/machine/db1 CPU%" "$(field "$b" /machine/db1 2)" 2 205
root=$(field "$b" host:/ 2) ten=$(field "$b" /tenant 2) mach=$(field "$b" /machine 2)
in_range "host:/ - /tenant - /machine" \
	"$(awk -v a="$root" -v b="$ten" -v c="$mach" 'BEGIN { print a - b - c }')" -4 4
# Three joined vCPUs, as slots; the daemon's free slots are no rows.
n=$(awk '/^-host:\//{ on = 1; next } /^[-+ ][^ ]/{ on = 0 } on && $1 ~ /^slot/' <<<"$b" | wc -l)
[ "$n" = 3 ] || fail "host section: $n slot rows, want 3"
[ -z "$(awk '$1 ~ /^slot/ && !/(running|waiting|throttled|idle)/' <<<"$b")" ] ||
	fail "a slot row without a state"
# --vm: that VM alone, no host section.
b=$(last_block "$("$VSCHED" top -b -n 1 --vm db1 2>&1)")
[ -z "$(field "$b" host:/ 2)" ] && [ -n "$(field "$b" db1 2)" ] || fail "--vm db1: $b"

# Interactive, in a 150x40 tmux pane.
tm() { tmux -L "$TMUX_SOCK" "$@"; }
pane() { tm capture-pane -p -t top; }
wait_pane() {	# WHAT PATTERN: up to 5 s for the pane to match (grep -E)
	local i
	for i in $(seq 50); do pane | grep -Eq -- "$2" && return 0; sleep 0.1; done
	b=$(pane)
	fail "tmux: $1: no /$2/"
}
tm new-session -d -s top -x 150 -y 40 \
	"env VSCHED_RUN_DIR='$VSCHED_RUN_DIR' '$VSCHED' top -d 0.5; echo \$? >'$TMPD/top.rc'"
wait_pane "the host's tree first, under the cursor" '^>-host:/ +[0-9]+\.[0-9]'
wait_pane "a partition with its cap" '^ +-/tenant +[0-9.]+ +[0-9.]+ +300 +50000/100000 '
wait_pane "a VM group" '^ +[-+]?/machine/db1 +[0-9.]+ +[0-9.]+ +200 '
wait_pane "a VM's subtree under its VM group" '^ +[-+]?/tenant/web1/fe '
wait_pane "the VMs' own sections" '^ [-+]web1 '
wait_pane "title" 'VMs 3  host scheduler'
pane >"$TMPD/pane.txt"
tm send-keys -t top Enter
wait_pane "enter collapses the host's tree" '^>\+host:/ '
sleep 0.3
pane | grep -q '/tenant' && { b=$(pane); fail "collapsed host:/ still shows /tenant"; }
tm send-keys -t top q
for i in $(seq 30); do tm has-session -t top 2>/dev/null || break; sleep 0.1; done
[ "$(cat "$TMPD/top.rc" 2>/dev/null)" = 0 ] || fail "q: exit status '$(cat "$TMPD/top.rc" 2>/dev/null)'"
echo "--- pane"
cat "$TMPD/pane.txt"

# The daemon gone: no host section, the VMs go on (unscheduled).
host_daemon_stop
b=$(last_block "$("$VSCHED" top -b -n 1 2>&1)")
[ -z "$(field "$b" host:/ 2)" ] || fail "host:/ shown with no daemon"
case $(head -n 1 <<<"$b") in
*"host scheduler"*) fail "title names a host scheduler with none" ;;
*"VMs 3"*) ;;
*) fail "no daemon: title $(head -n 1 <<<"$b")" ;;
esac
echo "ok"
