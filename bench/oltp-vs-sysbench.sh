#!/bin/sh
# vmbench app.oltp_* side by side with sysbench 1.0's scripts of the same
# names, against the same throwaway PostgreSQL and MariaDB servers
# (tests/cli/dbservers.sh): same table count and size, threads and time, run
# alternately. Per round: transactions/s and p95 latency of each, and the
# ratios; then their medians. Goal: tps ratio 0.9 to 1.1.
# Usage: bench/oltp-vs-sysbench.sh [ROUNDS] [SECONDS] [THREADS] [TABLE_SIZE]
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-3} secs=${2:-5} threads=${3:-1} size=${4:-10000}
scripts/deps.sh bench
[ -x build/vmbench ] || make build >/dev/null
SRC=$(pwd)
out=$(mktemp -d)
. tests/cli/dbservers.sh
trap 'db_stop_all; rm -rf "$out"' EXIT
pg_start || { echo "oltp-vs-sysbench: no PostgreSQL server" >&2; exit 1; }
my_start || { echo "oltp-vs-sysbench: no MariaDB server" >&2; exit 1; }

sb_args() { # DRIVER
	case $1 in
	pgsql) echo "--db-driver=pgsql --pgsql-host=$pg_dir --pgsql-port=5432 --pgsql-user=vmb --pgsql-db=vmb" ;;
	mysql) echo "--db-driver=mysql --mysql-socket=$my_dir/sock --mysql-user=root --mysql-db=vmb" ;;
	esac
}

echo "app.oltp_* vs sysbench: 1 table of $size rows, $threads thread(s), $secs s, $rounds rounds"
printf '%-6s %-18s %-6s %10s %10s %7s %10s %10s %7s\n' round script db sb_tps vmb_tps ratio sb_p95ms vmb_p95ms ratio
for r in $(seq "$rounds"); do
	for db in pgsql mysql; do
		url=$pg_url
		[ $db = pgsql ] || url=$my_url
		for script in oltp_read_write oltp_read_only oltp_point_select oltp_update_index; do
			common="--tables=1 --table-size=$size --threads=$threads --time=$secs"
			# shellcheck disable=SC2046
			sysbench $script $(sb_args $db) $common prepare >/dev/null
			# shellcheck disable=SC2046
			sysbench $script $(sb_args $db) $common --percentile=95 run > "$out/sb.txt"
			# shellcheck disable=SC2046
			sysbench $script $(sb_args $db) $common cleanup >/dev/null
			sb_tps=$(sed -n 's/.*transactions: *[0-9]* *(\([0-9.]*\) per sec.*/\1/p' "$out/sb.txt")
			sb_p95=$(sed -n 's/.*95th percentile: *\([0-9.]*\).*/\1/p' "$out/sb.txt")
			rm -f "$out/v.json"
			build/vmbench run app.$script --app.db "$url" --app.table-size "$size" --threads "$threads" \
				--time "$secs" --repeat 2 --warmup 0 --no-store -q --json "$out/v.json"
			set -- $(python3 - "$out/v.json" "$threads" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["suites"][0]["tests"][0]["cases"]:
    if c["params"]["threads"] == int(sys.argv[2]):
        m = {x["name"]: x for x in c["metrics"]}
        # both repetitions' latencies are in the merged histogram
        print(m["tps"]["summary"]["mean"], m["latency"]["histogram"]["percentiles"]["p95"] / 1e6)
PY
)
			vb_tps=$1 vb_p95=$2
			line=$(python3 -c "print(f'{$vb_tps / $sb_tps:.3f} {$vb_p95 / $sb_p95:.3f}')")
			printf '%-6s %-18s %-6s %10.1f %10.1f %7s %10.2f %10.2f %7s\n' "$r" "$script" "$db" "$sb_tps" \
				"$vb_tps" "${line% *}" "$sb_p95" "$vb_p95" "${line#* }"
			echo "$db $script $line" >> "$out/ratios"
		done
	done
done
python3 - "$out/ratios" <<'PY'
import collections, statistics, sys
by = collections.defaultdict(list)
for line in open(sys.argv[1]):
    db, script, t, p = line.split()
    by[(db, script)].append((float(t), float(p)))
print("median ratios vmbench/sysbench (tps, p95):")
for (db, script), v in sorted(by.items()):
    print(f"  {db:6} {script:18} tps {statistics.median(x[0] for x in v):.3f}  p95 {statistics.median(x[1] for x in v):.3f}")
PY
