#!/usr/bin/env python3
"""Wake-up latencies of cyclictest and vmbench read as the same figures,
for bench/sched-vs-cyclictest.sh (tests/cli/sched.sh checks the values).

  wakeup_readout.py cyclictest FILE   its -q -h output: "p50 p99 n", us
  wakeup_readout.py vmbench FILE      a sched.wakeup document: "p50 p99 n", us
  wakeup_readout.py pooled CT VB [CT VB ...]
                                      rounds' files in pairs, pooled: each
                                      tool's wake-ups of all the undisturbed
                                      rounds in one histogram, "ct_p50 ct_p99
                                      ct_n vb_p50 vb_p99 vb_n rounds", us
  wakeup_readout.py judge FILE PCT    FILE's lines "load r50 r99 ct_n vb_n",
                                      one a round (ratios vmbench/cyclictest,
                                      wake-up counts): the median ratio per
                                      load and percentile and whether it is
                                      within PCT % of 1 (met / NOT met)

Both read a percentile alike: the first bucket with at least p% of the
wake-ups at or below it, at that bucket's midpoint (vmbench's
hist_percentile). cyclictest truncates each latency to whole microseconds
(calcdiff), so its bucket u holds [u, u+1) us and is read at u + 0.5: read
at u, it sat half a microsecond under vmbench's figure for the same
wake-ups, 1% of a SCHED_OTHER p50 (timer slack) and 3% of a SCHED_FIFO one.
Wake-ups past its histogram (-h) are only counted on its overflow line:
they count in the total, and a percentile that falls among them reads
cyclictest's maximum.

Pooled, a percentile reads the same windows' wake-ups together: on a shared
machine one round's p99 is often one stall of the host's, and a tail
estimated from all the rounds' wake-ups moves less than a median of the
rounds' ratios of two such figures.

A round whose two windows did not see the same machine is disturbed: one
tool woke up more than 5% fewer times than the other (a stall of the shared
machine took hundreds of its periods). It is listed and left out of the
medians; a verdict needs at least 5 undisturbed rounds, else it is
inconclusive. A tool that always lost wake-ups would so never be judged met.
"""
import json
import math
import statistics
import sys


def rank(p, total):
    """How many wake-ups lie at or below the p-th percentile (vmbench's rule)."""
    return max(1, math.ceil(p / 100 * total))


def cyclictest_hist(path):
    """(buckets {us: count}, overflows, maximum us) of cyclictest's -q -h output."""
    buckets, over, worst = {}, 0, 0
    for line in open(path):
        f = line.split()
        if line[:1].isdigit():
            buckets[int(f[0])] = buckets.get(int(f[0]), 0) + sum(int(c) for c in f[1:])
        elif line.startswith("# Histogram Overflows:"):
            over = sum(int(c) for c in f[3:])
        elif line.startswith("# Max Latencies:"):
            worst = max(int(c) for c in f[3:])
    return buckets, over, worst


def cyclictest(path, more=()):
    buckets, over, worst = cyclictest_hist(path)
    for other in more:
        b, o, w = cyclictest_hist(other)
        for us, c in b.items():
            buckets[us] = buckets.get(us, 0) + c
        over, worst = over + o, max(worst, w)
    buckets = sorted(buckets.items())
    total = sum(c for _, c in buckets) + over
    if total == 0:
        raise SystemExit(f"{path}: no wake-up in cyclictest's histogram")

    def pct(p):
        seen = 0
        for us, c in buckets:
            seen += c
            if seen >= rank(p, total):
                return us + 0.5
        return float(worst)  # among the overflows, past -h

    return pct(50), pct(99), total


def vmbench_hist(path):
    d = json.load(open(path))
    suite = next(s for s in d["suites"] if s["name"] == "sched")
    test = next(t for t in suite["tests"] if t["name"] == "wakeup")
    m = next(m for m in test["cases"][0]["metrics"] if m["name"] == "latency")
    return m["histogram"]


def vmbench(path):
    h = vmbench_hist(path)
    return h["percentiles"]["p50"] / 1e3, h["percentiles"]["p99"] / 1e3, h["count"]


