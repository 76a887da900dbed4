#!/bin/sh
# Bad stores and bad documents: a clear message naming the file, never a crash.
. "$(dirname "$0")/lib.sh"

printf 'not a database at all, just some text that is long enough......\n' > "$T/garbage.db"
expect 2 "results on a file that is not SQLite" "$VMB" results --db "$T/garbage.db"
has "$T/err" "$T/garbage.db: not a usable SQLite database" "message names the file and the problem"
expect 2 "run refuses a corrupt store before measuring" "$VMB" run cpu.prime --db "$T/garbage.db" --time 5
lacks "$T/out" "events_per_s" "nothing was measured"
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("create table t (x)"); c.commit()' "$T/other.db"
expect 2 "another program's database" "$VMB" results --db "$T/other.db"
has "$T/err" "another program, not a vmbench store" "foreign database named as such"
expect 0 "results on a store that does not exist yet" "$VMB" results --db "$T/none.db"
has "$T/out" "no results stored yet" "says so"
check "and does not create it" test ! -e "$T/none.db"

printf '{"schema": "vmbench-result", ' > "$T/trunc.json"
expect 2 "truncated JSON" "$VMB" show "$T/trunc.json"
has "$T/err" "$T/trunc.json: not valid JSON at line 1" "position of the error"
printf '{"schema": "vmbench-result", "schema_version": 7}' > "$T/future.json"
expect 2 "newer schema version" "$VMB" show "$T/future.json"
has "$T/err" "schema_version: 7 is not supported (this vmbench reads version 1; it was written by a newer vmbench)" \
	"version message"
printf '{"foo": 1}' > "$T/foreign.json"
expect 2 "a JSON file that is not a result" "$VMB" show "$T/foreign.json"
has "$T/err" "not a valid vmbench result: schema: missing" "says what is missing"
expect 2 "garbage on stdin" sh -c "printf '\\001\\002garbage' | '$VMB' show -"
has "$T/err" "stdin: not valid JSON" "stdin named"
expect 2 "a file that does not exist" "$VMB" show "$T/nope.json"
finish
