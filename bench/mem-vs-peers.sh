#!/bin/sh
# The memory suite side by side with its peers, alternately, in one run:
#   mem.sysbench_memory against `sysbench memory` (1K and 1M blocks, read and
#   write, one thread; MiB/s both; goal: ratio in [0.95, 1.10]);
#   mem.bandwidth's STREAM copy against mbw's memcpy (-t0) on arrays of the
#   same size (goal: ratio at least 0.95). mbw counts the bytes copied,
#   STREAM the bytes read and written (twice as many): vmbench's copy figure
#   is halved and put in MiB/s for the ratio; both are the best of their runs;
#   the DRAM plateau of mem.latency against itself with another chain seed
#   (goal: within 5%);
#   and, with --o3, the same STREAM and latency figures from an -O3 build
#   (the compiler must not delete or reorder away the measured work).
# The ratio per round and its median are printed; on a shared machine the
# median is the figure to quote.
# Usage: bench/mem-vs-peers.sh [ROUNDS] [SECONDS] [--o3]
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-3} secs=${2:-1} o3=${3:-}
scripts/deps.sh bench
[ -x build/vmbench ] || make build >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
VMB=build/vmbench

# the last-level cache, as the suite finds it: STREAM's arrays are 4x it
llc_k=$(for d in /sys/devices/system/cpu/cpu0/cache/index*; do
	[ "$(cat "$d/type")" = Instruction ] || echo "$(cat "$d/level") $(cat "$d/size")"; done |
	sort -n | tail -1 | sed 's/.* \([0-9]*\)K/\1/')
array_m=$((llc_k * 4 / 1024))
[ "$array_m" -ge 64 ] || array_m=64
dram_k=$((array_m * 2 * 1024))

# value FILE TEST METRIC: the mean of a metric in a vmbench result document
value() {
	python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = next(t for t in d["suites"][0]["tests"] if t["name"] == sys.argv[2])
print(next(m["summary"]["mean"] for m in t["cases"][0]["metrics"] if m["name"] == sys.argv[3]))
PY
}

ratio() { python3 -c "print(f'{$1 / $2:.3f}')"; }

echo "memory vs peers: $rounds rounds, $secs s per figure, STREAM/mbw arrays of $array_m MiB, DRAM latency at $dram_k KiB"
printf '%-6s %-26s %14s %14s %8s\n' round what peer vmbench ratio
for r in $(seq "$rounds"); do
	for blk in 1K 1M; do
		for op in read write; do
			sb=$(sysbench memory --memory-block-size=$blk --memory-oper=$op --memory-total-size=100G \
				--threads=1 --time="$secs" run | sed -n 's/.*transferred (\([0-9.]*\) MiB\/sec).*/\1/p')
			$VMB run mem.sysbench_memory --mem.block-size $blk --mem.oper $op --mem.total-size 100g \
				--threads 1 --time "$secs" --warmup 0 --repeat 2 --no-store -q --json "$out/sb-$r-$blk-$op.json"
			vb=$(value "$out/sb-$r-$blk-$op.json" sysbench_memory mib_per_s)
			ra=$(ratio "$vb" "$sb")
			printf '%-6s %-26s %14.1f %14.1f %8s\n' "$r" "sysbench $blk $op MiB/s" "$sb" "$vb" "$ra"
			echo "sysbench-$blk-$op $ra" >> "$out/ratios"
		done
	done
	# mbw: the best of 10 memcpy runs (its first pays the page faults)
	mb=$(mbw -q -n 10 -t0 "$array_m" | awk '$1 ~ /^[0-9]+$/ { v = $9; if (v > best) best = v } END { print best }')
	$VMB run mem.bandwidth --mem.array-size "${array_m}m" --threads 1 --warmup 0 --repeat 2 --no-store -q \
		--json "$out/bw-$r.json"
	vb=$(value "$out/bw-$r.json" bandwidth copy_mb_per_s)
	vb=$(python3 -c "print($vb / 2 * 1e6 / 1048576)")
	ra=$(ratio "$vb" "$mb")
	printf '%-6s %-26s %14.1f %14.1f %8s\n' "$r" "mbw memcpy MiB/s copied" "$mb" "$vb" "$ra"
	echo "mbw-copy $ra" >> "$out/ratios"
	# the DRAM plateau, two chain seeds, the first to run alternating by round
	order="1 2"
	[ $((r % 2)) -eq 0 ] && order="2 1"
	for seed in $order; do
		$VMB run mem.latency --mem.sizes "$dram_k" --mem.seed $seed --time "$secs" --warmup 0 --repeat 2 \
			--no-store -q --json "$out/lat-$r-$seed.json"
	done
	l1=$(value "$out/lat-$r-1.json" latency ns_per_load)
	l2=$(value "$out/lat-$r-2.json" latency ns_per_load)
	ra=$(ratio "$l2" "$l1")
	printf '%-6s %-26s %14.1f %14.1f %8s\n' "$r" "latency ns, seed 1 vs 2" "$l1" "$l2" "$ra"
	echo "latency-seed $ra" >> "$out/ratios"
done

if [ "$o3" = --o3 ]; then
	[ -x build-o3/vmbench ] || { meson setup build-o3 -Doptimization=3 >/dev/null && ninja -C build-o3 -j2 >/dev/null; }
	for r in $(seq "$rounds"); do
		for b in build build-o3; do
			$b/vmbench run mem.bandwidth mem.latency --mem.array-size "${array_m}m" --mem.sizes "$dram_k" \
				--threads 1 --time "$secs" --warmup 0 --repeat 2 --no-store -q --json "$out/$b-$r.json"
		done
		for m in "bandwidth triad_mb_per_s" "latency ns_per_load"; do
			set -- $m
			a=$(value "$out/build-$r.json" "$1" "$2")
			b=$(value "$out/build-o3-$r.json" "$1" "$2")
			ra=$(ratio "$b" "$a")
			printf '%-6s %-26s %14.1f %14.1f %8s\n' "$r" "-O2 vs -O3 $1" "$a" "$b" "$ra"
			echo "O3-$1 $ra" >> "$out/ratios"
		done
	done
fi

python3 - "$out/ratios" <<'PY'
import statistics, sys
goals = {"sysbench": (0.95, 1.10), "mbw": (0.95, None), "latency": (0.95, 1.05), "O3": (0.9, 1.1)}
by = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    by.setdefault(k, []).append(float(v))
print("median ratios (vmbench / peer; latency seed 2 / seed 1; -O3 / -O2):")
for k, v in by.items():
    lo, hi = goals[k.split("-")[0]]
    m = statistics.median(v)
    ok = m >= lo and (hi is None or m <= hi)
    print(f"  {k:24s} {m:.3f}  (min {min(v):.3f}, max {max(v):.3f}; goal >= {lo}{'' if hi is None else f' and <= {hi}'}: {'met' if ok else 'NOT met'})")
PY
