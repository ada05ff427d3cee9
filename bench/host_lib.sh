# Sourced by bench/host_*.sh: host_start NAME makes a scratch run directory under /tmp ($tmp,
# $VSCHED_RUN_DIR), starts `vsched host --cpus 2` there ($dpid; its log $tmp/host.log) and waits
# for its control directory; every process added to $pids is killed, and the mounts and the
# directory are removed, on exit. $V is the vsched binary.
pids=""
host_cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	grep -o " $tmp[^ ]*" /proc/self/mounts | while read -r m; do umount -l "$m"; done
	rm -rf "$tmp"
}

host_start() {
	local i

	tmp=$(mktemp -d "/tmp/vsched-$1.XXXXXX")
	export VSCHED_RUN_DIR=$tmp/run
	trap host_cleanup EXIT
	mkdir -p "$VSCHED_RUN_DIR"
	"$V" host --cpus 2 2>"$tmp/host.log" &
	dpid=$!
	pids=$dpid
	for i in $(seq 100); do [ -e "$VSCHED_RUN_DIR/host/cgroup.procs" ] && break; sleep 0.05; done
}
