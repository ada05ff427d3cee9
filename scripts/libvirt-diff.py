#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Random differential check of vsched's domain XML reading against a running libvirtd.

Generates random domains around <cputune>, <vcpu>, <vcpus>, <iothreads> (edge values, cpuset
lists, resctrl), defines each with `virsh define` and compares:
  - `vsched apply --domain FILE --dry-run` (the file as `vsched run` reads it) with libvirt's
    verdict: refused by one only is printed (LIBVIRT-ONLY / VSCHED-ONLY);
  - `vsched hook NAME prepare begin -` on libvirt's `virsh dumpxml` of every domain libvirt
    accepted (with our groups element, so the hook acts): a refusal is printed (HOOK-REFUSES).
Known differences are counted apart: <shares> (libvirt 9.0 refuses 1 at define and 0 at start,
vsched's dry run checks cgroup v2's [1, 10000]) and 'cachetune is only supported for KVM domains'.

  scripts/libvirt-diff.py --vsched build/vsched --seed 1 --count 250
needs root and libvirtd (docs: shared/reference/libvirt-on-this-machine.md); domains are named
vdiffN and undefined again. docs/libvirt.md lists the figures of branch libvirt3.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

NUMS = ['0', '1', '2', '999', '1000', '1001', '100000', '1000000', '1000001', '-1', '-2',
        '17592186044415', '17592186044416', '+5000', ' 5000', '5000 ', '', 'x', '010',
        '18446744073709551615', '-9223372036854775808']
LISTS = ['0', '1', '0-1', '1-0', '^0', '0,^0', '^1,0-1', '0-3', '5', '0 - 1', '0,', '2000',
         '16383', '16384', '', ' 1', '0,,1', 'x']
SCHEDS = ['idle', 'batch', 'fifo', 'rr', 'other', '']
PRIOS = [None, '0', '1', '-5', '99', 'x', '2147483648']
SCALARS = ['shares', 'period', 'quota', 'global_period', 'global_quota', 'emulator_period',
           'emulator_quota', 'iothread_period', 'iothread_quota']
GROUPS = ('<vs:groups xmlns:vs="https://vsched.dev/xmlns/groups/1.0"><vs:group name="g" '
          'weight="300"/><vs:assign vcpus="0" group="g"/></vs:groups>')


def attr(k, v):
    return '' if v is None else " %s='%s'" % (k, v)


def cputune_child(r):
    x = r.random()
    c = r.choice
    if x < 0.35:
        e = c(SCALARS)
        return '<%s>%s</%s>' % (e, c(NUMS), e)
    if x < 0.5:
        return '<vcpupin%s%s/>' % (attr('vcpu', c(['0', '1', '2', '3', '65536', None, 'x'])),
                                   attr('cpuset', c(LISTS + [None])))
    if x < 0.55:
        return '<emulatorpin%s/>' % attr('cpuset', c(LISTS + [None]))
    if x < 0.62:
        return '<iothreadpin%s%s/>' % (attr('iothread', c(['0', '1', '2', '3', None])),
                                       attr('cpuset', c(LISTS)))
    if x < 0.8:
        return '<vcpusched%s%s%s/>' % (attr('vcpus', c(LISTS + [None])),
                                       attr('scheduler', c(SCHEDS)), attr('priority', c(PRIOS)))
    if x < 0.87:
        return '<iothreadsched%s%s%s/>' % (attr('iothreads', c(['1', '2', '1-2', '3', '0'])),
                                           attr('scheduler', c(SCHEDS)),
                                           attr('priority', c(PRIOS)))
    if x < 0.9:
        return '<emulatorsched%s%s/>' % (attr('scheduler', c(SCHEDS)), attr('priority', c(PRIOS)))
    if x < 0.95:
        return ("<cachetune%s><cache id='0' level='3' type='%s' size='12'/></cachetune>" %
                (attr('vcpus', c(LISTS)), c(['both', 'code', 'data'])))
    return ("<memorytune%s><node id='%s' bandwidth='%s'/></memorytune>" %
            (attr('vcpus', c(LISTS)), c(['0', '1']), c(['0', '50', '100', '101'])))


