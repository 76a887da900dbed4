#!/bin/sh
# How compare and report scale with the size of a result: two documents of N
# cases each (one metric with samples per case, one with a histogram every
# 50th case), generated from a real run's document, then the wall time of
# `compare` (text and JSON) and `report` on them. Both must stay linear or
# n log n; the numbers are for reading, no test asserts them.
# Usage: bench/report-scale.sh [N ...]   (default: 1000 10000 30000)
#
# The largest document checked: 30,000 cases per document (two of them,
# 17.9 MB each). On the 2-core development machine (debugoptimized build)
# while six other jobs ran on it (load average 10):
#   before: compare of 30,000 cases 68 s; report of 10,000 cases over 120 s
#           (report of 3,000 cases 13.9 s: quadratic)
#   after:  10,000 cases: compare 2.8 s, report 3.8 s
#           30,000 cases: compare 7.0 s wall (2.0 s CPU), report 7.1-10 s wall
#           (2.4 s CPU); most of compare's CPU is the Welch test's
#           incomplete beta function, once per pair of cells
set -eu
cd "$(dirname "$0")/.."
[ -x build/vmbench ] || make build >/dev/null
T=$(mktemp -d /tmp/vmbench-scale-XXXXXX)
trap 'rm -rf "$T"' EXIT
export VMBENCH_DB="$T/results.db"
build/vmbench run cpu.prime --time 0.02 --warmup 0 --repeat 3 --cpu.max-prime 500 --threads 1 \
	--json "$T/template.json" --no-store -q
[ $# -gt 0 ] || set -- 1000 10000 30000
for n in "$@"; do
	python3 - "$T/template.json" "$n" "$T/a-$n.json" "$T/b-$n.json" <<'PY'
import copy, json, sys
tpl, n, out_a, out_b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
doc = json.load(open(tpl))
case0 = doc["suites"][0]["tests"][0]["cases"][0]
rate = next(m for m in case0["metrics"] if m["name"] == "events_per_s")
lat = next(m for m in case0["metrics"] if m.get("histogram"))
for out, scale in ((out_a, 1.0), (out_b, 0.9)):
    cases = []
    for i in range(n):
        c = copy.deepcopy({k: v for k, v in case0.items() if k != "metrics"})
        c["params"] = {"threads": 1 + i % 8, "block": i, "max-prime": 500}
        r = copy.deepcopy(rate)
        r["samples"] = [s * scale * (1 + (i % 7) / 100) for s in (1000.0, 1010.0, 990.0)]
        metrics = [r]
        if i % 50 == 0:
            metrics.append(copy.deepcopy(lat))
        c["metrics"] = metrics
        cases.append(c)
    d = copy.deepcopy(doc)
    d["id"] = "scale-%d-%g" % (n, scale)
    d["suites"] = [d["suites"][0]]
    d["suites"][0]["tests"] = [d["suites"][0]["tests"][0]]
    d["suites"][0]["tests"][0]["cases"] = cases
    json.dump(d, open(out, "w"))
PY
	python3 - "$n" "$T" <<'PY'
import subprocess, sys, time
n, t = sys.argv[1], sys.argv[2]
a, b = f"{t}/a-{n}.json", f"{t}/b-{n}.json"
for what, cmd in (("compare text", ["compare", a, b, "--all"]),
                  ("compare json", ["compare", a, b, "--all", "--format", "json"]),
                  ("report", ["report", a, b, "-o", f"{t}/r-{n}.html"])):
    t0 = time.perf_counter()
    subprocess.run(["build/vmbench"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    print(f"{int(n):>7} cases  {what:<13} {time.perf_counter() - t0:8.2f} s", flush=True)
PY
done
