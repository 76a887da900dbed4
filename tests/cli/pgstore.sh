#!/bin/sh
# The result store in PostgreSQL (issue 46): a throwaway cluster of the
# test's own (tests/cli/dbservers.sh: initdb in a temporary directory, run
# as nobody when root, on a Unix socket only), then every command that
# takes --db against it: run stores the same document it writes with
# --json, results/show/compare/export/report read it; several processes
# store at once and lose nothing; a kill inside a run's transaction leaves
# the whole run or none; 'store copy' moves runs between a file and the
# server both ways, none twice, documents unchanged. Errors: a server that
# refuses, a password never shown.
. "$(dirname "$0")/lib.sh"

fast="--time 0.05 --warmup 0 --repeat 2 --threads 1 --cpu.max-prime 1000"
expect 1 "a store on a server that refuses connections" "$VMB" results --db "postgresql://u:s3cret@127.0.0.1:1/x"
if grep -q "built without" "$T/err"; then
	skip "the PostgreSQL store" "vmbench built without libpq"
	finish
	exit $?
fi
has "$T/err" "postgresql://u:***@127.0.0.1:1/x: connecting to the store:" "says which store, and why"
lacks "$T/err" "s3cret" "and not its password"
check "no file was made for it" sh -c "! ls | grep -q postgres"
# libpq quotes a password it cannot read, or the whole URL; the shown URL
# hides every password, sslpassword and a second password= too
for url in "postgresql://u:s3c%zzret@127.0.0.1:1/x" "postgresql://u@127.0.0.1:1/x?password=s3c%00ret" \
	"postgresql://u:s3cret@[::1/x" "postgresql://u:s3/cret@127.0.0.1:1/x" \
	"postgresql://u@127.0.0.1:1/x?sslpassword=a&password=s3cret"; do
	k=$((${k:-0} + 1))
	expect 1 "a store URL libpq cannot use ($k)" "$VMB" results --db "$url"
	lacks "$T/err" "s3" "and no piece of its password said"
done

. "$SRC/tests/cli/dbservers.sh"
trap 'db_stop_all; rm -rf "$T"' EXIT
if ! pg_start; then
	skip "the PostgreSQL store" "no PostgreSQL server here (scripts/deps.sh test installs it)"
	finish
	exit $?
fi
pgv() { "$pg_bin/psql" "$pg_url" -Atc "$1"; }
expect 0 "results of a database with no vmbench schema: no runs" "$VMB" results --db "$pg_url"
check "and it made nothing there" test "$(pgv "select count(*) from pg_namespace where nspname = 'vmbench'")" = 0
expect 0 "a run stored in PostgreSQL" "$VMB" run cpu.prime $fast --label hv=a --db "$pg_url" --json "$T/a.json"
has "$T/out" "stored as run 1 " "as run 1"
VMBENCH_DB=$pg_url expect 0 "a second, the store named by VMBENCH_DB" "$VMB" run cpu.prime $fast --label hv=b
check "the tables are in the schema vmbench" test "$(pgv "select count(*) from pg_tables where schemaname = 'vmbench'")" = 4
check "one row per run, the labels and metrics with them" test \
	"$(pgv "select count(*) || ' ' || (select count(*) from vmbench.labels) || ' ' || (select count(*) > 0 from vmbench.metrics) from vmbench.runs")" = "2 2 true"
expect 0 "export the first as JSON" "$VMB" export 1 --format json --db "$pg_url"
check "the stored document is the one run wrote" python3 -c '
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a == b, [k for k in a if a.get(k) != b.get(k)]' "$T/a.json" "$T/out"
expect 0 "results" "$VMB" results --db "$pg_url"
has "$T/out" "hv=a" "lists hv=a"
has "$T/out" "hv=b" "and hv=b"
expect 0 "results --label hv=b" "$VMB" results --label hv=b --db "$pg_url"
lacks "$T/out" "hv=a" "a selector reads the server's labels"
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"][:8])' "$T/a.json")
expect 0 "show by id prefix" "$VMB" show "$id" --db "$pg_url"
has "$T/out" "labels hv=a" "finds the run"
expect 0 "compare hv=a hv=b" "$VMB" compare hv=a hv=b --db "$pg_url"
has "$T/out" "hv=b vs hv=a" "compares them"
expect 0 "report into HTML" "$VMB" report hv=a hv=b --db "$pg_url" -o "$T/r.html"
check "the report names both" sh -c "grep -q 'hv=a' '$T/r.html' && grep -q 'hv=b' '$T/r.html'"