def domain(r, name):
    c = r.choice
    nv = c([1, 2, 4])
    vcpu = "<vcpu placement='static'%s%s>%d</vcpu>" % (
        attr('current', c([None] * 8 + ['1', str(nv), '0', '5', 'x'])),
        attr('cpuset', c([None, None, '0', '^0,0-1', '0-1,^0', '0,^0', '16383'])), nv)
    extra = c(['', '', '<iothreads>2</iothreads>',
               "<iothreads>1</iothreads><iothreadids><iothread id='%s'/></iothreadids>" %
               c(['0', '1', '3', 'x'])])
    if r.random() < 0.3:
        extra += "<vcpus><vcpu id='0' enabled='yes' hotpluggable='no'/>" + ''.join(
            '<vcpu%s%s%s%s/>' % (attr('id', c(['1', '2', '3', '1', '2', '3', '5', None, 'x'])),
                                 attr('enabled', c(['yes', 'yes', 'no', 'no', None, 'maybe'])),
                                 attr('hotpluggable', c([None, None, 'yes', 'no', 'x'])),
                                 attr('order', c([None] * 6 + ['1', 'x'])))
            for _ in range(r.randint(0, 3))) + '</vcpus>'
    tune = ''.join(cputune_child(r) for _ in range(r.randint(1, 3)))
    return ("<domain type='qemu'>\n  <name>%s</name>\n  <memory unit='MiB'>64</memory>\n"
            "  %s%s\n  <cputune>%s</cputune>\n  <metadata>%s</metadata>\n"
            "  <os><type arch='x86_64' machine='pc'>hvm</type></os>\n"
            "  <devices><emulator>/usr/bin/qemu-system-x86_64</emulator></devices>\n"
            "</domain>\n" % (name, vcpu, extra, tune, GROUPS))


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    return p.returncode, (p.stderr + p.stdout).strip()


def first_error(text):
    lines = [ln for ln in text.splitlines() if 'warning' not in ln]
    return lines[-1][:200] if lines else ''


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--vsched', default='build/vsched')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=250)
    a = ap.parse_args()
    os.environ.setdefault('LIBVIRT_DEFAULT_URI', 'qemu:///system')
    r = random.Random(a.seed)
    counts = {'defined': 0, 'known': 0, 'diff': 0}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.count):
            name = 'vdiff%d' % i
            path = os.path.join(tmp, name + '.xml')
            with open(path, 'w') as f:
                f.write(domain(r, name))
            lrc, lout = run(['virsh', 'define', path])
            vrc, vout = run([a.vsched, 'apply', '--domain', path, '--dry-run'])
            known = ('only supported for KVM' in lout or "cputune 'shares'" in lout or
                     '<shares>' in vout)
            if lrc == 0:
                counts['defined'] += 1
                _, dump = run(['virsh', 'dumpxml', name])
                hrc, hout = run([a.vsched, 'hook', name, 'prepare', 'begin', '-'], dump)
                run(['virsh', 'undefine', name])
                if hrc and '<shares>' not in hout:
                    counts['diff'] += 1
                    print('HOOK-REFUSES seed %d #%d: %s' % (a.seed, i, first_error(hout)))
            if (lrc == 0) == (vrc == 0):
                continue
            if known:
                counts['known'] += 1
                continue
            counts['diff'] += 1
            side = 'LIBVIRT-ONLY' if lrc else 'VSCHED-ONLY'
            print('%s seed %d #%d: %s' % (side, a.seed, i, first_error(lout if lrc else vout)))
            sys.stdout.write(open(path).read())
    print('%d domains, %d defined by libvirt, %d known differences, %d other' %
          (a.count, counts['defined'], counts['known'], counts['diff']))
    return 1 if counts['diff'] else 0


if __name__ == '__main__':
    sys.exit(main())
