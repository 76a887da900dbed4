#!/bin/sh
# The application suite with --quick sizes: values, the files it leaves
# (none, after success, error and Ctrl-C), refused connections, and, where
# PostgreSQL is installed, a throwaway server whose own commit counter must
# equal what vmbench counted, to the transaction.
. "$(dirname "$0")/lib.sh"

d="$T/d"
mkdir -p "$d"
base="--app.dir $d --time 0.1 --warmup 0 --repeat 2 --threads 1,2 --no-store"
no_files() { test -z "$(ls -A "$d")"; }

expect 0 "run app --quick in a directory of its own" "$VMB" run app --quick $base --json "$T/q.json"
# the tests --quick skips are checked below; check_result.py wants measured ones only
python3 - "$T/q.json" "$T/q-measured.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["suites"]:
    s["tests"] = [t for t in s["tests"] if t["status"] != "skipped"]
json.dump(d, open(sys.argv[2], "w"))
PY
check "every metric present and sane" python3 "$SRC/tests/cli/check_result.py" "$T/q-measured.json" --suite app
check "nothing left in --app.dir" no_files
check "oltp, proc and files measured, the rest skipped with the reason" python3 - "$T/q.json" <<'PY'
import json, math, sys
s = json.load(open(sys.argv[1]))["suites"][0]
t = {x["name"]: x for x in s["tests"]}
rw = t["oltp_read_write"]
assert [c["params"]["threads"] for c in rw["cases"]] == [1, 2], rw["cases"]
for c in rw["cases"]:
    m = {x["name"]: x for x in c["metrics"]}
    assert {"tps", "qps", "errors_pct", "latency"} <= set(m), set(m)
    assert c["params"]["db"] == "sqlite" and c["params"]["table-size"] == 10000
    tps, qps = m["tps"]["summary"]["mean"], m["qps"]["summary"]["mean"]
    assert tps > 0 and math.isfinite(tps) and math.isfinite(qps)
    # oltp_read_write: BEGIN, 10 point selects, 4 ranges, 2 updates, delete, insert, COMMIT
    assert abs(qps / tps - 20) < 0.01, qps / tps
    p = m["latency"]["histogram"]["percentiles"]
    assert p["p50"] <= p["p95"] <= p["p99"], p  # p95: sysbench's latency figure
# (each latency's per-repetition percentiles, fork_exit.p99 and so on, aside)
m = {x["name"]: x["summary"]["mean"] for x in t["proc"]["cases"][0]["metrics"] if "." not in x["name"]}
assert set(m) == {"fork_exit", "fork_exec", "posix_spawn", "fork_minor_faults"}, m
assert all(v > 0 and math.isfinite(v) for v in m.values()), m
m = {x["name"]: x["summary"]["mean"] for x in t["files"]["cases"][0]["metrics"]}
assert set(m) == {"create_per_s", "stat_per_s", "readdir_entries_per_s", "rename_per_s", "unlink_per_s"}, m
assert all(v > 0 for v in m.values()), m
for name in ("oltp_read_only", "oltp_point_select", "oltp_update_index", "build"):
    assert t[name]["status"] == "skipped" and "--quick" in t[name]["reason"], t[name]
assert s["notes"]["oltp_db"].startswith("sqlite")
assert s["notes"]["app_dir_fs"], s["notes"]  # what the files were on: a disk, or memory
PY

expect 0 "the other three OLTP scripts" "$VMB" run app.oltp_read_only app.oltp_point_select app.oltp_update_index \
	$base --json "$T/o.json"
check "statements per transaction as sysbench's scripts" python3 - "$T/o.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["suites"][0]
want = {"oltp_read_only": 16, "oltp_point_select": 1, "oltp_update_index": 1}
for t in s["tests"]:
    for c in t["cases"]:
        m = {x["name"]: x["summary"]["mean"] for x in c["metrics"]}
        assert abs(m["qps"] / m["tps"] - want[t["name"]]) < 0.01, (t["name"], m)
PY
check "nothing left after the other scripts" no_files

if command -v cc >/dev/null 2>&1; then
	expect 0 "app.build with a compiler" "$VMB" run app.build $base --app.units 2 --app.probes 3 --json "$T/b.json"
	check "build seconds and the user/system split, its configuration step and an incremental build" python3 - "$T/b.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["suites"][0]
