#!/usr/bin/env python3
# Writes the hand-made seeds of fuzz/host_msgs.c into fuzz/corpus/host_msgs/ (its input format).
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in fuzz/
from fuzz_seeds import u16, u64, string, write_seeds  # noqa: E402

HELLO, GROUP, VCPU, COMMIT, RUNNABLE, BLOCKED, RAN, TICK, TID = range(1, 10)
PING, CTL_DONE, TOOK, OTHER = 14, 17, 20, 22
ALL_FLAGS = 0x1ff


def settings(shares=0, quota=2**64 - 1, period=100000, burst=0, idle=0, threaded=0, cpu=0):
    return u64(shares) + u64(quota) + u64(period) + u64(burst) + \
        bytes([idle | threaded << 2 | cpu << 4])


def op(code, vm=0):
    return bytes([vm << 4 | code])


def connect(vm=0):
    return op(0, vm)


def hello(vm=0, nr=2, flags=0, part=0, **kw):
    return op(1, vm) + u16(nr) + u16(flags) + bytes([part]) + settings(**kw)


def group(vm, index, path, **kw):
    return op(2, vm) + u16(index) + string(path) + settings(**kw)


def ev(vm, typ, vcpu=0, arg=0, a=0, b=0):
    return op(3, vm) + bytes([typ]) + u16(vcpu) + u16(arg) + u64(a) + u64(b)


def raw(vm, data):
    return op(4, vm) + u16(len(data)) + data


def tid(vm, vcpu):
    return op(5, vm) + u16(vcpu)


def store(vm, index, value):
    return op(6, vm) + u16(index) + u64(value)


def claim(vm, vcpu):
    return op(7, vm) + u16(vcpu)


def hand(vm, vcpu):
    return op(12, vm) + u16(vcpu)


def xtake(vm, vcpu):
    return op(13, vm) + u16(vcpu)


WRITE, MKDIR, RMDIR = 1, 2, 3
# fwd()'s path (# the VMM's number), file and value kind, as fuzz/host_msgs.c lists them
P_VM, P_A, P_AB, P_MACHINE, P_ROOT = range(5)
F_THREADS, F_PROCS, F_VCPUS, F_WEIGHT, F_MAX = range(5)
V_TEXT, V_TID, V_SLOT = 0, 1, 2


def fwd(vm, ctl, path, file=0, value=b'', kind=V_TEXT, perm=0, dseq=0, err=0):
    return op(14, vm) + bytes([ctl, path, file, kind]) + string(value) + bytes([perm]) + \
        u64(dseq) + u64(err)


def proc(state=1, run=0, wait=0, threads=2, runnable=0, gone=0):
    """PROC: state index of "RSDTtZX"."""
    return op(15) + bytes([state]) + u64(run) + u64(wait) + \
        bytes([threads | runnable << 4 | gone << 7])


def close(vm=0):
    return op(8, vm)


def clock(ns, vm=0):
    return op(9, vm) + u64(ns)


def write(vm, file, value):
    return op(11, vm) + bytes([file]) + string(value)


def run(vm, nr):
    s = b''.join(ev(vm, RUNNABLE, v) for v in range(nr))
    return s + clock(3000000) + ev(vm, RAN, 0, a=3000000) + ev(vm, TICK) + \
        ev(vm, BLOCKED, 1) + clock(1000000) + ev(vm, RAN, 1, a=1000000, b=5000)


XVM = bytes([0]) + connect(0) + hello(0, 1, 0x53) + connect(1) + hello(1, 1, 0x53) + \
    ev(0, COMMIT) + ev(1, COMMIT) + ev(0, RUNNABLE, 0) + ev(1, RUNNABLE, 0)

