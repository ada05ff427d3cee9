#!/usr/bin/env python3
# Writes fuzz/corpus/guest_io/ seeds (the input format: fuzz/guest_io.c).
import sys

sys.dont_write_bytecode = True  # no __pycache__ in fuzz/
from fuzz_seeds import u16, u32, u64, write_seeds  # noqa: E402

IO, MMIO, EXIT, PORT, INPUT, DRAIN, HANGUP, CLOCK = range(8)
OUT = 1
SIZE = {1: 0 << 1, 2: 1 << 1, 4: 2 << 1, 0: 6 << 1, 3: 7 << 1}
RAW_COUNT, AT = 0x10, 0x20
COM1, I8042_DATA, I8042_CMD, RTC_INDEX, RTC_DATA = 0x3f8, 0x60, 0x64, 0x70, 0x71
HELLO, SLEEP, PIO, PEXIT = 0x510, 0x511, 0x512, 0x513


def one_vcpu():
    return b'\0'


def two_vcpus():
    return b'\1'


def io(port, out=False, size=1, count=1, data=b'', vcpu=0, raw_count=False, at=None):
    how = (OUT if out else 0) | SIZE[size] | (RAW_COUNT if raw_count else 0)
    if at is not None:
        how |= AT
    b = bytes([IO, vcpu]) + u16(port) + bytes([how]) + u16(count)
    if at is not None:
        b += u32(at)
    return b + bytes([len(data)]) + data


def outb(port, v, vcpu=0):
    return io(port, True, 1, 1, bytes([v]), vcpu)


def inb(port, vcpu=0):
    return io(port, False, 1, 1, b'', vcpu)


def mmio(addr, length, write=False, data=0, vcpu=0):
    return bytes([MMIO, vcpu]) + u64(addr) + bytes([length, int(write)]) + u64(data)


def exit_(which, arg=0, vcpu=0):
    return bytes([EXIT, vcpu, which]) + u32(arg)


def port(p, size, write=False, data=0, vcpu=0):
    return bytes([PORT, vcpu]) + u16(p) + bytes([size, int(write)]) + u64(data)


def serial_in(data):
    return bytes([INPUT, len(data)]) + data


def clock(t):
    return bytes([CLOCK]) + u64(t)


def rtc(reg):
    return outb(RTC_INDEX, reg) + inb(RTC_DATA)


