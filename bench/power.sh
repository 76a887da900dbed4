#!/bin/sh
# Power on this machine: how often does compare find a real, controlled
# slowdown, and how often does it call identical sides different?
#
# For each test (cpu.prime with 1 thread; disk.randread at queue depth 1 and
# 32), each load (quiet; stress-ng --cpu 1 on one CPU throughout), each
# slowdown (0: A/A; 5% and 10%: A/B) and each number of runs a side (3, 5,
# 10), PAIRS independent pairs of sides are measured, the sides alternating
# run by run and each run labelled with its round, and compared paired by
# round (`compare --pair-by round`), as `vmbench lab run --rounds` pairs its
# configurations. The B side's slowdown is real and controlled:
#   cpu.prime   a CPU quota in a cgroup (v1 cpu or v2 cpu.max) of (100 - S)%
#               of one CPU: a single thread gets (100 - S)% of the time;
#   disk.randread  an IOPS limit in a cgroup (v1 blkio.throttle or v2 io.max)
#               on the test file's disk of (100 - S)% of the IOPS the A side
#               measured in a calibration run just before.
# Both sides run in a cgroup of their own (A's without a limit), so that
# only the limit differs. The table says, per cell, the share of pairs whose
# verdict was "worse" (A/B: the power) or "better"/"worse" (A/A: the false
# positives).
#
# Usage: bench/power.sh [PAIRS] [TESTS] [RUNS] [LOADS] [SLOWDOWNS]
#   default: 4 "cpu.prime disk.randread-qd1 disk.randread-qd32" "3 5 10" "quiet loaded" "0 5 10"
# Runs as root (cgroups). A full table is about 3 tests x 2 loads x 3
# slowdowns x 18 runs x 2 sides x PAIRS runs of a few seconds each: an hour
# or more; give fewer tests, loads or pairs to try it.
set -eu
cd "$(dirname "$0")/.."
pairs=${1:-4}
tests=${2:-"cpu.prime disk.randread-qd1 disk.randread-qd32"}
runs_list=${3:-"3 5 10"}
loads=${4:-"quiet loaded"}
slowdowns=${5:-"0 5 10"}
[ "$(id -u)" = 0 ] || { echo "bench/power.sh: needs root for its cgroups" >&2; exit 2; }
scripts/deps.sh bench
[ -x build/vmbench ] || make build >/dev/null
out=$(mktemp -d)
work=$(mktemp -d "$PWD/power-XXXXXX") # the disk tests' files: on this directory's disk
db="$out/power.db"
stress=
cg_a= cg_b=

# --- cgroups: v1 controllers where mounted (this machine), else v2 ---
if [ -d /sys/fs/cgroup/cpu ] && [ -d /sys/fs/cgroup/blkio ]; then
	cgv=1
else
	cgv=2
	grep -qw cpu /sys/fs/cgroup/cgroup.controllers && grep -qw io /sys/fs/cgroup/cgroup.controllers ||
		{ echo "bench/power.sh: cgroup v2 without the cpu and io controllers" >&2; exit 1; }
	echo "+cpu +io" > /sys/fs/cgroup/cgroup.subtree_control
fi
cg_make() { # NAME: the cgroup's directories, printed space-separated
	if [ "$cgv" = 1 ]; then
		mkdir -p "/sys/fs/cgroup/cpu/$1" "/sys/fs/cgroup/blkio/$1"
		echo "/sys/fs/cgroup/cpu/$1 /sys/fs/cgroup/blkio/$1"
	else
		mkdir -p "/sys/fs/cgroup/$1"
		echo "/sys/fs/cgroup/$1"
	fi
}
cg_clear() { # DIRS: no limit
	for d in $1; do
		[ ! -e "$d/cpu.cfs_quota_us" ] || echo -1 > "$d/cpu.cfs_quota_us"
		[ ! -e "$d/cpu.max" ] || echo "max 100000" > "$d/cpu.max"
		if [ -e "$d/blkio.throttle.read_iops_device" ]; then
			echo "$dev 0" > "$d/blkio.throttle.read_iops_device" 2>/dev/null || true
		fi
		[ ! -e "$d/io.max" ] || echo "$dev riops=max" > "$d/io.max"
	done
}
cg_cpu() { # DIRS PCT: a quota of PCT% of one CPU
	for d in $1; do
		[ ! -e "$d/cpu.cfs_quota_us" ] || { echo 100000 > "$d/cpu.cfs_period_us"; echo $(( $2 * 1000 )) > "$d/cpu.cfs_quota_us"; }
		[ ! -e "$d/cpu.max" ] || echo "$(( $2 * 1000 )) 100000" > "$d/cpu.max"
	done
}
cg_iops() { # DIRS IOPS: a read IOPS limit on the test file's disk
	for d in $1; do
		[ ! -e "$d/blkio.throttle.read_iops_device" ] || echo "$dev $2" > "$d/blkio.throttle.read_iops_device"
		[ ! -e "$d/io.max" ] || echo "$dev riops=$2" > "$d/io.max"
	done
}
cg_run() { # DIRS CMD...: CMD in the cgroup
	dirs=$1
	shift
	sh -c 'for d in $1; do echo $$ > "$d/cgroup.procs"; done; shift; exec "$@"' sh "$dirs" "$@"
}
cleanup() {
	[ -z "$stress" ] || kill "$stress" 2>/dev/null || true
	for d in $cg_a $cg_b; do rmdir "$d" 2>/dev/null || true; done
	rm -rf "$out" "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the disk under the test files: the whole disk's MAJ:MIN (limits are per disk)
src=$(df --output=source "$work" | tail -1)
disk=$(lsblk -no pkname "$src" 2>/dev/null | head -1)
dev=$(lsblk -dno MAJ:MIN "/dev/${disk:-${src#/dev/}}" 2>/dev/null | tr -d ' ')
cg_a=$(cg_make vmbench-power-a)
cg_b=$(cg_make vmbench-power-b)

sel() { # TEST: the vmbench run arguments
	case $1 in
	cpu.prime) echo "cpu.prime --threads 1" ;;
	disk.randread-qd1) echo "disk.randread --disk.iodepth 1 --disk.dir $work" ;;
	disk.randread-qd32) echo "disk.randread --disk.iodepth 32 --disk.dir $work" ;;
	*) echo "bench/power.sh: unknown test $1" >&2; exit 2 ;;
	esac
}
metric() { case $1 in cpu.*) echo events_per_s ;; *) echo iops ;; esac; }
one() { # DIRS TEST LABELS...
	dirs=$1 t=$2
	shift 2
	# shellcheck disable=SC2046
	cg_run "$dirs" build/vmbench run $(sel "$t") --quick --db "$db" -q "$@"
}

