#!/usr/bin/env bash
# The C API and the control directory are one code path: the same operations (helpers/
# api-ctl.ops: every cpu.* file of nested and threaded groups with good and bad values, moves by
# cgroup.procs/threads/vsched.vcpus, subtree_control, limits, rmdir of populated groups) give the
# same return (length or -errno) and leave the same bytes, done by a program built from the
# installed API with pkg-config alone and by os.write() in a running VM's directory (thread
# backend: the same code on every backend). A few lines are checked against cpu-controller.md
# too, so that both cannot agree on a wrong answer unseen.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
[ -c /dev/fuse ] || { echo "skip: no /dev/fuse"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
tmp=$(mktemp -d)
vm=
cleanup() {
	[ -n "$vm" ] && kill -TERM "$vm" 2>/dev/null && wait "$vm" 2>/dev/null
	grep -q " $tmp/ctl " /proc/self/mounts && umount -l "$tmp/ctl"
	rm -rf "$tmp"
}
trap cleanup EXIT
# KEEP_OUT=DIR keeps both outputs there.
[ -n "${KEEP_OUT:-}" ] && trap 'cp "$tmp"/*.out "$KEEP_OUT"; cleanup' EXIT
export VSCHED_RUN_DIR=$tmp/run
build=$(realpath --relative-to="$root" "$(dirname "$VSCHED")")

make -s -C "$root" --no-print-directory BUILD="$build" install DESTDIR="$tmp/inst" PREFIX=/usr \
	>"$tmp/log" 2>&1 || fail "make install: $(cat "$tmp/log")"
pc() { PKG_CONFIG_PATH=$tmp/inst/usr/lib/pkgconfig pkg-config --define-prefix "$@" vsched; }
cc -std=c99 -Wall -Wextra -Werror $(pc --cflags) -o "$tmp/api_ops" "$here/helpers/api_ops.c" \
	$(pc --libs) >"$tmp/log" 2>&1 || fail "helpers/api_ops.c: $(cat "$tmp/log")"

# Light payloads: the VM only has to exist, with its threads.
"$VSCHED" run --accel thread --vcpus 4 --cpus 2 --payload duty:1000/19000 --name "apictl-$$" \
	--ctl-dir "$tmp/ctl" --duration 120 >"$tmp/vm.out" 2>&1 &
vm=$!
nr_threads() { [ -f "$tmp/ctl/cgroup.threads" ] && wc -l <"$tmp/ctl/cgroup.threads"; }
for i in $(seq 100); do
	[ "$(nr_threads)" = 4 ] && break
	sleep 0.1
done
[ "$(nr_threads)" = 4 ] || fail "the VM's directory did not come up: $(cat "$tmp/vm.out")"
pid=$(cat "$tmp/ctl/cgroup.procs")
set -- $(cat "$tmp/ctl/cgroup.threads")
sed -e "s/@PID@/$pid/g; s/@T0@/$1/g; s/@T1@/$2/g; s/@T2@/$3/g; s/@T3@/$4/g" \
	"$here/helpers/api-ctl.ops" >"$tmp/ops"

"$tmp/api_ops" 4 2 "$pid" "$@" <"$tmp/ops" >"$tmp/api.out" || fail "api_ops failed"
python3 "$here/helpers/ctl_ops.py" "$tmp/ctl" <"$tmp/ops" >"$tmp/ctl.out" || fail "ctl_ops failed"
n=$(grep -vcE '^(#|$)' "$tmp/ops")
[ "$(wc -l <"$tmp/api.out")" = "$n" ] || fail "api_ops answered $(wc -l <"$tmp/api.out") of $n"
# cpu.stat's counters are time's (the VM's periods elapse while the directory is driven, the
# API's tree runs no vCPUs): their values and the file's length are not compared.
unclock() {
	sed -E '/cpu\.stat/{s/(= -?[0-9]+ \| )[0-9]+ /\1N /; s/= [0-9]+ (usage|throttled)/= N \1/;
		s/(_usec|nr_[a-z]+) [0-9]+/\1 N/g}' "$1"
}
diff <(unclock "$tmp/api.out") <(unclock "$tmp/ctl.out") >"$tmp/diff" ||
	fail "the API and the directory differ (< API, > directory): $(head -20 "$tmp/diff")"

# Spot checks against the kernel's rules (cpu-controller.md): lines of the output start so.
while IFS= read -r want; do
	want=${want//@PID@/$pid}
	W=$want awk 'index($0, ENVIRON["W"]) == 1 { f = 1 } END { exit !f }' "$tmp/api.out" ||
		fail "expected a line starting: $want"
done <<'EOW'
write a/cpu.max 'max 1000' = 8 | 9 max 1000\n
write a/cpu.max '0 100000' = -22 | 9 max 1000\n
write a/cpu.max '1000 1000001' = -22 | 12 1000 100000\n
write a/cpu.max '50000x' = 6 | 13 50000 100000\n
write a/cpu.weight '0' = -34 | 4 100\n
write a/cpu.weight '10001' = -34 | 6 10000\n
write a/cpu.weight '100 ' = -22 | 4 100\n
write a/cpu.weight.nice '-21' = -34 | 3 13\n
write a/cpu.idle '2' = -22 | 2 0\n
write a/cpu.max.burst '30000' = -22 | 5 1000\n
rmdir t/u = -16
rmdir a = -16
write a/cgroup.subtree_control '-cpu' = -16 | 4 cpu\n
write p/t/cgroup.threads '0' = -3 |
write t/u/vsched.vcpus '9' = -34 |
write p/cgroup.procs '@PID@' = -16 |
EOW
echo "API and control directory: $n operations, the same returns and bytes"
