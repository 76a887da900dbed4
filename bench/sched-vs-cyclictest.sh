#!/bin/sh
# vmbench sched.wakeup side by side with cyclictest (rt-tests), like for
# like: one measuring thread on CPU 0 (cyclictest's main thread, which wakes
# every 10 ms, on the other CPUs, as vmbench's waits in a join), the same
# interval, policy and priority, CLOCK_MONOTONIC and absolute sleeps (both
# tools' defaults), memory locked, /dev/cpu_dma_latency at 0 (both), one
# window of SECONDS each; idle and under a CPU hog on CPU 0 (stress-ng --cpu
# 1, the same for both); the order alternates round by round. Then
# sched.ctxswitch beside stress-ng --switch (pipe method).
# Prints each round's p50 and p99 (us) and wake-up counts, the ratios
# vmbench/cyclictest, per load the median ratio over the rounds, and each
# tool's percentiles over all the undisturbed rounds' wake-ups pooled (a
# round's p99 is often one stall of a shared host). Goal:
# p50 and p99 each within 5% of cyclictest's (met / NOT met), judged on the
# median of at least 5 rounds; a round in which one tool woke up more than
# 5% fewer times than the other (the shared machine stalled one window) is
# shown and left out. Both percentiles are read alike, at the
# midpoint of the bucket that holds them (bench/wakeup_readout.py):
# cyclictest truncates to whole us, vmbench's buckets are 0.8% wide.
# Usage: bench/sched-vs-cyclictest.sh [ROUNDS] [SECONDS] [POLICY] [PRIORITY] [PARTS]
#   ROUNDS 6, SECONDS 5 (whole seconds, cyclictest -D), POLICY other|fifo|rr,
#   PRIORITY 0 (1-99 with fifo and rr), PARTS any of idle,hog,switch (all)
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-6} secs=${2:-5} policy=${3:-other} prio=${4:-0} parts=${5:-idle,hog,switch}
interval=1000 goal=5
case $rounds in '' | *[!0-9]*) echo "usage: $0 [ROUNDS] [SECONDS] [POLICY] [PRIORITY] [PARTS]: ROUNDS is a whole number" >&2; exit 2 ;; esac
case $secs in '' | *[!0-9]*) echo "usage: $0 [ROUNDS] [SECONDS] [POLICY] [PRIORITY] [PARTS]: SECONDS is a whole number (cyclictest -D)" >&2; exit 2 ;; esac
has_part() { case ",$parts," in *",$1,"*) return 0 ;; esac; return 1; }
for t in cyclictest stress-ng python3; do
	command -v "$t" >/dev/null || { scripts/deps.sh bench; break; }
done
[ -x build/vmbench ] || make build >/dev/null
[ "$rounds" -ge 5 ] || echo "note: $rounds rounds; the goal is judged on the median of at least 5"
out=$(mktemp -d)
hog=
trap '[ -z "$hog" ] || kill "$hog" 2>/dev/null; rm -rf "$out"' EXIT

ct_args="-m -t 1 -a 0 -i $interval -D $secs -q -h 20000"
ncpu=$(nproc)
[ "$ncpu" -lt 2 ] || ct_args="$ct_args --mainaffinity=1-$((ncpu - 1))"
vb_args="--cpus 0 --sched.interval $interval --sched.policy $policy --sched.priority $prio"
vb_args="$vb_args --time $secs --repeat 1 --warmup 0 --no-store -q --json -"
if [ "$policy" != other ]; then
	ct_args="$ct_args -p $prio --policy=$policy"
fi

readout() { python3 bench/wakeup_readout.py "$@"; }
row() { printf '%-6s %9s %9s %7s %9s %9s %7s %8s %8s\n' "$@"; }
one_pair() { # one_pair LABEL ROUND
	if [ $(($2 % 2)) -eq 1 ]; then
		cyclictest $ct_args > "$out/ct"
		build/vmbench run sched.wakeup $vb_args > "$out/vb"
	else
		build/vmbench run sched.wakeup $vb_args > "$out/vb"
		cyclictest $ct_args > "$out/ct"
	fi
	set -- "$1" $(readout cyclictest "$out/ct") $(readout vmbench "$out/vb")
	r50=$(python3 -c "print(f'{$5 / $2:.3f}')")
	r99=$(python3 -c "print(f'{$6 / $3:.3f}')")
	row "$@" "$r50" "$r99"
	echo "$1 $r50 $r99 $4 $7" >> "$out/ratios"
	echo "$out/ct.$1.$2 $out/vb.$1.$2" >> "$out/pairs.$1"
	mv "$out/ct" "$out/ct.$1.$2"
	mv "$out/vb" "$out/vb.$1.$2"
}

if has_part idle || has_part hog; then
	echo "sched.wakeup vs cyclictest: CPU 0, interval $interval us, policy $policy, priority $prio, $secs s, $rounds rounds"
	echo "cyclictest $ct_args"
	echo "vmbench run sched.wakeup $vb_args"
	row load ct_p50 ct_p99 ct_n vb_p50 vb_p99 vb_n r_p50 r_p99
	for r in $(seq "$rounds"); do
		! has_part idle || one_pair idle "$r"
		has_part hog || continue
		stress-ng --cpu 1 --taskset 0 -t $((secs * 4 + 10)) -q &
		hog=$!
		# measure once its worker spins, not while it starts
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			! pgrep -P "$hog" >/dev/null || break
			sleep 0.2
		done
		one_pair hog "$r"
		kill "$hog"
		wait "$hog" 2>/dev/null || true
		hog=
	done
	readout judge "$out/ratios" "$goal"
	for load in idle hog; do
		[ -s "$out/pairs.$load" ] || continue
		# shellcheck disable=SC2046 # the pairs' paths, one word each
		p=$(readout pooled $(cat "$out/pairs.$load")) || continue
		set -- $p
		python3 -c "print(f'$load: pooled over its $7 undisturbed rounds: p50 {$4:.2f} vs {$1:.2f} us, ratio {$4 / $1:.3f}; p99 {$5:.2f} vs {$2:.2f} us, ratio {$5 / $2:.3f} (vmbench vs cyclictest)')"
	done
fi
has_part switch || exit 0

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
	echo "$ratio" >> "$out/switch"
done
python3 -c '
import statistics, sys
a = [float(l) for l in open(sys.argv[1])]
print(f"switch: median ratio vmbench/stress-ng {statistics.median(a):.3f} of {len(a)} rounds")' "$out/switch"