echo "power: $pairs pairs a cell; tests: $tests; runs: $runs_list; loads: $loads; slowdowns: $slowdowns %"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg), cgroup v$cgv, disk $dev"
: > "$out/cells"
for load in $loads; do
	if [ "$load" = loaded ]; then
		stress-ng --cpu 1 --timeout 86400 --quiet &
		stress=$!
	fi
	for t in $tests; do
		[ -n "$dev" ] || case $t in disk.*) echo "no disk found under $work: $t left out" >&2; continue ;; esac
		for s in $slowdowns; do
			for k in $runs_list; do
				for p in $(seq "$pairs"); do
					set_id="$load-$t-$s-$k-$p"
					cg_clear "$cg_a"
					cg_clear "$cg_b"
					case $t in
					cpu.*) [ "$s" = 0 ] || cg_cpu "$cg_b" $(( 100 - s )) ;;
					disk.*)
						if [ "$s" != 0 ]; then
							# the A side's IOPS now, and B limited below it
							one "$cg_a" "$t" --label cal="$set_id" >/dev/null
							iops=$(build/vmbench results --label cal="$set_id" --format json --db "$db" |
								python3 -c 'import json,subprocess,sys
r = json.load(sys.stdin)[-1]
d = json.loads(subprocess.run([sys.argv[1], "show", str(r["id"]), "--json", "--db", sys.argv[2]],
                              capture_output=True, text=True, check=True).stdout)
c = d["suites"][0]["tests"][0]["cases"][0]
print(int(next(m for m in c["metrics"] if m["name"] == "iops")["summary"]["median"]))' build/vmbench "$db")
							cg_iops "$cg_b" $(( iops * (100 - s) / 100 ))
						fi ;;
					esac
					for r in $(seq "$k"); do
						one "$cg_a" "$t" --label set="$set_id" --label side=a --label round="$r"
						one "$cg_b" "$t" --label set="$set_id" --label side=b --label round="$r"
					done
					v=$(build/vmbench compare "set=$set_id,side=a" "set=$set_id,side=b" --pair-by round \
						--metric "$(metric "$t")" --db "$db" --no-calibration --format csv |
						python3 -c 'import csv,sys
v = [r for r in csv.DictReader(sys.stdin) if r["baseline"] == "false"]
# a pair not compared round by round measures the wrong test: stop
if len(v) != 1 or not v[0]["verdict_test"].startswith("paired-t"):
    sys.exit("bench/power.sh: not a paired verdict: %r" % v)
print(v[0]["verdict"])')
					echo "$load $t $s $k $p $v" >> "$out/cells"
					echo "  $load $t slowdown $s% runs $k pair $p: $v (load average $(cut -d' ' -f1 /proc/loadavg))"
				done
			done
		done
	done
	if [ -n "$stress" ]; then
		kill "$stress"
		wait "$stress" 2>/dev/null || true
		stress=
	fi
done
python3 - "$out/cells" <<'PY'
import collections, sys
cells = collections.defaultdict(list)
for line in open(sys.argv[1]):
    load, t, s, k, p, v = line.split()
    cells[(t, load, int(s), int(k))].append(v)
print()
print("| test | load | slowdown | runs a side | pairs | found worse | called different (A/A) |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for (t, load, s, k), v in sorted(cells.items()):
    worse = sum(x == "worse" for x in v)
    diff = sum(x in ("worse", "better") for x in v)
    if s:
        print(f"| {t} | {load} | {s}% | {k} | {len(v)} | {worse} of {len(v)} ({100 * worse / len(v):.0f}%) | |")
    else:
        print(f"| {t} | {load} | A/A | {k} | {len(v)} | | {diff} of {len(v)} ({100 * diff / len(v):.0f}%) |")
PY
