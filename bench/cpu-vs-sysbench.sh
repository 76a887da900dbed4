#!/bin/sh
# vmbench cpu.prime side by side with sysbench cpu: same max-prime, threads
# and duration, run alternately, and the ratio of events/s per round and its
# median. Goal: 0.9 to 1.1 (the same event, the same rate).
# Usage: bench/cpu-vs-sysbench.sh [ROUNDS] [SECONDS] [THREADS] [MAX_PRIME]
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-5} secs=${2:-5} threads=${3:-1} prime=${4:-20000}
scripts/deps.sh bench
[ -x build/vmbench ] || make build >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "cpu.prime vs sysbench cpu: --cpu-max-prime=$prime, $threads thread(s), $secs s, $rounds rounds"
printf '%-6s %14s %14s %8s\n' round sysbench vmbench ratio
for r in $(seq "$rounds"); do
	sb=$(sysbench cpu --cpu-max-prime="$prime" --threads="$threads" --time="$secs" run |
		sed -n 's/.*events per second: *//p')
	build/vmbench run cpu.prime --cpu.max-prime "$prime" --threads "$threads" --time "$secs" \
		--repeat 2 --warmup 0 --no-store -q --json - > "$out/v.json"
	vb=$(python3 - "$out/v.json" "$threads" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["suites"][0]["tests"][0]["cases"]:
    if c["params"]["threads"] == int(sys.argv[2]):
        print(next(m["summary"]["mean"] for m in c["metrics"] if m["name"] == "events_per_s"))
PY
)
	ratio=$(python3 -c "print(f'{$vb / $sb:.3f}')")
	printf '%-6s %14.1f %14.1f %8s\n' "$r" "$sb" "$vb" "$ratio"
	echo "$ratio" >> "$out/ratios"
done
python3 - "$out/ratios" <<'PY'
import statistics, sys
r = [float(x) for x in open(sys.argv[1])]
print(f"median ratio vmbench/sysbench: {statistics.median(r):.3f} (min {min(r):.3f}, max {max(r):.3f})")
PY