SEEDS = {
    'join-run': bytes([1]) + connect() + hello(nr=2) + run(0, 2) + clock(200000000) + close(),
    'join-pages-two-vms': bytes([1]) + connect(0) + hello(0, 3, ALL_FLAGS) + tid(0, 0) +
        tid(0, 1) + tid(0, 2) + connect(1) + hello(1, 2, ALL_FLAGS, shares=2048) +
        tid(1, 0) + tid(1, 1) + ev(0, RUNNABLE, 0) + claim(1, 0) +
        run(0, 3) + claim(0, 2) + ev(1, RUNNABLE, 1) + clock(150000000) + ev(0, BLOCKED, 0) +
        claim(0, 0) + ev(0, OTHER, a=100000, b=100000) + store(0, 0, 0) + close(1) +
        clock(10000000),
    'join-offers': bytes([0]) + connect() + hello(nr=2, flags=0x3) + claim(0, 1) +
        ev(0, RUNNABLE, 1) + ev(0, BLOCKED, 1) + claim(0, 0) + ev(0, TOOK, 0, a=1) +
        clock(1000000),
    'groups-commit': bytes([2]) + connect() + hello(nr=3, quota=50000, period=100000) +
        group(0, 0, b'a', shares=2048, cpu=1) + group(0, 1, b'a/b', threaded=1) +
        group(0, 2, b'c', idle=1, quota=10000, burst=5000) + ev(0, VCPU, 0, 2) +
        ev(0, VCPU, 1, 3) + ev(0, VCPU, 2, 1) + ev(0, COMMIT) + run(0, 3) +
        group(0, 0, b'a') + ev(0, COMMIT) + clock(300000000),
    'refusals': bytes([1]) + connect() + hello(nr=0) + connect(1) +
        hello(1, 2, part=4) + connect(2) + hello(2, 2000) + connect(0) +
        raw(0, struct.pack('<II', HELLO, 99)) + connect(1) + hello(1, 1, 0x200) +
        connect(2) + hello(2, 17) + connect(0) + hello(0, 1) + ev(0, CTL_DONE, a=1) +
        connect(1) + hello(1, 1, part=3) + ev(1, PING, a=5) + ev(1, RAN, 0, a=2**40) +
        connect(2) + hello(2, 1, shares=1) + connect(0) + hello(0, 1) + ev(0, TID, 0, a=0),
    'vm-writes': bytes([1]) + connect() + hello(nr=2, flags=0x1) + ev(0, RUNNABLE, 0) +
        write(0, 1, b'50000 100000') + write(0, 0, b'300') + write(0, 3, b'1') +
        write(0, 2, b'20000') + clock(120000000) + ev(0, RAN, 0, a=100000000) +
        hello(0, 2) + connect(1) + hello(1, 1, 0x1, part=2),
    'handoff': bytes([0]) + connect() + hello(nr=2, flags=0x13) + ev(0, RUNNABLE, 0) +
        ev(0, RUNNABLE, 1) + hand(0, 0) + clock(1000000) + ev(0, RAN, 0, a=1000000) +
        ev(0, RUNNABLE, 0) + hand(0, 1) + clock(5000000),
    'handoff-xvm': bytes([0]) + connect(0) + hello(0, 1, 0x53) + connect(1) +
        hello(1, 1, 0x53) + ev(0, RUNNABLE, 0) + ev(1, RUNNABLE, 0) + hand(0, 0) +
        xtake(1, 0) + clock(2000000) + ev(1, RAN, 0, a=2000000) + ev(0, RUNNABLE, 0) +
        hand(1, 0) + xtake(0, 0) + clock(2000000),
    # a cross-VM handoff taken by the successor's VM before the TOOK (HAND bit 15), both ways;
    # then one whose releasing VM rewrote its claim after the take (bit 14: no TOOK): refused
    'handoff-xvm-taken': XVM + hand(0, 0x8000) + clock(2000000) + ev(1, RAN, 0, a=2000000) +
        ev(0, RUNNABLE, 0) + hand(1, 0x8000) + clock(2000000),
    'handoff-xvm-refused': XVM + hand(0, 0xc000) + store(0, 0, 0) + clock(2000000),
    'forwards': bytes([1]) + connect(0) + hello(0, 2, ALL_FLAGS) + tid(0, 0) + tid(0, 1) +
        group(0, 0, b'a', cpu=1) + group(0, 1, b'a/b', threaded=1) + ev(0, VCPU, 1, 2) +
        ev(0, COMMIT) + connect(1) + hello(1, 1, ALL_FLAGS) + tid(1, 0) +
        fwd(0, WRITE, P_A, F_THREADS, kind=V_TID, perm=1) +
        fwd(0, WRITE, P_AB, F_WEIGHT, b'300', err=22) +
        fwd(0, MKDIR, P_AB, dseq=5, err=17) +
        fwd(0, RMDIR, P_AB, dseq=1, err=16) +
        fwd(0, WRITE, P_VM, F_PROCS, kind=V_TID) +
        fwd(0, WRITE, P_VM, F_VCPUS, kind=V_SLOT) +
        fwd(0, WRITE, P_VM, F_MAX, b'max') +
        fwd(0, WRITE, P_MACHINE, F_THREADS, kind=V_TID) +
        fwd(0, WRITE, P_ROOT, F_VCPUS, kind=V_SLOT + 3 * 15) +
        fwd(1, WRITE, P_A, F_THREADS, kind=V_TID, perm=0) +
        fwd(1, MKDIR, P_A, err=5000) + fwd(0, 0, P_A) + close(0),
    # A holder silent past its slice end while the other vCPU waits, judged by its thread's
    # times: asleep, ran without a word, stopped, gone; the causes of preemptions counted.
    'silent-holders': bytes([0x81]) + connect() + hello(nr=2, flags=ALL_FLAGS) + tid(0, 0) +
        tid(0, 1) + proc() + ev(0, RUNNABLE, 0) + ev(0, RUNNABLE, 1) + clock(10000000) +
        clock(10000000) + proc() + clock(10000000) + clock(10000000) +
        ev(0, RUNNABLE, 0) + ev(0, RUNNABLE, 1) + clock(10000000) + proc(0, run=10**8) +
        clock(10000000) + proc(0, run=10**8, runnable=1) + clock(20000000) +
        clock(20000000) + proc(3) + ev(0, RUNNABLE, 0) + ev(0, RUNNABLE, 1) +
        clock(30000000) + proc(1, gone=1) + clock(30000000) + clock(30000000) + close(),
    'groups-remade': bytes([1]) + connect() + hello(nr=2) +
        group(0, 0, b'a', cpu=1) + group(0, 1, b'a/b') + ev(0, VCPU, 1, 2) + ev(0, COMMIT) +
        run(0, 2) + group(0, 0, b'x') + group(0, 1, b'a') + ev(0, VCPU, 1, 2) +
        ev(0, COMMIT) + clock(5000000) + close(),
}

write_seeds(SEEDS, 'host_msgs')
