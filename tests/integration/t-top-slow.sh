#!/usr/bin/env bash
# `vsched top` where reading the VMs takes longer than the interval, and on terminals ncurses
# cannot draw on. A fake VM (a registry record of a live process, a plain directory whose
# cpu.weight is a FIFO fed every 0.8 s) makes every snapshot slower than `-d 0.1`.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ctl-lib.sh"
command -v tmux >/dev/null || { echo "no tmux (scripts/deps.sh installs it)"; exit 77; }
ctl_tmp
TMUX_SOCK=vsched-topslow-$$
trap 'tmux -L "$TMUX_SOCK" kill-server 2>/dev/null; ctl_teardown' EXIT
tm() { tmux -L "$TMUX_SOCK" "$@"; }
# until_pane SESSION PATTERN [TENTHS]: up to 2.5 s (or TENTHS / 10) for the pane to match
until_pane() {
	local i
	for i in $(seq "${3:-25}"); do
		tm capture-pane -p -t "$1" | grep -q -- "$2" && return 0
		sleep 0.1
	done
	return 1
}

# The fake VM "slow": a record naming a live process (its start time as registry_pid_start()
# reads it) and a directory with the root group's files.
mkdir -p "$VSCHED_RUN_DIR/.vms" "$TMPD/slow"
sleep 300 &
HPIDS="$HPIDS $!"
start=$(awk '{ print $22 }' "/proc/$!/stat")
printf 'pid %d %s\nctl %s\n' "$!" "$start" "$TMPD/slow" >"$VSCHED_RUN_DIR/.vms/slow"
printf 'usage_usec 1000\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n' >"$TMPD/slow/cpu.stat"
echo "max 100000" >"$TMPD/slow/cpu.max"
echo 1 >"$TMPD/slow/vsched.lanes"
mkfifo "$TMPD/slow/cpu.weight"
# Each read of cpu.weight waits for the next write, 0.8 s apart: every snapshot is slow. The
# writer holds the FIFO open all along (a write with no reader fails and is dropped): one that
# closed and reopened it let a reader in between read an EOF at once, a fast snapshot now and
# then, and the old loop drew and took keys in those.
python3 -c '
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY)
while True:
    time.sleep(0.8)
    try:
        os.write(fd, b"100\n")
    except BrokenPipeError:
        pass' "$TMPD/slow/cpu.weight" &
HPIDS="$HPIDS $!"
if "$VSCHED" list | grep -q '^slow '; then ok "the fake VM is listed"; else bad "no fake VM"; fi

# Snapshots slower than the interval: top drew and read keys only between two snapshots, and
# with the next one due at once it took them back to back forever: q never quit.
tm new-session -d -s slow -x 150 -y 20 \
	"env VSCHED_RUN_DIR='$VSCHED_RUN_DIR' '$VSCHED' top -d 0.1; echo \$? >'$TMPD/slow.rc'; sleep 60"
if until_pane slow '^>.slow ' 50; then ok "slow snapshots: the VM is drawn"
else bad "slow: nothing drawn"; fi
sleep 1	# several snapshots, each slower than the interval
tm send-keys -t slow n
if until_pane slow 'sorted by name'; then ok "slow snapshots: a key is taken within 2.5 s"
else bad "slow snapshots: key n not taken in 2.5 s"; fi
tm send-keys -t slow j k q
for i in $(seq 25); do [ -f "$TMPD/slow.rc" ] && break; sleep 0.1; done
expect_eq "slow snapshots: q behind other keys quits within 2.5 s, status 0" \
	"$(cat "$TMPD/slow.rc" 2>/dev/null)" 0

# A resize is no key: the help stayed up only until the terminal changed size (fast snapshots:
# a run directory without VMs).
mkdir -p "$TMPD/empty"
tm new-session -d -s help -x 150 -y 20 \
	"env VSCHED_RUN_DIR='$TMPD/empty' '$VSCHED' top -d 0.2; sleep 60"
