#!/bin/sh
# A/A and A/B on this machine: does compare keep its promise?
# A/A: PAIRS pairs of identical sides of RUNS runs each (`vmbench run
#      SELECTION --quick`, the two sides alternating run by run), compared;
#      the fraction of headline comparisons called significant
#      (better or worse) is the false-positive rate. Goal: 5% or less.
# A/B: the same, the B side measured while `stress-ng --cpu NCPU` loads every
#      CPU; the fraction called worse is the detection rate. Goal: all.
# Usage: bench/aa.sh [PAIRS] [RUNS] [SELECTION...]   (default 4 3 cpu disk.randread)
set -eu
cd "$(dirname "$0")/.."
pairs=${1:-4} runs=${2:-3}
[ $# -ge 2 ] && shift 2 || set --
[ $# -gt 0 ] || set -- cpu disk.randread
scripts/deps.sh bench
[ -x build/vmbench ] || make build >/dev/null
out=$(mktemp -d)
stress=
trap '[ -n "$stress" ] && kill "$stress" 2>/dev/null; rm -rf "$out"' EXIT
db="$out/aa.db"
ncpu=$(nproc)
one() { build/vmbench run "$@" --quick --db "$db" -q; }

echo "A/A and A/B: $pairs pairs of $runs alternating runs a side of 'vmbench run $* --quick', $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
# The two sides alternate run by run (each run its own process, the unit of
# replication), so drift of the machine's load hits both alike.
for i in $(seq "$pairs"); do
	for r in $(seq "$runs"); do
		one "$@" --label aa="x$i"
		one "$@" --label aa="y$i"
	done
	build/vmbench compare aa="x$i" aa="y$i" --db "$db" --no-calibration --format csv > "$out/aa$i.csv"
	for r in $(seq "$runs"); do
		one "$@" --label ab="a$i"
		stress-ng --cpu "$ncpu" --timeout 3600 --quiet &
		stress=$!
		one "$@" --label ab="b$i"
		kill "$stress"
		wait "$stress" 2>/dev/null || true
		stress=
	done
	build/vmbench compare ab="a$i" ab="b$i" --db "$db" --no-calibration --format csv > "$out/ab$i.csv"
	echo "pair $i of $pairs done"
done
python3 - "$out" "$pairs" <<'PY'
import csv, glob, os, sys
out, pairs = sys.argv[1], int(sys.argv[2])
def verdicts(prefix):
    v = []
    for f in sorted(glob.glob(os.path.join(out, prefix + "*.csv"))):
        for r in csv.DictReader(open(f, newline="")):
            if r["baseline"] == "false" and r["verdict"] not in ("missing", ""):
                v.append(r["verdict"])
    return v
aa, ab = verdicts("aa"), verdicts("ab")
def count(v, *w):
    return sum(1 for x in v if x in w)
fp = count(aa, "better", "worse")
print(f"A/A: {fp} of {len(aa)} headline comparisons called significant "
      f"(false-positive rate {100 * fp / max(1, len(aa)):.1f}%; same {count(aa, 'same')}, "
      f"inconclusive {count(aa, 'inconclusive')}, untested {count(aa, 'untested')})")
det = count(ab, "worse")
print(f"A/B under stress-ng: {det} of {len(ab)} found worse (detection rate {100 * det / max(1, len(ab)):.1f}%; "
      f"better {count(ab, 'better')}, same {count(ab, 'same')}, inconclusive {count(ab, 'inconclusive')})")
PY