def bucket_width(lower, sub_buckets):
    """vmbench's log-linear buckets (src/core/hist.c): 1 ns below 2 x SUB,
    then 2^(k - log2 SUB) for a lower bound in [2^k, 2^(k+1))."""
    if lower < 2 * sub_buckets:
        return 1
    return 1 << (lower.bit_length() - 1 - (sub_buckets.bit_length() - 1))


def vmbench_pooled(paths):
    """p50, p99 (us) and count of the documents' histograms merged, read
    as hist_percentile reads one: the bucket's midpoint, within min and max."""
    buckets, lo, hi, sub = {}, math.inf, 0, None
    for path in paths:
        h = vmbench_hist(path)
        sub = h["sub_buckets"]
        lo, hi = min(lo, h["min"]), max(hi, h["max"])
        for lower, c in h["buckets"]:
            buckets[lower] = buckets.get(lower, 0) + c
    total = sum(buckets.values())
    if total == 0:
        raise SystemExit(f"{paths[0]}: no wake-up in vmbench's histogram")

    def pct(p):
        seen = 0
        for lower in sorted(buckets):
            seen += buckets[lower]
            if seen >= rank(p, total):
                return min(max(lower + (bucket_width(lower, sub) - 1) / 2, lo), hi) / 1e3
        return hi / 1e3

    return pct(50), pct(99), total


def pooled(files):
    """The undisturbed rounds' files (CT VB pairs), each tool's pooled."""
    pairs = [(files[i], files[i + 1]) for i in range(0, len(files), 2)]
    kept = [(c, v) for c, v in pairs if not disturbed(cyclictest(c)[2], vmbench(v)[2])]
    if not kept:
        raise SystemExit("no undisturbed round to pool")
    ct = cyclictest(kept[0][0], [c for c, _ in kept[1:]])
    vb = vmbench_pooled([v for _, v in kept])
    return ct + vb + (len(kept),)


MIN_ROUNDS = 5
SAME_WINDOW = 0.95  # the fewer wake-ups / the more, for a round to count


def disturbed(ct_n, vb_n):
    return min(ct_n, vb_n) < SAME_WINDOW * max(ct_n, vb_n)


def judge(path, goal_pct):
    rows = [line.split() for line in open(path) if line.strip()]
    goal = goal_pct / 100
    for load in dict.fromkeys(r[0] for r in rows):
        rounds = [r for r in rows if r[0] == load]
        left = [i + 1 for i, r in enumerate(rounds) if disturbed(int(r[3]), int(r[4]))]
        kept = [r for i, r in enumerate(rounds) if i + 1 not in left]
        if left:
            print(f"{load}: round{'s' if len(left) > 1 else ''} {', '.join(map(str, left))} disturbed "
                  f"(wake-up counts more than {100 - SAME_WINDOW * 100:g}% apart): left out")
        for col, name in ((1, "p50"), (2, "p99")):
            v = [float(r[col]) for r in kept]
            if not v:
                print(f"{load}: {name} no undisturbed round; goal within {goal_pct:g}%: inconclusive")
                continue
            m = statistics.median(v)
            if len(v) < MIN_ROUNDS:
                verdict = f"inconclusive ({len(v)} undisturbed rounds, {MIN_ROUNDS} needed)"
            else:
                verdict = "met" if abs(m - 1) <= goal + 1e-9 else "NOT met"
            print(f"{load}: {name} vmbench/cyclictest median {m:.3f} of {len(v)} rounds "
                  f"(min {min(v):.3f}, max {max(v):.3f}); goal within {goal_pct:g}%: {verdict}")


def main(argv):
    if len(argv) == 3 and argv[1] in ("cyclictest", "vmbench"):
        p50, p99, n = (cyclictest if argv[1] == "cyclictest" else vmbench)(argv[2])
        print(f"{p50:.2f} {p99:.2f} {n}")
    elif len(argv) >= 4 and argv[1] == "pooled" and len(argv) % 2 == 0:
        r = pooled(argv[2:])
        print(f"{r[0]:.2f} {r[1]:.2f} {r[2]} {r[3]:.2f} {r[4]:.2f} {r[5]} {r[6]}")
    elif len(argv) == 4 and argv[1] == "judge":
        judge(argv[2], float(argv[3]))
    else:
        print("usage: wakeup_readout.py cyclictest|vmbench FILE | pooled CT VB [CT VB ...] | judge FILE PCT",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