until_pane help 'no vsched VM' 50
tm send-keys -t help '?'
until_pane help 'vsched top: keys'
tm resize-window -t help -x 120 -y 30
sleep 1	# snapshots later
if tm capture-pane -p -t help | grep -q 'vsched top: keys'; then ok "help: stays open on a resize"
else bad "help: closed by a resize"; tm capture-pane -p -t help | head -n 5; fi
tm kill-session -t help

# A stopped VMM (SIGSTOP, a debugger) answers no read of its control directory: top -b blocked
# in the read (and the interactive view with q) until the VMM went on.
if [ -c /dev/fuse ]; then
	"$VSCHED" run --accel thread --name frozen --vcpus 1 --duration 60 >"$TMPD/frozen.log" 2>&1 &
	fpid=$!
	HPIDS="$HPIDS $fpid"
	for i in $(seq 100); do
		[ -f "$VSCHED_RUN_DIR/frozen/vsched.lanes" ] && break
		sleep 0.1
	done
	kill -STOP "$fpid"
	# kill returns before the group stop is done: each thread stops once it gets a CPU. top
	# judges the main thread's state, a FUSE thread not stopped yet still answers: top starts
	# once every thread shows T (at once on a quiet host; up to 5 s).
	for i in $(seq 100); do
		st=$(cat /proc/"$fpid"/task/*/stat 2>/dev/null | sed -E 's/.*\) (.).*/\1/' | sort -u)
		[ "$st" = T ] && break
		sleep 0.05
	done
	out=$(timeout 10 "$VSCHED" top -b -n 1 --vm frozen 2>&1)
	expect_eq "a stopped VMM: top -b ends, status 0" "$?" 0
	case $out in
	*" frozen "*"(pid $fpid) stopped (SIGSTOP or a debugger): not read"*)
		ok "a stopped VMM: its row says so" ;;
	*) bad "a stopped VMM: $out" ;;
	esac
	kill -CONT "$fpid"
else
	echo "note: no /dev/fuse: the stopped-VMM check needs a control directory"
fi

# Batch mode on a full disk: without -n it ran until killed, writing nothing, saying nothing.
timeout 20 "$VSCHED" top -b -d 0.1 >/dev/full 2>"$TMPD/full.err"
expect_eq "top -b >/dev/full: exit status 1" "$?" 1
case $(cat "$TMPD/full.err") in
"vsched top: writing standard output: No space left on device") ok "top -b >/dev/full: says so" ;;
*) bad "top -b >/dev/full: '$(cat "$TMPD/full.err")'" ;;
esac

# Terminals ncurses cannot draw on: initscr() exited by itself with its own message and status 1
# (TERM unknown or unset), and TERM=dumb got every screen as one long line, status 0 after q.
for term in nosuchterm dumb -; do
	rm -f "$TMPD/term.rc"
	if [ "$term" = - ]; then run="env -u TERM"; else run="env TERM=$term"; fi
	tm new-session -d -s "t$$" -x 150 -y 20 "env VSCHED_RUN_DIR='$VSCHED_RUN_DIR' $run \
		'$VSCHED' top 2>'$TMPD/term.err'; echo \$? >'$TMPD/term.rc'"
	for i in $(seq 30); do [ -f "$TMPD/term.rc" ] && break; sleep 0.1; done
	[ -f "$TMPD/term.rc" ] || tm send-keys -t "t$$" q
	for i in $(seq 30); do [ -f "$TMPD/term.rc" ] && break; sleep 0.1; done
	tm kill-session -t "t$$" 2>/dev/null
	expect_eq "TERM=$term: exit status 2" "$(cat "$TMPD/term.rc" 2>/dev/null)" 2
	case $term in dumb) want="'dumb' (TERM) cannot move the cursor; use -b" ;;
	-) want="'' (TERM) is unknown to ncurses; use -b" ;;
	*) want="'$term' (TERM) is unknown to ncurses; use -b" ;;
	esac
	case $(cat "$TMPD/term.err") in
	"vsched top: the terminal type $want"*) ok "TERM=$term: says so" ;;
	*) bad "TERM=$term: stderr '$(cat "$TMPD/term.err")', want '$want'" ;;
	esac
done

ctl_finish
