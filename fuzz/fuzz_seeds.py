# SPDX-License-Identifier: GPL-2.0
# The binary fuzz targets' field encoders (struct fuzz_in in fuzz/fuzz.h reads them), shared by
# the seed scripts fuzz/host_msgs_seeds.py and fuzz/vmm_peer_seeds.py.
import os
import struct
import sys

U64_MAX = 2**64 - 1


def u16(v):
    return struct.pack('<H', v)


def u32(v):
    return struct.pack('<I', v)


def u64(v):
    """A count n then n bytes, high zero bytes dropped; 0xff alone: UINT64_MAX."""
    if v == U64_MAX:
        return b'\xff'
    b = v.to_bytes(8, 'little').rstrip(b'\0')
    return bytes([len(b)]) + b


def string(s):
    """A u16 length, then the bytes."""
    return u16(len(s)) + s


def write_seeds(seeds, target):
    """Each seed into fuzz/corpus/TARGET/NAME, or into the directory of the first argument."""
    out = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus', target)
    os.makedirs(out, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(data)