c = s["tests"][0]["cases"][0]
m = {x["name"]: x["summary"]["mean"] for x in c["metrics"]}
assert m["build_s"] > 0 and m["user_s"] > 0 and m["sys_s"] >= 0, m
assert m["configure_s"] > 0 and m["incremental_s"] > 0, m
# -j0 (the default) is the CPUs: the count it ran with is stored, never 0
assert c["params"]["jobs"] >= 1 and c["params"]["units"] == 2 and c["params"]["probes"] == 3, c["params"]
n = s["notes"]
# the three first checks are headers every C library has
assert n["build_configure"] == "3 checks compiled and linked one by one, 3 found", n
# one source touched: make's check finds that unit, and only it, out of date
assert n["build_incremental"] == "u0.c touched: 1 of 2 units out of date, compiled again", n
PY
	expect 0 "app.build --app.probes 0: no configuration step" "$VMB" run app.build $base --app.units 2 --app.probes 0 \
		--json "$T/b0.json"
	check "no configure_s, the builds measured" python3 - "$T/b0.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["suites"][0]["tests"][0]["cases"][0]
m = {x["name"] for x in c["metrics"]}
assert "configure_s" not in m and {"build_s", "incremental_s"} <= m, m
PY
	check "no corpus left" no_files
	# --quick leaves app.build out of 'app', but runs it when it is named
	expect 0 "run app.build --quick: named, it runs" "$VMB" run app.build --quick $base --app.units 2 --json "$T/bq.json"
	check "measured, not skipped" python3 - "$T/bq.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["suites"][0]["tests"][0]
assert t["name"] == "build" and t["status"] == "ok", (t["name"], t["status"], t.get("reason"))
PY
	check "no corpus left after it" no_files
else
	skip "app.build with a compiler" "no cc installed here"
fi
expect 1 "app.build without a compiler: skipped, with the reason" env PATH=/nonexistent "$VMB" run app.build $base
has "$T/err" "no C compiler (cc) in PATH" "the reason names what is missing"

# the embedded database leaves no file after an error and after Ctrl-C
expect 1 "a database broken under the run: a clear failure" python3 "$SRC/tests/cli/stop_at.py" app-oltp-prepared \
	'for f in '"$d"'/vmbench-oltp-*; do case $f in *-wal|*-shm) ;; *) printf "not a database at all, no" | dd of="$f" conv=notrunc 2>/dev/null ;; esac; done' \
	"$VMB" run app.oltp_read_write $base
has "$T/err" "file is not a database" "SQLite's own words"
check "no database file left after the error" no_files
expect 130 "Ctrl-C after the tables are prepared" python3 "$SRC/tests/cli/stop_at.py" app-oltp-prepared \
	'kill -INT $VMB_PID' "$VMB" run app.oltp_read_write $base
check "no database file left after Ctrl-C" no_files

expect 130 "Ctrl-C with a batch of small files on disk" python3 "$SRC/tests/cli/stop_at.py" app-files-created \
	'kill -INT $VMB_PID' "$VMB" run app.files $base
check "no small file or directory left after Ctrl-C" no_files
if command -v cc >/dev/null 2>&1; then
	expect 130 "Ctrl-C while the build corpus is written" python3 "$SRC/tests/cli/stop_at.py" app-build-corpus \
		'kill -INT $VMB_PID' "$VMB" run app.build $base --app.units 2
	check "no corpus left after Ctrl-C" no_files
fi

expect 2 "a URL of no known back end" "$VMB" run app.oltp_read_write $base --app.db oracle://x
has "$T/err" "not a database URL; use sqlite" "the message lists what works"
expect 2 "an apt package that would be an apt-get option: a usage error" "$VMB" run app.apt --app.apt-package=-oDir=/ \
	--app.apt-mirror http://127.0.0.1:1/ --no-store
has "$T/err" "--app.apt-package '-oDir=/' is no Debian package name" "names the package"
expect 2 "an apt mirror of two words (a second sources.list entry): a usage error" "$VMB" run app.apt \
	--app.apt-mirror "http://127.0.0.1:1/ ./ deb http://x" --no-store
has "$T/err" "is no URL apt takes here" "says what it takes"
expect 2 "--app.dir that is not a directory" "$VMB" run app.proc --app.dir "$T/q.json" --no-store
has "$T/err" "is not a directory" "says why"

# A server that refuses connections: a clear error, no numbers
if "$VMB" run app.oltp_point_select --app.db postgresql://127.0.0.1:1/x --no-store >/dev/null 2>"$T/pgerr"; then
	not_ok "a refused connection must fail"
elif grep -q "built without" "$T/pgerr"; then
	skip "PostgreSQL refusing connections" "vmbench built without libpq"
