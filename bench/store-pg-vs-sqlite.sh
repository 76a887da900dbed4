#!/bin/sh
# What the PostgreSQL store costs against the SQLite one, for N stored runs
# (default 10,000): a throwaway cluster of the bench's own (as
# tests/cli/pgstore.sh's, tests/cli/dbservers.sh), one source store of N
# runs (one real run of this vmbench, its document copied N times under new
# ids and labels, by Python's sqlite3 in vmbench's own schema), then the
# same vmbench commands into and from each store, each timed with its peak
# memory (GNU time's maximum resident set size):
#   store copy SOURCE TARGET   N runs written, each its own transaction
#   results                    N runs listed
#   results --label batch=7    a selector over N runs' labels
#   show RUN                   one run read back
#   store copy again           N runs found already there
# Usage: bench/store-pg-vs-sqlite.sh [N]
#   VMBENCH (environment): the vmbench to measure (default build/vmbench)
set -eu
cd "$(dirname "$0")/.."
n=${1:-10000}
case "$n" in '' | *[!0-9]*) echo "usage: bench/store-pg-vs-sqlite.sh [N]" >&2; exit 2 ;; esac
scripts/deps.sh test >/dev/null
VMBENCH=${VMBENCH:-build/vmbench}
[ "$VMBENCH" != build/vmbench ] || [ -x build/vmbench ] || make build >/dev/null
VMB=$(realpath "$VMBENCH")
T=$(mktemp -d /tmp/vmbench-storebench-XXXXXX)
. tests/cli/dbservers.sh
trap 'db_stop_all; rm -rf "$T"' EXIT
pg_start || { echo "bench/store-pg-vs-sqlite.sh: no PostgreSQL server could be started here" >&2; exit 1; }
"$VMB" run cpu.prime --time 0.05 --warmup 0 --repeat 2 --threads 1 --cpu.max-prime 1000 -q --db "$T/one.db" >/dev/null
python3 - "$T/one.db" "$T/src.db" "$n" <<'PY'
import json, shutil, sqlite3, sys, uuid
one, src, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
shutil.copy(one, src)
db = sqlite3.connect(src)
run, = db.execute("select doc from runs").fetchall()
base = json.loads(run[0])
mets = db.execute("select suite, test, params, metric, unit, direction, n, mean, median, stddev, ci95_low, "
                  "ci95_high from metrics").fetchall()
with db:
    db.execute("delete from metrics")
    db.execute("delete from labels")
    db.execute("delete from runs")
    for i in range(n):
        d = dict(base, id=str(uuid.uuid4()), labels={"batch": str(i % 100), "copy": str(i)})
        fp = d["fingerprint"]
        cur = db.execute("insert into runs (uuid, started, ended, host, hypervisor, suites, doc) values "
                         "(?, ?, ?, ?, ?, ?, ?)", (d["id"], d["started"], d["ended"], fp.get("hostname"),
                         (fp.get("hypervisor") or {}).get("name"), "cpu", json.dumps(d)))
        rid = cur.lastrowid
        db.executemany("insert into labels values (?, ?, ?)", [(rid, k, v) for k, v in d["labels"].items()])
        db.executemany("insert into metrics values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       [(rid,) + m for m in mets])
PY
timed() { # LABEL CMD...: seconds and peak RSS of CMD (its output discarded)
	label=$1
	shift
	/usr/bin/time -f "%e %M" -o "$T/time" "$@" >/dev/null 2>"$T/err" || { cat "$T/err" >&2; exit 1; }
	read -r secs kb <"$T/time"
	printf '%s %s %s\n' "$label" "$secs" "$kb" >>"$T/$store.tsv"
}
for store in sqlite postgresql; do
	if [ $store = sqlite ]; then db="$T/target.db"; else db="$pg_url"; fi
	: >"$T/$store.tsv"
	timed "store copy (write $n runs)" "$VMB" store copy "$T/src.db" "$db"
	timed "results (list $n)" "$VMB" results --db "$db"
	timed "results --label batch=7" "$VMB" results --label batch=7 --db "$db"
	timed "show one run" "$VMB" show "$((n / 2))" --db "$db"
	timed "store copy again (0 new)" "$VMB" store copy "$T/src.db" "$db"
done
echo "vmbench: $VMB, $("$VMB" --version); $n runs of one cpu.prime document each ($(stat -c %s "$T/src.db") bytes of SQLite)"
echo "PostgreSQL: $("$pg_bin/postgres" --version), a local cluster on a Unix socket; server memory not counted"
printf '%-28s %12s %12s %8s %12s %12s\n' operation "sqlite s" "postgres s" ratio "sqlite MiB" "postgres MiB"
paste "$T/sqlite.tsv" "$T/postgresql.tsv" | python3 -c '
import sys
for line in sys.stdin:
    a, b = line.rstrip("\n").split("\t")
    la, sa, ka = a.rsplit(" ", 2)
    lb, sb, kb = b.rsplit(" ", 2)
    r = float(sb) / float(sa) if float(sa) > 0 else float("inf")
    print(f"{la:28} {float(sa):12.2f} {float(sb):12.2f} {r:8.2f} {int(ka)/1024:12.1f} {int(kb)/1024:12.1f}")'
echo "size on disk: sqlite $(stat -c %s "$T/target.db") bytes; postgresql $("$pg_bin/psql" "$pg_url" -Atc \
	"select sum(pg_total_relation_size(c.oid)) from pg_class c join pg_namespace s on s.oid = c.relnamespace where s.nspname = 'vmbench' and c.relkind = 'r'") bytes"
