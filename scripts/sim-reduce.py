#!/usr/bin/env python3
# sim-reduce.py FILE BOUND [GROUP SIGN]: shrinks a `vsched sim` scenario while it stays over
# BOUND (% of capacity), printing the smallest found and its figure. Without GROUP, the figure is
# the max group error (`vsched sim -q`); with GROUP and SIGN (1 or -1), it is SIGN x (usage -
# ideal) of that group, so that a reduction keeps its class (who is off, and which way) instead of
# sliding to another shape over the bound (docs/scheduler.md §10, "Small capped trees").
# Steps, greedy until none helps: drop a line; drop a burst or a weight; make a duty or bursty
# vCPU a hog. A dropped `duration` leaves the default, 1 s. VSCHED names the binary
# (build/vsched by default).
import os
import re
import subprocess
import sys
import tempfile

VSCHED = os.environ.get("VSCHED", "build/vsched")


def figure(lines, group, sign, path):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    args = [VSCHED, "sim", "-q", path] if group is None else [VSCHED, "sim", path]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode:
        return -1.0
    if group is None:
        return float(p.stdout.split()[0])
    cap = None
    for line in p.stdout.splitlines():
        f = line.split()
        if line.startswith("simulated"):
            cap = float(line.split("capacity ")[1].split()[0]) * 1000
        elif cap and f and f[0] == group and len(f) > 3:
            try:
                return sign * (float(f[-3]) - float(f[-2])) / cap * 100
            except ValueError:
                pass
    return -1.0


def variants(lines):
    for i in range(len(lines)):
        yield lines[:i] + lines[i + 1:]
    for i, line in enumerate(lines):
        for pat, rep in ((r" burst \S+", ""), (r" weight \S+", ""),
                         (r" (duty|bursty) .*", " hog")):
            new = re.sub(pat, rep, line)
            if new != line:
                yield lines[:i] + [new] + lines[i + 1:]


def main():
    if len(sys.argv) not in (3, 5):
        sys.exit("usage: sim-reduce.py FILE BOUND [GROUP SIGN]")
    lines = [l for l in open(sys.argv[1]).read().splitlines() if l and not l.startswith("#")]
    bound = float(sys.argv[2])
    group = sys.argv[3] if len(sys.argv) == 5 else None
    sign = float(sys.argv[4]) if group else 0.0
    fd, path = tempfile.mkstemp(suffix=".sim")
    os.close(fd)
    try:
        changed = True
        while changed:
            changed = False
            for cand in variants(lines):
                if figure(cand, group, sign, path) > bound:
                    lines, changed = cand, True
                    break
        print("\n".join(lines))
        print("# %.4f" % figure(lines, group, sign, path))
    finally:
        os.unlink(path)


if __name__ == "__main__":
    main()
