#!/usr/bin/env python3
"""poll(2) on GROUP/cgroup.events as on kernfs (kernfs_generic_poll()): POLLPRI | POLLERR
before the first read and after an event (populated changed), not in between; a waiting poll
wakes when another process moves a task in. Usage: poll_events.py GROUP 'MOVE-COMMAND'.
Prints one line per step; the test compares them with the kernel's."""
import os, select, subprocess, sys, threading, time

group, move = sys.argv[1], sys.argv[2]
PRI = select.POLLPRI | select.POLLERR
fd = os.open(os.path.join(group, "cgroup.events"), os.O_RDONLY)
p = select.poll()
p.register(fd, select.POLLPRI)


def state(timeout_ms=0):
    ev = p.poll(timeout_ms)
    return "pri" if ev and ev[0][1] & PRI else "none"


def read():
    return os.pread(fd, 100, 0).decode().split("\n")[0]


print("before the first read:", state())
print("read:", read())
print("after the read:", state())
threading.Timer(0.3, lambda: subprocess.run(move, shell=True, check=True)).start()
t = time.monotonic()
woke = state(5000)
print("waiting poll:", woke, "within 2 s" if time.monotonic() - t < 2 else "late")
print("still, without a read:", state())
time.sleep(0.5)
print("read:", read())
print("after the read:", state())
