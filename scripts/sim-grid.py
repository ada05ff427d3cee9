#!/usr/bin/env python3
# sim-grid.py [--family NAME] [--out DIR] [--jobs N]: runs a grid of small hand-shaped scenarios
# a user would write (nested caps, cpu.max.burst, cpu.idle beside caps, nice, capped siblings,
# deep chains capped in the middle, duty vCPUs in capped groups, events mid-run, periods 1 ms to
# 1 s) through `vsched sim -q` and prints one line per scenario, "ERROR FAMILY PARAMS", worst
# last. Scenarios over 0.1 % are kept in DIR (default /tmp/sim-grid) as FAMILY-N.sim, to reduce
# with scripts/sim-reduce.py. VSCHED names the binary (build/vsched by default). Run it under
# nice -n 19; the classes it found: docs/scheduler.md §10, "Caps on shapes a user writes".
import argparse
import itertools
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

VSCHED = os.environ.get("VSCHED", "build/vsched")
PERIODS = (1000, 5000, 10000, 100000, 1000000)  # µs
FRACS = (0.3, 0.75, 0.95, 1.5)  # quota / period, in lanes


def quota(f, per):
    return max(1000, int(f * per))


def head(lanes, dur="1s"):
    return ["lanes %d" % lanes, "duration %s" % dur]


def vcpus(spec):
    """spec: list of (group, pattern, count) -> vcpu lines"""
    out, n = [], 0
    for g, pat, c in spec:
        for _ in range(c):
            out.append("vcpu %d %s %s" % (n, g, pat))
            n += 1
    return out


def nested():
    # parent capped, one child capped tighter or looser, one child uncapped, a root hog
    for l, pp, fp, pc, fc, w in itertools.product(
            (1, 2, 3), PERIODS[:4], (0.5, 0.95, 1.5), PERIODS[1:4], (0.3, 0.9, 2.0), (100, 1000)):
        yield (f"l{l} P{pp}x{fp} C{pc}x{fc} w{w}", head(l) + [
            f"group /p max {quota(fp, pp)}us {pp}us",
            f"group /p/c weight {w} max {quota(fc, pc)}us {pc}us",
            "group /p/d"] + vcpus([("/p/c", "hog", 2), ("/p/d", "hog", 1), ("/", "hog", 1)]))


def burst():
    for l, per, f, bf, pat in itertools.product(
            (1, 2, 3), PERIODS[1:], (0.3, 0.75, 1.5), (0.25, 1.0),
            ("hog", "duty 3ms 10ms", "bursty 5ms 20ms")):
        q = quota(f, per)
        yield (f"l{l} {per}x{f} b{bf} {pat.split()[0]}", head(l) + [
            f"group /a max {q}us {per}us burst {int(q * bf)}us", "group /b"] + vcpus(
                [("/a", pat, 2), ("/a", "hog", 1), ("/b", "hog", 1), ("/", "hog", 1)]))


def idle():
    for l, per, f, where in itertools.product(
            (1, 2, 3), PERIODS, FRACS, ("sib", "child", "under")):
        g = [f"group /a weight 300 max {quota(f, per)}us {per}us"]
        if where == "sib":
            g += ["group /i idle 1"]
            ip = "/i"
        elif where == "child":
            g += ["group /a/i idle 1"]
            ip = "/a/i"
        else:
            g += ["group /i idle 1", f"group /i/c max {quota(f, per)}us {per}us"]
            ip = "/i/c"
        yield (f"l{l} {per}x{f} {where}", head(l) + g + vcpus(
            [("/a", "hog", 2), (ip, "hog", 2), ("/", "hog", 1)]))


def nice():
    for l, per, f, n in itertools.product((1, 2, 3), PERIODS, FRACS, (-20, -5, 5, 19)):
        yield (f"l{l} {per}x{f} n{n}", head(l) + [
            f"group /a nice {n} max {quota(f, per)}us {per}us", "group /b nice 0"] + vcpus(
                [("/a", "hog", 2), ("/b", "hog", 2), ("/", "duty 2ms 7ms", 1)]))


