#!/usr/bin/env python3
# Writes fuzz/corpus/kimage/ seeds (fuzz/kimage.c: the file of a kernel image).
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in fuzz/
from fuzz_seeds import write_seeds  # noqa: E402

HDR = 0x1f1


def bz(kernel=1024, sects=1, version=0x020f, xload=1, load=1, init=0x400000,
       pref=0x1000000, align=0x200000, syssize=None):
    """A bzImage: boot sector and setup sectors, then the protected-mode kernel."""
    setup = (sects + 1) * 512
    f = bytearray(setup + kernel)
    if syssize is None:
        syssize = kernel // 16
    struct.pack_into('<BHI', f, HDR, sects, 0, syssize)
    struct.pack_into('<H', f, 0x1fe, 0xaa55)
    struct.pack_into('<H', f, 0x200, 0x6aeb)           # jmp: the header is 0x7b bytes
    f[0x202:0x206] = b'HdrS'
    struct.pack_into('<H', f, 0x206, version)
    f[0x211] = load
    struct.pack_into('<I', f, 0x214, 0x100000)          # code32_start
    struct.pack_into('<I', f, 0x22c, 0x7fffffff)        # initrd_addr_max
    struct.pack_into('<I', f, 0x230, align)
    struct.pack_into('<H', f, 0x236, xload)
    struct.pack_into('<I', f, 0x238, 2047)              # cmdline_size
    struct.pack_into('<Q', f, 0x258, pref)
    struct.pack_into('<I', f, 0x260, init)
    for i in range(setup, len(f)):
        f[i] = (i * 7) & 0xff
    return bytes(f)


def elf(segs, entry, etype=2, machine=62, phoff=64):
    """An x86-64 ELF64 executable; segs: (paddr, vaddr, data, memsz)."""
    off = phoff + 56 * len(segs)
    eh = b'\x7fELF' + bytes([2, 1, 1]) + bytes(9)
    eh += struct.pack('<HHIQQQIHHHHHH', etype, machine, 1, entry, phoff, 0, 0, 64, 56,
                      len(segs), 64, 0, 0)
    eh += bytes(phoff - 64)
    ph, body = b'', b''
    for paddr, vaddr, data, memsz in segs:
        ph += struct.pack('<IIQQQQQQ', 1, 5, off + len(body), vaddr, paddr, len(data), memsz,
                          0x1000)
        body += data
    return eh + ph + body


HIGH = 0xffffffff81000000
SEEDS = {
    'bz-ok': bz(),
    # one that fits the target's 2 MiB of RAM: loaded
    'bz-loads': bz(pref=0x100000, init=0x10000, align=0x1000),
    'bz-2.06': bz(version=0x0206),
    'bz-setup-sects-0': bz(sects=0),
    'bz-truncated': bz(syssize=512),
    'bz-old': bz(version=0x0205),
    'bz-no-64bit': bz(xload=0),
    'bz-zimage': bz(load=0),
    'bz-too-big': bz(init=0x40000000),
    # found by the target: an entry past the kernel's bytes, pref_address + init_size wrapping
    'repro-bz-entry-past-kernel': bz(kernel=64, version=0x0209),
    'repro-bz-pref-address-wraps': bz(pref=2**64 - 0x1000, init=0x2000),
    'elf-ok': elf([(0x100000, HIGH, b'\x90' * 512, 0x2000)], HIGH + 16),
    'elf-physical': elf([(0x100000, 0x100000, b'\xf4' * 64, 64)], 0x100000),
    'elf-two': elf([(0x100000, HIGH, b'\x90' * 64, 0x1000),
                    (0x180000, HIGH + 0x80000, b'\xcc' * 64, 0x8000)], HIGH + 0x80010),
    # found by the target: program headers at an offset not 8-byte aligned
    'repro-elf-phdrs-misaligned': elf([(0x100000, HIGH, b'\x90' * 64, 64)], HIGH, phoff=68),
    # the target's invariant: a physical entry between two segments
    'repro-elf-entry-between-segments': elf([(0x100000, HIGH, b'\x90' * 64, 0x1000),
                                             (0x180000, HIGH + 0x80000, b'\xcc' * 64, 0x1000)],
                                            0x140000),
    'elf-low': elf([(0x1000, 0x1000, b'\x90' * 64, 64)], 0x1000),
    'elf-no-entry': elf([(0x100000, HIGH, b'\x90' * 64, 64)], HIGH + 0x1000),
    'elf-dyn': elf([(0x100000, HIGH, b'\x90' * 64, 64)], HIGH, etype=3),
    'elf-outside': elf([(0x100000, HIGH, b'\x90' * 64, 64)], HIGH)[:100],
    'neither': b'MZ' + bytes(1000),
}

if __name__ == '__main__':
    write_seeds(SEEDS, 'kimage')
