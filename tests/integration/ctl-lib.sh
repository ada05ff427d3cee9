# Shared helpers of the t-ctl-*.sh tests (sourced, not run). They drive a control directory
# served by the test harness (build/vsched-ctl-harness) with the shell tools administrators use.

. "$(dirname "${BASH_SOURCE[0]}")/accel-lib.sh"
HARNESS=${HARNESS:-$(dirname "$VSCHED")/vsched-ctl-harness}
fails=0

ctl_require_fuse() {
	if [ ! -c /dev/fuse ]; then
		echo "no /dev/fuse on this machine: control-directory tests need FUSE"
		exit 77
	fi
	if [ ! -x "$HARNESS" ]; then
		echo "missing $HARNESS (make integration builds it)"
		exit 1
	fi
}

# A private run directory, so tests neither see nor disturb real VMs under /run/vsched.
ctl_tmp() {
	TMPD=$(mktemp -d /tmp/vsched-ctl-test.XXXXXX)
	chmod 0755 "$TMPD"
	export VSCHED_RUN_DIR=$TMPD/run
	trap ctl_teardown EXIT
}

HPIDS=""

# vcpu_tids PID: TIDs of the threads named vcpuN, in vCPU order.
vcpu_tids() {
	local t c
	for t in $(ls /proc/$1/task); do
		c=$(cat /proc/$1/task/$t/comm 2>/dev/null)
		case $c in vcpu*) echo "${c#vcpu} $t" ;; esac
	done | sort -n | cut -d' ' -f2
}
ctl_teardown() {
	local p
	for p in $HPIDS; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in $HPIDS; do
		wait "$p" 2>/dev/null
	done
	# Anything a killed harness left behind.
	grep -o " $TMPD[^ ]*" /proc/self/mounts 2>/dev/null | while read -r m; do
		umount -l "$m" 2>/dev/null
	done
	rm -rf "$TMPD"
}

# ctl_start NAME [harness args...]: starts a harness, waits until mounted; sets HPID, D.
ctl_start() {
	local name=$1 out i
	shift
	out=$TMPD/$name.out
	"$HARNESS" --name "$name" "$@" >"$out" 2>"$TMPD/$name.err" &
	HPID=$!
	HPIDS="$HPIDS $HPID"
	for i in $(seq 100); do
		if grep -q '^ready ' "$out" 2>/dev/null; then
			D=$(sed -n 's/^ready //p' "$out")
			return 0
		fi
		kill -0 "$HPID" 2>/dev/null || break
		sleep 0.1
	done
	echo "harness '$name' did not come up:"
	cat "$TMPD/$name.err"
	return 1
}

# vm_up ACCEL NAME N ARGS...: a `vsched run` VM with N vCPUs on backend ACCEL in the background,
# up to 300 s; waits until its control directory lists the N vCPUs. Sets VPID and D.
vm_up() {
	local accel=$1 name=$2 n=$3 i
	shift 3
	"$VSCHED" run --accel "$accel" --name "$name" --vcpus "$n" --duration 300 "$@" \
		>"$TMPD/$name.log" 2>&1 &
	VPID=$!
	HPIDS="$HPIDS $VPID"
	D=$VSCHED_RUN_DIR/$name
	for i in $(seq 100); do
		[ -f "$D/cgroup.threads" ] && [ "$(wc -l <"$D/cgroup.threads")" = "$n" ] && return 0
		sleep 0.1
	done
	echo "VM $name did not come up: $(cat "$TMPD/$name.log")"
	return 1
}

ctl_stop() {
	kill -TERM "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

ok() { echo "ok   $*"; }
bad() {
	echo "FAIL $*"
	fails=$((fails + 1))
}

# expect_eq WHAT GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got '$2', want '$3'"; fi
}

# expect_file FILE WANT: byte-exact content (WANT is printf-interpreted, e.g. 'max 100000\n').
expect_file() {
	local got want
	got=$(od -An -c "$1" 2>&1)
	want=$(printf -- "$2" | od -An -c)
	if [ "$got" = "$want" ]; then
		ok "$1 reads $(printf '%q' "$(printf -- "$2")")"
	else
		bad "$1: got [$(cat "$1" 2>&1 | od -An -c)] want [$want]"
	fi
}

# wr FILE VALUE WANT: one write of VALUE (printf, no newline added) into FILE; WANT is "ok"
# or the strerror text the shell must print (the kernel's errno).
wr() {
	local f=$1 want=$3 out v
	out=$({ printf '%s' "$2" >"$f"; } 2>&1)
	v=$(printf '%q' "$2")
	if [ "$want" = ok ]; then
		if [ -z "$out" ]; then ok "write '$v' > $f"; else bad "write '$v' > $f: $out"; fi
	else
		case $out in
		*"$want"*) ok "write '$v' > $f: $want" ;;
		*) bad "write '$v' > $f: got '$out', want '$want'" ;;
		esac
	fi
}

# run_err WANT CMD...: CMD must fail with the strerror text WANT on stderr.
run_err() {
	local want=$1 out
	shift
	if out=$("$@" 2>&1); then
		bad "$*: succeeded, want '$want'"
		return
	fi
	case $out in
	*"$want"*) ok "$*: $want" ;;
	*) bad "$*: got '$out', want '$want'" ;;
	esac
}

ctl_finish() {
	if [ $fails -ne 0 ]; then
		echo "$fails check(s) failed"
		exit 1
	fi
	echo "all checks passed"
	exit 0
}
