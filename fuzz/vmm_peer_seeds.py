#!/usr/bin/env python3
# Writes fuzz/corpus/vmm_peer/ seeds (the input format: fuzz/vmm_peer.c).
import os
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in fuzz/
from fuzz_seeds import u16, u32, u64, write_seeds  # noqa: E402

PSTORE, PCLAIM, XSUCC, OSTORE, ENTRY, DGRAM, RAW, STATE, TAKE, PARK, APPLY, SENT, PEER, \
    WATCH = range(14)
RECV = 0xff  # op byte 0xff (fuzz/vmm_peer.c)
GRANT, PREEMPT, RETIME, PIN, PONG, PEERMSG = 0, 1, 2, 3, 4, 5


def shape(vcpus, lanes):
    return bytes([(vcpus - 1) | (lanes - 1) << 2])


def xsucc(peer, vcpu, held, slice_ns=0):
    return bytes([XSUCC, peer, vcpu, held]) + u64(slice_ns)


def claim(peer, lane, vcpu=0, dgen=128):
    return bytes([PCLAIM, peer, dgen, lane]) + u16(vcpu)


def entry(vcpu, lane, cpu=0xff, until=2**64 - 1, at=0):
    return bytes([ENTRY, vcpu, lane, cpu]) + u64(until) + u64(at)


def dgram(typ, vcpu, arg, seq, a=0, b=2**64 - 1):
    return bytes([DGRAM, typ]) + u16(vcpu) + u16(arg) + u32(seq) + u64(a) + u64(b)


def op(o, *args):
    return bytes([o, *args])


def host_type(name):
    # enum host_msg_type in include/host/proto.h, read so the seeds follow it
    src = open(os.path.join(os.path.dirname(__file__), '../include/host/proto.h')).read()
    body = src[src.index('enum host_msg_type'):]
    val = 0
    for line in body[:body.index('};')].split('\n')[1:]:
        line = line.strip()
        if not line.startswith('HOST_MSG_'):
            continue
        decl = line.split(',')[0]
        if '=' in decl:
            decl, v = decl.split('=')
            val = int(v)
        if decl.strip() == 'HOST_MSG_' + name:
            return val
        val += 1
    raise KeyError(name)


def raw(data):
    return bytes([RAW]) + u16(len(data)) + data


def recv(data, fds=0):
    return bytes([RECV, fds]) + u16(len(data)) + data


def vmset(shares=0, quota=2**64 - 1, period=100000, burst=0, idle=0, threaded=0, cpu=0,
          path=b''):
    """A VMSET (struct host_group_msg, 312 bytes)."""
    return struct.pack('<II256sQQQQBBB5xQ', host_type('VMSET'), 0, path, shares, quota, period,
                       burst, idle, threaded, cpu, 0)


def ev(typ, vcpu=0, arg=0, seq=0, a=0, b=0):
    return struct.pack('<IIIIQQ', typ, vcpu, arg, seq, a, b)


