#!/bin/sh
# How long `vmbench info` takes (goal: under 50 ms): wall time of N runs,
# median and 90th percentile. Usage: bench/info-time.sh [N]
set -eu
cd "$(dirname "$0")/.."
n=${1:-50}
[ -x build/vmbench ] || make build >/dev/null
python3 - "$n" <<'PY'
import statistics, subprocess, sys, time
n = int(sys.argv[1])
t = []
for _ in range(n):
    t0 = time.perf_counter()
    subprocess.run(["build/vmbench", "info", "--json"], stdout=subprocess.DEVNULL, check=True)
    t.append((time.perf_counter() - t0) * 1000)
t.sort()
print(f"vmbench info: {n} runs, median {statistics.median(t):.1f} ms, "
      f"p90 {t[int(0.9 * (n - 1))]:.1f} ms, max {t[-1]:.1f} ms (goal: under 50 ms)")
PY
