#!/usr/bin/env bash
# `vsched host` under systemd's Type=notify (its unit since): READY=1 on $NOTIFY_SOCKET once its
# socket listens and its control directory is mounted (a unit ordered after it can join at
# once), STOPPING=1 at SIGTERM; the abstract "@name" form too. Without NOTIFY_SOCKET nothing
# changes, and a SIGTERM right after the socket listens stops it cleanly (exit 0). Before, the
# unit was Type=simple and the daemon sent nothing: systemd called it
# started before `vsched run --host` could join.
. "$(dirname "$0")/runtime-lib.sh"
[ -c /dev/fuse ] || { echo "no /dev/fuse: READY=1 waits for the control directory"; exit 77; }
command -v python3 >/dev/null || { echo "no python3: the test listens as systemd does"; exit 77; }
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-notify
mkdir -p "$VSCHED_RUN_DIR"

# notify_run ADDR: the daemon under NOTIFY_SOCKET=ADDR; what systemd would have read, one
# message a line, each "READY=1 sock=yes|no dir=yes|no" as the daemon's state was then.
notify_run() {
	python3 - "$1" "$VSCHED" "$VSCHED_RUN_DIR" <<'PY' >"$TMPD/notify.out" 2>"$TMPD/notify.log"
import os, signal, socket, subprocess, sys
addr, vsched, run = sys.argv[1:]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + addr[1:] if addr[0] == "@" else addr)
s.settimeout(5)
env = dict(os.environ, NOTIFY_SOCKET=addr)
p = subprocess.Popen([vsched, "host", "--cpus", "1"], env=env, stderr=subprocess.DEVNULL)
try:
    msg = s.recv(4096).decode()
    sock = os.path.exists(run + "/host.sock")
    ctl = os.path.exists(run + "/host/cgroup.procs")
    print(msg.replace("\n", " "), "sock=" + ("yes" if sock else "no"),
          "dir=" + ("yes" if ctl else "no"))
    p.send_signal(signal.SIGTERM)
    print(s.recv(4096).decode().replace("\n", " "))
except socket.timeout:
    print("timeout")
    p.kill()
print("exit", p.wait(timeout=10))
PY
}

notify_run "$TMPD/notify.sock"
cat "$TMPD/notify.out"
[ "$(sed -n 1p "$TMPD/notify.out")" = "READY=1 sock=yes dir=yes" ] ||
	fail "no READY=1 once the socket listened: $(cat "$TMPD/notify.out" "$TMPD/notify.log")"
[ "$(sed -n 2p "$TMPD/notify.out")" = "STOPPING=1" ] || fail "no STOPPING=1 at SIGTERM"
[ "$(sed -n 3p "$TMPD/notify.out")" = "exit 0" ] || fail "the daemon did not exit 0"

notify_run "@vsched-notify-$$"
[ "$(sed -n 1p "$TMPD/notify.out")" = "READY=1 sock=yes dir=yes" ] ||
	fail "abstract NOTIFY_SOCKET: $(cat "$TMPD/notify.out" "$TMPD/notify.log")"

# Without it, the daemon starts as before. A SIGTERM as soon as its socket listens (a stop
# during the start) ends it cleanly: it killed the daemon (143) when it came before the mask,
# leaving its mount, socket and pid file behind.
for i in $(seq 10); do
	host_daemon_start --cpus 1 --pidfile "$TMPD/host.pid"
	host_daemon_stop
	[ -e "$TMPD/host.pid" ] && fail "the pid file stayed after a stop during the start"
done
echo "READY=1 after the socket and the directory, STOPPING=1 at SIGTERM"
