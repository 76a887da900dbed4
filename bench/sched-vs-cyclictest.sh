#!/bin/sh
# vmbench sched.wakeup side by side with cyclictest (rt-tests): one thread
# on CPU 0, the same interval, policy and priority, memory locked, idle and
# under a CPU hog on that CPU (stress-ng --cpu 1, the same for both), run
# alternately; then sched.ctxswitch beside stress-ng --switch (pipe method).
# Prints each round's p50 and p99 and the ratios vmbench/cyclictest, and
# their medians. Goal: p50 within 10%, p99 within 25%.
# cyclictest's histogram has 1 us buckets (latencies truncated to whole us);
# vmbench's percentiles are within 0.8% of the value.
# Usage: bench/sched-vs-cyclictest.sh [ROUNDS] [SECONDS] [POLICY] [PRIORITY]
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-3} secs=${2:-5} policy=${3:-other} prio=${4:-0}
interval=1000
scripts/deps.sh bench
[ -x build/vmbench ] || make build >/dev/null
out=$(mktemp -d)
hog=
trap '[ -z "$hog" ] || kill "$hog" 2>/dev/null; rm -rf "$out"' EXIT

ct_args="-m -t 1 -a 0 -i $interval -D $secs -q -h 20000"
vb_args="--cpus 0 --sched.interval $interval --sched.policy $policy --sched.priority $prio"
if [ "$policy" != other ]; then
	ct_args="$ct_args -p $prio --policy=$policy"
fi

cyclictest_pct() { # cyclictest_pct FILE: "p50 p99" in us from its histogram
	python3 - "$1" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l[:1].isdigit()]
h = [(int(a), int(b)) for a, b in rows]
total = sum(c for _, c in h)
def pct(p):
    cum = 0
    for us, c in h:
        cum += c
        if cum >= p / 100 * total:
            return us
print(pct(50), pct(99))
PY
}
vmbench_pct() { # vmbench_pct FILE: "p50 p99" in us from the merged histogram
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = next(m for m in d["suites"][0]["tests"][0]["cases"][0]["metrics"] if m["name"] == "latency")
p = m["histogram"]["percentiles"]
print(f'{p["p50"] / 1e3:.1f} {p["p99"] / 1e3:.1f}')
PY
}
one_pair() { # one_pair LABEL ROUND
	half=$(python3 -c "print($secs / 2)")
	if [ $(($2 % 2)) -eq 1 ]; then
		cyclictest $ct_args > "$out/ct"
		build/vmbench run sched.wakeup $vb_args --time "$half" --repeat 2 --warmup 0 --no-store -q --json - > "$out/vb"
	else
		build/vmbench run sched.wakeup $vb_args --time "$half" --repeat 2 --warmup 0 --no-store -q --json - > "$out/vb"
		cyclictest $ct_args > "$out/ct"
	fi
	set -- "$1" $(cyclictest_pct "$out/ct") $(vmbench_pct "$out/vb")
	r50=$(python3 -c "print(f'{$4 / max($2, 1):.3f}')")
	r99=$(python3 -c "print(f'{$5 / max($3, 1):.3f}')")
	printf '%-6s %9s %9s %9s %9s %8s %8s\n' "$1" "$2" "$3" "$4" "$5" "$r50" "$r99"
	echo "$1 $r50 $r99" >> "$out/ratios"
}

echo "sched.wakeup vs cyclictest: CPU 0, interval $interval us, policy $policy, priority $prio, $secs s, $rounds rounds"
printf '%-6s %9s %9s %9s %9s %8s %8s\n' load ct_p50 ct_p99 vb_p50 vb_p99 r_p50 r_p99
for r in $(seq "$rounds"); do
	one_pair idle "$r"
	stress-ng --cpu 1 --taskset 0 -t $((secs * 4 + 10)) -q &
	hog=$!
	one_pair hog "$r"
	kill "$hog"
	wait "$hog" 2>/dev/null || true
	hog=
done

echo
echo "sched.ctxswitch vs stress-ng --switch 1 (pipe method), both on CPU 0, $secs s, $rounds rounds"
printf '%-6s %12s %12s %12s %8s\n' round sng_ns vb_ns vb_net_ns ratio
for r in $(seq "$rounds"); do
	sng=$(stress-ng --switch 1 --taskset 0 -t "$secs" --metrics 2>&1 |
		sed -n 's/.*switch *\([0-9.]*\) nanosecs per context switch.*/\1/p')
	build/vmbench run sched.ctxswitch --cpus 0 --time "$secs" --repeat 2 --warmup 0 --no-store -q --json - > "$out/cx"
	set -- $(python3 - "$out/cx" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = {x["name"]: x["summary"]["median"] for x in d["suites"][0]["tests"][0]["cases"][0]["metrics"]}
print(f'{m["pipe_1cpu_ns"]:.0f} {m["pipe_1cpu_net_ns"]:.0f}')
PY
)
	ratio=$(python3 -c "print(f'{$1 / $sng:.3f}')")
	printf '%-6s %12s %12s %12s %8s\n' "$r" "$sng" "$1" "$2" "$ratio"
	echo "switch $ratio $ratio" >> "$out/ratios"
done
python3 - "$out/ratios" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for kind in ("idle", "hog", "switch"):
    a = [float(r[1]) for r in rows if r[0] == kind]
    b = [float(r[2]) for r in rows if r[0] == kind]
    if kind == "switch":
        print(f"switch: median ratio vmbench/stress-ng {statistics.median(a):.3f}")
    else:
        print(f"{kind}: median ratio vmbench/cyclictest p50 {statistics.median(a):.3f}, p99 {statistics.median(b):.3f}")
PY