# Several writers at once: 4 processes of 3 runs each
for p in 1 2 3 4; do
	(for i in 1 2 3; do "$VMB" run cpu.prime $fast --label writer=$p --db "$pg_url" -q --json "$T/w$p-$i.json" ||
		echo "writer $p run $i: exit $?"; done) >"$T/w$p.out" 2>&1 &
done
wait
check "every writer's runs stored, none lost, each its own number" python3 - "$T" "$pg_bin/psql" "$pg_url" <<'PY'
import glob, json, subprocess, sys
t, psql, url = sys.argv[1:]
for f in glob.glob(f"{t}/w?.out"):
    assert not open(f).read().strip(), open(f).read()
want = {json.load(open(f))["id"] for f in glob.glob(f"{t}/w?-?.json")}
assert len(want) == 12, len(want)
rows = subprocess.run([psql, url, "-Atc", "select id, uuid from vmbench.runs where id > 2"], check=True,
                      capture_output=True, text=True).stdout.split()
got = {r.split("|")[1] for r in rows}
ids = [int(r.split("|")[0]) for r in rows]
assert got == want, (want - got, got - want)
assert len(set(ids)) == 12, ids
PY

# A kill inside the run's transaction: the server rolls it back
for point in store-run-row store-commit; do
	before=$(pgv "select count(*) from vmbench.runs")
	expect 137 "kill -9 at $point" python3 "$SRC/tests/cli/stop_at.py" $point 'kill -9 $VMB_PID' \
		"$VMB" run cpu.prime $fast --label killed=$point --db "$pg_url"
	check "nothing of that run is stored" test "$(pgv "select count(*) from vmbench.runs")" = "$before"
	check "and no label or metric of it" test \
		"$(pgv "select count(*) from vmbench.labels l where not exists (select 1 from vmbench.runs r where r.id = l.run_id)")" = 0
done

# store copy, both ways
expect 0 "store copy from the server into a new file" "$VMB" store copy "$pg_url" "$T/copy.db"
has "$T/out" "copied 14 runs into $T/copy.db; 0 already there" "every run"
expect 0 "again" "$VMB" store copy "$pg_url" "$T/copy.db"
has "$T/out" "copied 0 runs into $T/copy.db; 14 already there" "none twice"
expect 0 "a run of the file's own" "$VMB" run cpu.prime $fast --label hv=file --db "$T/copy.db"
expect 0 "store copy --select back into the server" "$VMB" store copy "$T/copy.db" "$pg_url" --select hv=file
has "$T/out" "copied 1 run into" "the one run"
check "documents unchanged through both copies" python3 - "$T/copy.db" "$T/a.json" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
a = json.load(open(sys.argv[2]))
(doc,) = db.execute("select doc from runs where uuid = ?", (a["id"],)).fetchone()
assert json.loads(doc) == a
PY
expect 0 "results --label hv=file from the server" "$VMB" results --label hv=file --db "$pg_url"
has "$T/out" "hv=file" "the copied run is there"
expect 2 "store copy of a store onto itself" "$VMB" store copy "$T/copy.db" "$T/copy.db"
has "$T/err" "FROM and TO are the same store" "says so"
expect 2 "store copy from a store that does not exist" "$VMB" store copy "$T/none.db" "$T/x.db"
has "$T/err" "$T/none.db: no such store" "says so"
check "and made no file" test ! -e "$T/x.db"

# a damaged schema is said, as SQLite's file without a version is: never
# taken for a store with no runs, nor made whole over what is left of it
pgq "create database dmg" >/dev/null
dmg=$(echo "$pg_url" | sed 's|///vmb?|///dmg?|')
expect 0 "a run into another database" "$VMB" run cpu.prime $fast --db "$dmg"
"$pg_bin/psql" "$dmg" -Atc "drop table vmbench.meta" >/dev/null
expect 2 "results of a schema whose meta table is gone" "$VMB" results --db "$dmg"
has "$T/err" "the vmbench schema has a table runs but no version; it is damaged" "says it is damaged"
expect 2 "a run into it" "$VMB" run cpu.prime $fast --db "$dmg"
check "which made no meta table again" test "$(pgv "select count(*) from pg_tables where tablename = 'meta'" 2>/dev/null; \
	"$pg_bin/psql" "$dmg" -Atc "select count(*) from pg_tables where schemaname = 'vmbench' and tablename = 'meta'")" = "1
0"
"$pg_bin/psql" "$dmg" -Atc "create table vmbench.meta (key text primary key, value text not null)" >/dev/null
expect 2 "results of a schema whose version row is gone" "$VMB" results --db "$dmg"
has "$T/err" "the vmbench schema has a table meta but no version; it is damaged" "says it is damaged"
finish