def siblings():
    for l, p1, p2, f1, f2, w in itertools.product(
            (1, 2, 3), PERIODS[:4], PERIODS[1:4], (0.3, 0.95), (0.5, 1.5), (100, 5000)):
        yield (f"l{l} {p1}x{f1} {p2}x{f2} w{w}", head(l) + [
            f"group /a weight {w} max {quota(f1, p1)}us {p1}us",
            f"group /b max {quota(f2, p2)}us {p2}us",
            f"group /c max {quota(0.6, 20000)}us 20000us", "group /d"] + vcpus(
                [("/a", "hog", 2), ("/b", "hog", 2), ("/c", "hog", 1), ("/d", "hog", 1)]))


def deep():
    for l, depth, at, per, f in itertools.product(
            (1, 2, 3), (4, 6, 8), ("mid", "top", "two"), PERIODS[1:], (0.5, 0.95, 1.5)):
        g, path = [], ""
        mid = depth // 2
        for d in range(1, depth + 1):
            path += f"/d{d}"
            cap = (at == "mid" and d == mid) or (at == "top" and d == 1) or \
                (at == "two" and d in (mid, depth))
            ff = f if d != depth else f * 0.6
            g.append(f"group {path}" + (f" max {quota(ff, per)}us {per}us" if cap else ""))
            if d == mid:
                g.append(f"group {path}/s weight 50")
                sib = f"{path}/s"
        yield (f"l{l} D{depth} {at} {per}x{f}", head(l) + g + vcpus(
            [(path, "hog", 2), (sib, "hog", 1), ("/d1", "duty 1ms 5ms", 1), ("/", "hog", 1)]))


def duty():
    for l, per, f, b, p in itertools.product(
            (1, 2, 3), PERIODS, FRACS, (1, 3, 8), (7, 10, 30)):
        if b >= p:
            continue
        yield (f"l{l} {per}x{f} d{b}/{p}", head(l) + [
            f"group /a max {quota(f, per)}us {per}us", "group /b weight 50"] + vcpus(
                [("/a", f"duty {b}ms {p}ms", 2), ("/a", "hog", 1), ("/b", "hog", 1),
                 ("/", f"duty {b}ms {p}ms phase 1ms", 1)]))


def events():
    for l, per, f, ev in itertools.product(
            (1, 2, 3), PERIODS, FRACS, ("move-in", "move-out", "weight", "max", "unmax", "idle")):
        q = quota(f, per)
        e = {"move-in": "at 500ms move 3 /a", "move-out": "at 500ms move 0 /b",
             "weight": "at 500ms weight /a 5000",
             "max": f"at 500ms max /a {quota(f / 2, per)}us {per}us",
             "unmax": "at 500ms max /a max", "idle": "at 500ms idle /b 1"}[ev]
        yield (f"l{l} {per}x{f} {ev}", head(l, "2s") + [
            f"group /a max {q}us {per}us", "group /b"] + vcpus(
                [("/a", "hog", 2), ("/b", "hog", 1), ("/", "hog", 1)]) + [e])


FAMILIES = dict(nested=nested, burst=burst, idle=idle, nice=nice, siblings=siblings, deep=deep,
                duty=duty, events=events)


def run(item):
    fam, n, name, lines, out = item
    path = os.path.join(out, f"{fam}-{n}.sim")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    p = subprocess.run([VSCHED, "sim", "-q", path], capture_output=True, text=True)
    try:
        e = float(p.stdout.split()[0])
    except (IndexError, ValueError):
        e = -1.0
        sys.stderr.write(f"{path}: {p.stderr.strip()}\n")
    if 0 <= e < 0.1:
        os.unlink(path)
    return e, fam, n, name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--family", action="append")
    ap.add_argument("--out", default="/tmp/sim-grid")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    items = [(fam, n, name, lines, a.out) for fam in (a.family or FAMILIES)
             for n, (name, lines) in enumerate(FAMILIES[fam]())]
    with ThreadPoolExecutor(a.jobs) as ex:
        res = list(ex.map(run, items))
    for e, fam, n, name in sorted(res):
        print(f"{e:.4f} {fam}-{n} {name}")


if __name__ == "__main__":
    main()