SEEDS = {
    # the console: a line, then a rep outsb of a page, the reader draining
    'serial-out': one_vcpu() + b''.join(outb(COM1, c) for c in b'hello\n') + bytes([DRAIN]) +
    io(COM1, True, 1, 4096, b'0123456789abcdef') + bytes([DRAIN]),
    # 8250 probe: scratch, divisor latch, loopback, FIFO, IIR, input arriving
    'serial-probe': one_vcpu() + outb(COM1 + 7, 0x5a) + inb(COM1 + 7) + outb(COM1 + 3, 0x80) +
    outb(COM1, 1) + outb(COM1 + 1, 0) + outb(COM1 + 3, 3) + outb(COM1 + 4, 0x10) +
    outb(COM1, 0x41) + inb(COM1 + 5) + inb(COM1) + inb(COM1 + 6) + outb(COM1 + 4, 0x0b) +
    outb(COM1 + 2, 0x07) + outb(COM1 + 1, 0x03) + inb(COM1 + 2) + serial_in(b'key\r') +
    io(COM1, False, 1, 80) + inb(COM1 + 5),
    # the console's reader goes away, the guest goes on writing
    'serial-hangup': one_vcpu() + outb(COM1, 0x41) + bytes([HANGUP]) +
    io(COM1, True, 2, 64, b'xy') + bytes([DRAIN]),
    # i8042: self test, control byte, keyboard reset and id, echo, then the reset line
    'i8042': one_vcpu() + outb(I8042_CMD, 0xaa) + inb(I8042_DATA) + outb(I8042_CMD, 0x20) +
    inb(I8042_CMD) + inb(I8042_DATA) + outb(I8042_CMD, 0x60) + outb(I8042_DATA, 0x47) +
    outb(I8042_DATA, 0xff) + outb(I8042_DATA, 0xf2) + io(I8042_DATA, False, 1, 20) +
    outb(I8042_CMD, 0xd2) + outb(I8042_DATA, 0x99) + inb(I8042_DATA) + outb(I8042_CMD, 0xfe) +
    outb(I8042_CMD, 0xa9) + inb(I8042_DATA),
    # the RTC's clock in BCD and binary, CMOS RAM, a far clock, a rep insb of the data port
    'rtc': one_vcpu() + b''.join(rtc(r) for r in (0, 2, 4, 6, 7, 8, 9, 0x0a, 0x0b, 0x0d, 0x32)) +
    outb(RTC_INDEX, 0x0b) + outb(RTC_DATA, 0x06) + clock(2**38 - 1) +
    b''.join(rtc(r) for r in (0, 2, 4, 7, 8, 9)) + outb(RTC_INDEX, 0x40) +
    io(RTC_DATA, True, 4, 1, b'\x12\x34\x56\x78') + outb(RTC_INDEX, 0x80) + inb(RTC_DATA) +
    io(RTC_DATA, False, 1, 128),
    # legacy: POST codes, A20, PCI conf1 absent, absent COM2-4, then ACPI S5
    'legacy': one_vcpu() + outb(0x80, 0x12) + inb(0x80) + inb(0x92) + outb(0x92, 0x02) +
    io(0xcf8, True, 4, 1, b'\x00\x00\x00\x80') + io(0xcfc, False, 4, 1) + inb(0xcf9) +
    inb(0x2fd) + inb(0x3ed) + inb(0x2ed) + inb(0x505) + outb(0x504, 5 << 2) +
    outb(0x504, (5 << 2) | 0x20) + inb(0x80),
    # the reset paths: 0x92 fast reset, then 0xcf9, then the power-off port (three VMs)
    'resets': one_vcpu() + outb(0x92, 0x03) + outb(0xcf9, 0x06) + outb(0x501, 0),
    # the payload ports: hello, io, a sleep, reads float high, exit on both vCPUs
    'payload': two_vcpus() + io(HELLO, True, 4, 1, b'\0\0\0\0') +
    io(PIO, True, 4, 1, b'\1\0\0\0', 1) + io(SLEEP, True, 4, 1, b'\xe8\x03\0\0') +
    io(HELLO, False, 4, 2) + io(PEXIT, True, 4, 1, b'\0\0\0\0', 0) +
    io(PEXIT, True, 4, 1, b'\2\0\0\0', 1),
    # a sleep longer than the VM's duration, then the exit port waiting for it
    'payload-sleep-long': one_vcpu() + io(SLEEP, True, 4, 1, b'\xff\xff\xff\xff') +
    io(PEXIT, True, 1, 1, b'\3'),
    # unserved ports: reads all-ones, counted; a rep insw of a page
    'unhandled': one_vcpu() + inb(0x5f0) + io(0x5f0, False, 2, 2048) + io(0xfffe, True, 4, 3) +
    io(0x1234, False, 4, 1024),
    # MMIO: nothing is served; every length 1-8 and the malformed 0 and 9
    'mmio': one_vcpu() + b''.join(mmio(0xfed00000 + i, i, i & 1, 0x1122334455667788)
                                  for i in range(1, 9)) + mmio(0xfee00000, 0),
    'mmio-long': one_vcpu() + mmio(0xd0000000, 9, False),
    # malformed port exits: size 3, size 0, data past the mapping, a count past the page
    'io-odd-size': one_vcpu() + io(COM1, True, 3, 1, b'abc'),
    'io-size-0': one_vcpu() + io(0x80, False, 0, 5),
    'io-offset': one_vcpu() + io(0x80, False, 1, 16, at=3 * 4096 - 8) +
    io(0x80, True, 4, 1, at=2**32 - 1) + io(0x80, True, 1, 1, at=8),
    'io-count': one_vcpu() + io(COM1, True, 4, 0xffff, b'z', raw_count=True),
    # the other exits: INTR goes on, the rest end the VM
    'exits': two_vcpus() + exit_(0) + exit_(1) + exit_(2, vcpu=1) + exit_(3, 1) + exit_(3, 2) +
    exit_(3, 99) + exit_(4, 1) + exit_(5, 0x80000021) + exit_(6, 0xdead),
    'exit-internal': one_vcpu() + exit_(4, 0xff01),
    # ioport_dispatch() with every size 0-8 on each kind of device
    'port-sizes': one_vcpu() + b''.join(port(p, s, w, 0x0102030405060708)
                                        for p in (COM1, I8042_DATA, RTC_DATA, 0x80, 0xcf8,
                                                  HELLO, 0x5f0)
                                        for s in range(9) for w in (False, True)
                                        if not (p == 0xcf8 and w)),
}

if __name__ == '__main__':
    write_seeds(SEEDS, 'guest_io')
