#!/usr/bin/env python3
"""Assert the values of a vmbench result document (CLI tests).

usage: check_result.py FILE [--suite S] [--min-cases N] [--labels k=v,...] [--means]
       [--allow-skipped]
Checks: schema fields, every ok test has cases, every metric has positive
samples and a summary consistent with them (mean within [min, max], CI
around the mean), latency percentiles are monotonic and within [min, max],
and parallel efficiency exists for threads > 1. --means: ns metrics are
costs per operation (the vmexit suite), not latencies with a histogram.
--allow-skipped: a test skipped with a reason (not applicable here) passes.
"""
import json
import math
import sys


def fail(msg):
    print(f"check_result: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    args = sys.argv[1:]
    path = args.pop(0)
    want_suite, labels, means, allow_skipped = None, {}, False, False
    while args:
        a = args.pop(0)
        if a == "--suite":
            want_suite = args.pop(0)
        elif a == "--labels":
            labels = dict(kv.split("=", 1) for kv in args.pop(0).split(","))
        elif a == "--means":
            means = True
        elif a == "--allow-skipped":
            allow_skipped = True
    with open(path) as f:
        doc = json.load(f)
    if doc.get("schema") != "vmbench-result" or doc.get("schema_version") not in (1, 2, 3):
        fail("schema")
    for k in ("id", "started", "ended", "tool", "fingerprint", "settings", "command_line"):
        if k not in doc:
            fail(f"missing {k}")
    if not isinstance(doc["fingerprint"]["hypervisor"]["name"], str):
        fail("fingerprint.hypervisor.name")
    for k, v in labels.items():
        if doc["labels"].get(k) != v:
            fail(f"label {k}={doc['labels'].get(k)!r}, expected {v!r}")
    suites = {s["name"]: s for s in doc["suites"]}
    if want_suite and want_suite not in suites:
        fail(f"suite {want_suite} missing")
    ncases = 0
    for s in doc["suites"]:
        if s["status"] != "ok":
            fail(f"suite {s['name']} status {s['status']}: {s.get('reason')}")
        for t in s["tests"]:
            if allow_skipped and t["status"] == "skipped" and t.get("reason") and not t["cases"]:
                continue
            if t["status"] != "ok" or not t["cases"]:
                fail(f"{s['name']}.{t['name']} status {t['status']} with {len(t['cases'])} cases")
            for c in t["cases"]:
                ncases += 1
                # series over time: each of a repetition the case has, times increasing
                for se in c.get("series", []):
                    ts = [p[0] for p in se["points"]]
                    if not 1 <= se["rep"] <= c["repetitions"] or not ts or ts != sorted(set(ts)) or ts[0] < 0:
                        fail(f"{s['name']}.{t['name']} series {se['name']} of repetition {se['rep']}: {ts[:5]}")
                where = f"{s['name']}.{t['name']} {c['params']}"
                names = [m["name"] for m in c["metrics"]]
                # the runner's --threads (not a suite's own option of that name, as net's)
                if (c["params"].get("threads", 1) > 1 and "threads" not in s.get("options", {})
                        and "parallel_efficiency" not in names):
                    fail(f"{where}: no parallel_efficiency")
                if c["repetitions"] < 2:
                    fail(f"{where}: {c['repetitions']} repetitions")
                heads = [m for m in c["metrics"] if m["headline"]]
                if not heads:
                    fail(f"{where}: no headline metric")
                for m in c["metrics"]:
                    sm, smp = m["summary"], m["samples"]
                    # a CPU share or a count (of errors, of retransmits) can truly be 0,
                    # and so can a spread: a repetition of one operation (cpu.zlib's
                    # 1 MiB at --quick on a busy machine) has a latency.stddev of 0;
                    # every other value must be positive
                    low_ok = 0 if m["unit"] in ("%", "") or m["name"].endswith("stddev") else 1e-300
                    if not smp or any((x is None or x < low_ok) for x in smp):
                        fail(f"{where} {m['name']}: samples {smp}")
                    if sm["n"] != len(smp):
                        fail(f"{where} {m['name']}: n {sm['n']} != {len(smp)} samples")
                    if not (sm["min"] <= sm["mean"] <= sm["max"]):
                        fail(f"{where} {m['name']}: mean outside [min, max]")
                    if abs(sm["mean"] - sum(smp) / len(smp)) > 1e-9 * abs(sm["mean"]):
                        fail(f"{where} {m['name']}: mean is not the mean of the samples")
                    if not (sm["ci95_low"] <= sm["mean"] <= sm["ci95_high"]):
                        fail(f"{where} {m['name']}: CI does not contain the mean")
                    h = m.get("histogram")
                    # a time that is not a latency (UDP jitter), or one percentile or spread
                    # per repetition (latency.p99, latency.stddev, net.http's p99_latency), has no histogram
                    pct = m["name"].rsplit(".", 1)[-1] in ("p50", "p90", "p95", "p99", "p99.9", "stddev") or \
                        m["name"].endswith(".p99.9")
                    if m["unit"] == "ns" and not h and not means and not pct and m["name"] != "jitter" \
                            and not m["name"].startswith("p99"):
                        fail(f"{where} {m['name']}: latency without histogram")
                    if h:
                        p = h["percentiles"]
                        seq = [h["min"], p["p50"], p["p90"], p["p99"], p["p99.9"], p["p99.99"], h["max"]]
                        if any(b < a for a, b in zip(seq, seq[1:])) or h["count"] <= 0:
                            fail(f"{where} {m['name']}: percentiles not monotonic {seq}")
                        if sum(cnt for _, cnt in h["buckets"]) != h["count"]:
                            fail(f"{where} {m['name']}: bucket counts do not add up")
    if ncases == 0:
        fail("no cases")
    print(f"check_result: {ncases} cases ok")


main()