SEEDS = {
    # the published successor takes the lane its peer claims
    'take': shape(2, 2) + xsucc(0, 0, 1) + claim(0, 0) + op(TAKE, 0) + op(WATCH),
    # the peer claims a lane it does not hold: refused, the daemon's grant is what runs
    'repro-forged-lane': shape(2, 2) + entry(1, 1) + op(APPLY, 1, 0) + xsucc(0, 0, 1) +
    claim(0, 1) + op(TAKE, 0) + op(PARK, 0) + op(WATCH),
    # claims of another gen, out of range lanes, the offer's none
    'claims-bad': shape(1, 1) + xsucc(1, 0, 1) + claim(1, 0, dgen=129) + op(TAKE, 0) +
    claim(1, 7) + op(TAKE, 0) + claim(1, 0xff) + op(TAKE, 0) + claim(1, 0, 3) + op(TAKE, 0),
    # parked on the peer's word again and again in one gen: bounded
    'park-many': shape(1, 1) + xsucc(0, 0, 1) + op(PARK, 0) * 120 + xsucc(0, 0, 1) +
    op(PARK, 0) * 120,
    # the daemon's entries: grant, torn write, preempt, pinned, ahead
    'entries': shape(2, 2) + entry(0, 0, 0) + op(APPLY, 0, 0) + entry(0, 0x41) +
    op(APPLY, 0, 1) + entry(0, 0xff) + op(APPLY, 0, 2) + entry(1, 1, 0x81, 5000000) +
    op(APPLY, 1, 0) + entry(1, 5) + op(APPLY, 1, 0) + entry(0, 0, 1, at=1) + op(APPLY, 0, 0),
    # datagrams: grant, retime, preempt, pin, pong, out of range
    'dgrams': shape(2, 2) + dgram(host_type('GRANT'), 0, 1, 2, 10**9, 1) +
    dgram(host_type('RETIME'), 0, 0, 2, 10**6) + dgram(host_type('PIN'), 0, 1, 0, 0, 0) +
    dgram(host_type('PREEMPT'), 0, 0, 4, 2**64 - 1) + dgram(host_type('PONG'), 9, 9, 0) +
    dgram(host_type('GRANT'), 1, 9, 1) + dgram(host_type('GRANT'), 7, 0, 1) +
    dgram(host_type('GRANT'), 1, 0, 1, 0, 5000),
    # PEER datagrams: leave and come back, raw ones out of shape, a take from a peer gone
    'peers': shape(1, 2) + xsucc(1, 0, 3) + op(PEER, 1) + claim(1, 1) + op(TAKE, 0) +
    op(PEER, 1) + op(TAKE, 0) + bytes([RAW]) + u16(32) +
    struct.pack('<IIIIQQ', host_type('PEER'), 0, 0, 0, 7, 0) + op(TAKE, 0) + op(WATCH) +
    bytes([RAW]) + u16(5) + b'\x05\0\0\0\0',
    # a parked successor: the claim found at its wake-up
    'park-take': shape(2, 2) + xsucc(0, 1, 2) + op(PARK, 1) + claim(0, 1, 1) + op(PARK, 1),
    # taken at the park's end, then the newer entry (a PREEMPT) applied: it waits again
    'take-then-preempt': shape(1, 1) + xsucc(0, 0, 1) + claim(0, 0) + entry(0, 0xff) +
    op(PARK, 0),
    # the view: a datagram sent or a TOOK due since the side: no take
    'view': shape(1, 1) + xsucc(0, 0, 1) + op(SENT, 0) + claim(0, 0) + op(TAKE, 0) +
    xsucc(0, 0, 1) + op(SENT, 1) + claim(0, 0) + op(TAKE, 0) + op(SENT, 1) + op(TAKE, 0),
    # the daemon's garbage in this VM's page, the peer's garbage in its own
    'garbage': shape(4, 4) + bytes([OSTORE]) + u16(0) + u64((3 << 32) | 0xfffdffff) +
    bytes([OSTORE]) + u16(157) + u64(2) + bytes([OSTORE]) + u16(156) + u64(7) +
    bytes([PSTORE, 0]) + u16(0) + u64((3 << 32) | 0x00020001) + op(TAKE, 2) + op(PARK, 2) +
    op(WATCH) + bytes([OSTORE]) + u16(160) + u64(5 * 10**9) + op(TAKE, 2),
    # states: a runner blocks, waits again, takes
    'states': shape(2, 1) + entry(0, 0) + op(APPLY, 0, 0) + op(STATE, 0) + op(STATE, 0) +
    xsucc(0, 0, 1, 10**6) + claim(0, 0, 1) + op(TAKE, 0) + op(STATE, 0),
    # the VM group's settings the daemon's directory changed: in range, and refused ones
    'vmset': shape(1, 1) + raw(vmset(2048, 50000, 100000, 10000)) + raw(vmset(idle=1)) +
    raw(vmset(1)) + raw(vmset(quota=500)) + raw(vmset(threaded=1)) + raw(vmset(cpu=1)) +
    raw(vmset(path=b'a')) + raw(vmset(2**19)) + raw(vmset(quota=1000, burst=2000)),
    # datagrams through the agent's socket: a PEER with its page, with none, with two or
    # three fds (the second was left open: rt_peer_recv()); a GRANT with an fd; a VMSET; a
    # datagram of nothing
    'repro-recv-fds': shape(2, 2) + op(PEER, 0) + recv(ev(host_type('PEER'), arg=1, a=7), 1) +
    xsucc(0, 0, 1) + claim(0, 0) + op(TAKE, 0) +
    recv(ev(host_type('PEER'), arg=1, a=9), 2) + recv(ev(host_type('PEER'), arg=1, a=9), 3) +
    recv(ev(host_type('PEER'), arg=0, a=9)) + recv(ev(host_type('PEER'), arg=1, a=9)) +
    recv(ev(host_type('GRANT'), 1, 1, 1, 2**64 - 1, 1), 1) +
    recv(ev(host_type('GRANT'), 1, 1, 1, 2**64 - 1, 1)) + recv(vmset(300), 0) +
    recv(vmset(300), 2) + recv(b'') + recv(b'', 1),
    # a PEER one byte too long with an fd: refused, its fd was left open (rt_peer_msg())
    'repro-recv-peer-size': shape(1, 1) + recv(ev(host_type('PEER'), arg=1, a=7) + b'\0', 1),
}

write_seeds(SEEDS, 'vmm_peer')
