#!/usr/bin/env python3
# SIGKILL of a joined VMM, timed in three steps (docs/host.md, faults table): the process's exit
# (its pidfd), the daemon's log line (it removed the VM group and freed its lanes), and the VM
# group gone from the daemon's control directory. Two VMs of 4 hog vCPUs on 2 lanes; 5 kills.
# Timing: run it under the machine's lock.
#   flock /tmp/vsched-machine.lock bench/host_kill.py build/vsched [ROUNDS]
import os
import select
import signal
import subprocess
import sys
import tempfile
import time

vsched = os.path.abspath(sys.argv[1])
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
tmp = tempfile.mkdtemp(prefix="vsched-kill.")
run = os.environ["VSCHED_RUN_DIR"] = tmp + "/run"
os.makedirs(run)
logname = tmp + "/host.log"
log = open(logname, "w")
d = subprocess.Popen([vsched, "host", "--cpus", "2"], stderr=log, stdout=log)
while not os.path.exists(run + "/host/cgroup.procs"):
    time.sleep(0.01)


def vm(name):
    return subprocess.Popen([vsched, "run", "--accel", "thread", "--host", "--name", name,
                             "-c", "4", "-p", "hog", "-d", "60s", "--no-ctl"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_gone(path, step):
    while os.path.isdir(path):
        time.sleep(step)


for _ in range(rounds):
    b, a = vm("b"), vm("a")
    while not (os.path.isdir(run + "/host/machine/a") and os.path.isdir(run + "/host/machine/b")):
        time.sleep(0.01)
    time.sleep(1.0)
    pfd = os.pidfd_open(a.pid)
    size0 = os.path.getsize(logname)
    t0 = time.monotonic()
    os.kill(a.pid, signal.SIGKILL)
    select.select([pfd], [], [])
    t1 = time.monotonic()
    while os.path.getsize(logname) == size0:
        time.sleep(0.0005)
    t2 = time.monotonic()
    wait_gone(run + "/host/machine/a", 0.0005)
    t3 = time.monotonic()
    os.close(pfd)
    a.wait()
    b.kill()
    b.wait()
    wait_gone(run + "/host/machine/b", 0.01)
    print("exit %.1f ms, the daemon's log line %.1f ms, gone from the directory %.1f ms" %
          ((t1 - t0) * 1e3, (t2 - t0) * 1e3, (t3 - t0) * 1e3), flush=True)
d.terminate()
d.wait()
subprocess.run(["rm", "-rf", tmp])
