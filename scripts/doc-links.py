#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the documentation's relative links: every [text](target) and <img src> of README.md,
docs/*.md and docs/history/*.md names a file that exists and, with #anchor, a heading of that
file (GitHub's anchors: lowercase, spaces to '-', punctuation but '-' and '_' dropped, '-N' for
repeats); every docs/... path the man page names exists. Prints each broken one; exit 1 if any.

    scripts/doc-links.py [ROOT]
"""
import glob
import os
import re
import sys

os.chdir(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))
FENCE = re.compile(r'^(```|~~~).*?^\1', re.S | re.M)


def slug(h):
    h = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', h.strip().lower()).replace('`', '')
    return re.sub(r'[^\w\- ]', '', h).replace(' ', '-')


anchors = {}


def heads(f):
    if f not in anchors:
        s, seen = set(), {}
        for m in re.finditer(r'^#{1,6}\s+(.*?)\s*#*\s*$', FENCE.sub('', open(f).read()), re.M):
            a = slug(m.group(1))
            n = seen.get(a, 0)
            seen[a] = n + 1
            s.add(a if n == 0 else f'{a}-{n}')
        s |= set(re.findall(r'<a\s+(?:name|id)="([^"]+)"', open(f).read()))
        anchors[f] = s
    return anchors[f]


bad = 0
for f in ['README.md'] + sorted(glob.glob('docs/*.md')) + sorted(glob.glob('docs/history/*.md')):
    text = FENCE.sub(lambda m: '\n' * m.group(0).count('\n'), open(f).read())
    text = re.sub(r'`[^`\n]*`', '', text)
    targets = [(m.start(), m.group(1)) for m in
               re.finditer(r'\]\(([^)\s]+)(?:\s+"[^"]*")?\)', text)]
    targets += [(m.start(), m.group(1)) for m in re.finditer(r'<img[^>]*\ssrc="([^"]+)"', text)]
    for pos, tgt in targets:
        if re.match(r'^[a-z]+:', tgt):
            continue
        line = text.count('\n', 0, pos) + 1
        path, _, anc = tgt.partition('#')
        tf = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(tf):
            print(f'{f}:{line}: no file {tgt}')
            bad += 1
        elif anc and tf.endswith('.md') and anc not in heads(tf):
            print(f'{f}:{line}: no heading for {tgt}')
            bad += 1
for p in sorted(set(re.findall(r'\bdocs/[\w/.-]*\w', open('man/vsched.1').read()))):
    if not os.path.exists(p):
        print(f'man/vsched.1: no file {p}')
        bad += 1
print(f'doc-links: {bad} broken', file=sys.stderr)
sys.exit(1 if bad else 0)