else
	has "$T/pgerr" "connecting to postgresql://127.0.0.1:1/x" "a refused PostgreSQL connection: a clear error"
	lacks "$T/pgerr" "	" "in one line"
fi

# Throwaway servers (tests/cli/dbservers.sh); the server counts a
# backend's transactions when it exits: wait for vmbench's to be gone.
. "$SRC/tests/cli/dbservers.sh"
trap 'db_stop_all; rm -rf "$T"' EXIT
if grep -q "built without" "$T/pgerr"; then
	skip "OLTP counts against PostgreSQL's own counters" "vmbench built without libpq"
elif ! pg_start; then
	skip "OLTP counts against PostgreSQL's own counters" "no PostgreSQL server here (scripts/deps.sh test installs it)"
else
	before=$(pgq "select xact_commit from pg_stat_database where datname = 'vmb'")
	expect 0 "OLTP against a throwaway PostgreSQL" "$VMB" run app.oltp_read_write app.oltp_point_select \
		app.oltp_update_index $base --app.db "$pg_url" --json "$T/pg.json"
	check "every metric present and sane" python3 "$SRC/tests/cli/check_result.py" "$T/pg.json" --suite app
	i=0
	while [ "$(pgq "select count(*) from pg_stat_activity where datname = 'vmb'")" != 0 ] && [ $i -lt 500 ]; do
		i=$((i + 1))
	done
	after=$(pgq "select xact_commit from pg_stat_database where datname = 'vmb'")
	counted=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["suites"][0]["notes"]["oltp_server_transactions"])' "$T/pg.json")
	check "pg_stat_database.xact_commit equals vmbench's count ($counted)" test "$((after - before))" -eq "$counted"
	qv() { "$pg_bin/psql" "$pg_url" -Atc "$1"; }
	check "the sbtest tables are dropped" test "$(qv "select count(*) from pg_tables where tablename like 'sbtest%'")" -eq 0
	qv "create table sbtest1(id int)" >/dev/null
	expect 1 "an existing sbtest1 is refused, never touched" "$VMB" run app.oltp_point_select $base --app.db "$pg_url"
	has "$T/err" "refuses to touch existing ones" "the message says why"
	check "the user's table is still there" test "$(qv "select count(*) from pg_tables where tablename = 'sbtest1'")" -eq 1
	qv "drop table sbtest1" >/dev/null
	expect 1 "a server that goes away mid-run is a clear error" python3 "$SRC/tests/cli/stop_at.py" \
		app-oltp-prepared "$db_as $pg_bin/pg_ctl -D $pg_dir/data -m immediate stop >/dev/null" \
		"$VMB" run app.oltp_read_write $base --app.db "$pg_url"
	has "$T/err" "connecting to postgresql" "names the server"
fi

# A refused MariaDB connection, then the throwaway MariaDB; its Com_commit
# counts the COMMIT statements.
if "$VMB" run app.oltp_point_select --app.db mysql://root@127.0.0.1:1/x --no-store >/dev/null 2>"$T/myerr"; then
	not_ok "a refused MariaDB connection must fail"
elif grep -q "built without" "$T/myerr"; then
	skip "MariaDB refusing connections" "vmbench built without libmariadb"
else
	has "$T/myerr" "connecting to mysql://root@127.0.0.1:1/x: Can't connect" "a refused MariaDB connection: a clear error"
fi
expect 2 "a malformed MariaDB URL is a usage error" "$VMB" run app.oltp_point_select $base --app.db mysql://u:pw@h:x/db
lacks "$T/err" "pw" "and the password is not shown"
if grep -q "built without" "$T/myerr"; then
	skip "OLTP counts against MariaDB's own counters" "vmbench built without libmariadb"
elif ! my_start; then
	skip "OLTP counts against MariaDB's own counters" "no MariaDB server here (scripts/deps.sh test installs it)"
else
	before=$(myq "show global status like 'Com_commit'" | cut -f2)
	expect 0 "OLTP against a throwaway MariaDB" "$VMB" run app.oltp_read_write app.oltp_point_select \
		app.oltp_update_index $base --app.db "$my_url" --json "$T/my.json"
	check "every metric present and sane" python3 "$SRC/tests/cli/check_result.py" "$T/my.json" --suite app
	after=$(myq "show global status like 'Com_commit'" | cut -f2)
	counted=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["suites"][0]["notes"]["oltp_commits"])' "$T/my.json")
	check "Com_commit equals vmbench's COMMIT count ($counted)" test "$((after - before))" -eq "$counted"
	check "the sbtest tables are dropped" test -z "$(myq "show tables in vmb")"
fi
finish
