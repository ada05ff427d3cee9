#!/usr/bin/env python3
# t-api-ctl.sh's directory side: the operations of api_ops.c (see there) done with os.mkdir,
# os.rmdir, one open+read and one open+write(2) in a control directory; the same output.
import os
import sys

root = sys.argv[1]


def unescape(s):
    out, i = bytearray(), 0
    while i < len(s):
        c = s[i]
        if c != '\\' or i + 1 == len(s):
            out += c.encode('latin-1')
            i += 1
            continue
        c = s[i + 1]
        i += 2
        if c == 'x':
            out.append(int(s[i:i + 2], 16))
            i += 2
        else:
            out += {'n': b'\n', 't': b'\t', 's': b' ', '0': b'\0'}.get(c, c.encode('latin-1'))
    return bytes(out)


def show(p):
    try:
        with open(p, 'rb') as f:
            b = f.read()
    except OSError as e:
        return str(-e.errno)
    return '%d %s' % (len(b), b.decode('latin-1').replace('\n', '\\n'))


for line in sys.stdin:
    line = line.rstrip('\n')
    if not line or line[0] == '#':
        continue
    f = line.split('\t', 3) + [''] * 3
    op, path, file, v = f[0], f[1], f[2], f[3]
    if path == '.':
        path = ''
    d = os.path.join(root, path) if path else root
    if op in ('mkdir', 'rmdir'):
        try:
            (os.mkdir if op == 'mkdir' else os.rmdir)(d)
            r = 0
        except OSError as e:
            r = -e.errno
        print('%s %s = %d' % (op, path, r))
    elif op == 'read':
        print('read %s/%s = %s' % (path, file, show(os.path.join(d, file))))
    elif op == 'write':
        try:
            fd = os.open(os.path.join(d, file), os.O_WRONLY)
            try:
                r = os.write(fd, unescape(v))
            finally:
                os.close(fd)
        except OSError as e:
            r = -e.errno
        print("write %s/%s '%s' = %d | %s" % (path, file, v, r, show(os.path.join(d, file))))
    else:
        print('bad operation %s' % op)
    sys.stdout.flush()
