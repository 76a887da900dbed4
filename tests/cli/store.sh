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

# A 0-byte file is an empty SQLite database (it was "attempt to write a readonly database")
: > "$T/zero.db"
expect 0 "results on a 0-byte store" "$VMB" results --db "$T/zero.db"
lacks "$T/err" "readonly" "no SQLite message leaks"
check "lists no run" test "$(grep -c '^[0-9]' "$T/out")" -eq 0
expect 2 "show on a 0-byte store" "$VMB" show 1 --db "$T/zero.db"
has "$T/err" "no run '1' in $T/zero.db" "says the run is not there"
check "reading left the file alone" test ! -s "$T/zero.db"
fx="$SRC/tests/fixtures/import/sysbench-cpu.txt"
expect 0 "import into a 0-byte store makes it a store" "$VMB" import "$fx" --db "$T/zero.db"
has "$T/out" "as run 1 in $T/zero.db" "stored as run 1"

# Concurrent first uses of a new store all succeed ("table runs already
# exists" failed 11 of 20). A barrier without sleeps: each process says it
# is ready on one FIFO, then waits for its line on another.
N=12
mkfifo "$T/ready" "$T/go"
exec 3<>"$T/go" 4<>"$T/ready"
for i in $(seq $N); do
	(
		echo >&4
		read -r _ <&3
		"$VMB" import "$fx" --db "$T/race/new.db" --label n="$i" >"$T/race.$i.out" 2>"$T/race.$i.err"
		echo $? >"$T/race.$i.rc"
	) &
done
for i in $(seq $N); do read -r _ <&4; done
for i in $(seq $N); do echo >&3; done
wait
exec 3>&- 4>&-
check "all $N concurrent first uses exit 0" test "$(cat "$T"/race.*.rc | grep -c '^0$')" -eq $N
cat "$T"/race.*.err > "$T/race.err"
lacks "$T/race.err" "already exists" "no 'already exists' error"
expect 0 "results on the raced store" "$VMB" results --db "$T/race/new.db"
check "$N runs are stored" test "$(grep -c '^[0-9]' "$T/out")" -eq $N

# Label keys are kept whole or refused, never cut; long selectors work.
k127=$(printf '%0127d' 0 | tr 0 k)
expect 2 "a label key of 128 characters is refused" "$VMB" import "$fx" --label "${k127}x=1"
has "$T/err" "a label key has at most 127" "the limit is named"
expect 0 "a label key of 127 characters is kept" "$VMB" import "$fx" --label "${k127}=1" --label long=yes
expect 0 "and found by a selector of its whole key" "$VMB" export "${k127}=1" --format csv
long=$(printf '%0300d' 0)
expect 0 "a 300-character label value" "$VMB" import "$fx" --label "big=$long"
expect 0 "a selector of 300+ characters finds it" "$VMB" export "big=$long" --format csv
has "$T/out" '"cpu","prime",' "the run is exported"
sel=big=$long
for i in $(seq 60); do sel="$sel,big=$long"; done
expect 0 "a selector of 18000 characters in 61 parts" "$VMB" export "$sel" --format csv
has "$T/out" '"cpu","prime",' "the run is exported"
expect 2 "a selector that matches nothing" "$VMB" compare "$sel,x=y" "big=$long"
has "$T/err" "no stored run has the labels" "says so"
lacks "$T/err" "Expression tree" "no SQLite message leaks"
expect 2 "a selector key over the limit" "$VMB" compare "${k127}x=1" 1
has "$T/err" "a label key has at most 127 characters" "the limit is named"
expect 2 "lab report: a selector key over the limit" "$VMB" lab report "${k127}x=1"
has "$T/err" "a label key has at most 127 characters" "lab report names the limit (not 'not a label selector')"
expect 2 "lab report: a selector that is not KEY=VALUE" "$VMB" lab report foo
has "$T/err" "selector 'foo': each part must be KEY=VALUE" "lab report says what a selector is"

# Output that cannot be written is a failure (exit 1 and why), never exit 0
if [ -w /dev/full ]; then
	"$VMB" export 1 --format json > "$T/run1.json"
	for c in "results" "list" "compare 1 1" "show 1" "show $T/run1.json" "export 1 --format csv" \
		"export 1 --format openmetrics" "export 1 --format markdown" "export 1 --format json" "report 1 -o -" \
		"help --man" "--version" "run --help"; do
		# shellcheck disable=SC2086
		expect 1 "$c >/dev/full" sh -c '"$0" "$@" >/dev/full' "$VMB" $c
		has "$T/err" "No space left on device" "$c: says why"
	done
	# the document of a run into /dev/full: why, and where it was kept instead
	expect 1 "run --json - >/dev/full" sh -c 'TMPDIR="$1" "$0" run cpu.prime --time 0.01 --warmup 0 --repeat 2 \
		--threads 1 --cpu.max-prime 100 --no-store --json - >/dev/full' "$VMB" "$T"
	has "$T/err" "writing the result to stdout: No space left on device" "run --json -: says why"
	has "$T/err" "the result was saved to $T/vmbench-result-" "run --json -: and where it was kept"
else
	skip "commands into /dev/full" "/dev/full is not writable here"
fi

# results: columns as wide as their widest value; --format json and csv
# (a label's value holds no ',': no selector could select it, label.h)
"$VMB" import "$fx" --db "$T/fmt.db" --label "note=a value with spaces; not a comma" --label hv=kvm >/dev/null
"$VMB" import "$SRC/tests/fixtures/import/fio-randread.json" --db "$T/fmt.db" --label hv=tcg --label 'q=say "hi"' \
	>/dev/null
expect 0 "results, a table" "$VMB" results --db "$T/fmt.db"
# the id and the time vary, but not in width
sed -E 's/^([0-9]+ +)[0-9a-f]{8}/\1ID8_____/; s/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z/STARTED_____________/' \
	"$T/out" > "$T/table"
cat > "$T/want" <<'EOF'
RUN  ID        STARTED               HOST  HYPERVISOR  LABELS                                                            SUITES
1    ID8_____  STARTED_____________  -     unknown     hv=kvm note=a value with spaces; not a comma source=sysbench-cpu  cpu
2    ID8_____  STARTED_____________  -     unknown     hv=tcg q=say "hi" source=fio                                      disk
EOF
check "the table, exactly" diff -u "$T/want" "$T/table"
expect 0 "results --format csv" "$VMB" results --db "$T/fmt.db" --format csv --label hv=tcg
sed -E 's/"[0-9a-f-]{36}"/"UUID"/; s/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z/STARTED/' "$T/out" > "$T/csv"
cat > "$T/want" <<'EOF'
run,id,started,host,hypervisor,labels,suites,status
2,"UUID","STARTED","","unknown","hv=tcg q=say ""hi"" source=fio","disk","complete"
EOF
check "the CSV, exactly (RFC 4180 quoting)" diff -u "$T/want" "$T/csv"
expect 0 "results --format json" "$VMB" results --db "$T/fmt.db" --format json
check "the JSON: every run with its labels as an object" python3 - "$T/out" <<'EOF'
import json, sys
runs = json.load(open(sys.argv[1]))
assert [r["run"] for r in runs] == [1, 2], runs
assert runs[0]["labels"] == {"hv": "kvm", "note": "a value with spaces; not a comma", "source": "sysbench-cpu"}
assert runs[1]["labels"] == {"hv": "tcg", "q": 'say "hi"', "source": "fio"}
assert runs[0]["suites"] == ["cpu"] and runs[1]["suites"] == ["disk"]
assert runs[0]["host"] is None and runs[0]["hypervisor"] == "unknown" and len(runs[0]["id"]) == 36
EOF
expect 0 "results --format json without a store" "$VMB" results --db "$T/none.db" --format json
check "is an empty array" test "$(cat "$T/out")" = "[]"
expect 2 "results --format xml" "$VMB" results --format xml
has "$T/err" "one of text|json|csv" "the valid formats"

# export: CSV with params as compare writes them, RFC 4180 quoting;
# OpenMetrics label names valid and distinct
doc="$SRC/tests/fixtures/store/labels.json"
expect 0 "export --format csv" "$VMB" export "$doc" --format csv
cat > "$T/want" <<'EOF'
suite,test,params,metric,unit,direction,n,mean,median,stddev,min,max,ci95_low,ci95_high,p50,p90,p99
"disk","randread","bs=4096 disk.type=virtio disk_type=scsi mode=""a,b \""c\""""","iops","1/s","higher",2,100,100,1.4142135623730951,99,101,87.293795263825302,112.7062047361747,,,
"disk","randread","bs=4096 disk.type=virtio disk_type=scsi mode=""a,b \""c\""""","latency","ns","lower",2,10,10,1.4142135623730951,9,11,-2.7062047361746977,22.706204736174698,10,11,11
EOF
check "the CSV, exactly" diff -u "$T/want" "$T/out"
check "python's csv reads the fields back" python3 - "$T/out" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 2 and rows[0]["params"] == 'bs=4096 disk.type=virtio disk_type=scsi mode="a,b \\"c\\""', rows[0]
assert rows[1]["p99"] == "11" and rows[0]["p99"] == ""
EOF
expect 0 "export --format markdown" "$VMB" export "$doc" --format markdown
# for a reader a size as the options take it (4k), as run's summary and compare print it; CSV keeps 4096
has "$T/out" '| disk.randread | bs=4k disk.type=virtio disk_type=scsi mode="a,b \\"c\\"" | iops | 1/s | higher | 2 | 100 |' \
	"markdown params as k=v, sizes with their suffix"
expect 0 "export --format openmetrics" "$VMB" export "$doc" --format openmetrics
# no run_id label unless asked (a new series per run); latencies in seconds, as Prometheus names them
labels='host="h1",hypervisor="KVM",bs="4096",disk_type_2="virtio",disk_type="scsi",mode="a,b \"c\"",_1st="a",label_disk_type="lab",q="say \"hi\", then\\go",label_stat="s"'
{
	echo "# TYPE vmbench_disk_randread_iops gauge"
	echo "# HELP vmbench_disk_randread_iops 1/s, higher is better"
	for st in mean=100 median=100 stddev=1.4142135623730951 min=99 max=101 ci95_low=87.293795263825302 \
		ci95_high=112.7062047361747; do
		printf '%s\n' "vmbench_disk_randread_iops{stat=\"${st%=*}\",$labels} ${st#*=}"
	done
	echo "# TYPE vmbench_disk_randread_latency_seconds gauge"
	echo "# UNIT vmbench_disk_randread_latency_seconds seconds"
	echo "# HELP vmbench_disk_randread_latency_seconds seconds, lower is better"
	# 10, sqrt(2), 9, 11 ns and 10 -+ t(0.975, 1) sqrt(2) / sqrt(2), each divided by 1e9 and printed with 17 digits
	for st in mean=1e-08 median=1e-08 stddev=1.4142135623730951e-09 min=8.9999999999999995e-09 \
		max=1.0999999999999999e-08 ci95_low=-2.7062047361746975e-09 ci95_high=2.2706204736174698e-08 p50=1e-08 p90=1.0999999999999999e-08 \
		p99=1.0999999999999999e-08 p99.9=1.0999999999999999e-08 p99.99=1.0999999999999999e-08; do
		printf '%s\n' "vmbench_disk_randread_latency_seconds{stat=\"${st%=*}\",$labels} ${st#*=}"
	done
	echo "# EOF"
} > "$T/want"
check "the OpenMetrics text, exactly: 1st, disk.type and disk_type get distinct valid names" diff -u "$T/want" "$T/out"
expect 0 "export --format openmetrics --run-id" "$VMB" export "$doc" --format openmetrics --run-id
check "--run-id: every series labelled with the run's id" python3 - "$T/out" <<'EOF'
import sys
series = [l for l in open(sys.argv[1]) if l.startswith("vmbench_")]
assert len(series) == 19 and all(',run_id="0badc0de-0000-4000-8000-000000000001",' in l for l in series), series
EOF

# "__" label names are Prometheus's own (dropped after relabelling): renamed
# with an 'x', also when only the replaced bytes make the "__" ("--x", "é_y")
python3 - "$doc" "$T/dunder.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["labels"] = {"__name__": "a", "--x": "b", "\u00e9_y": "c"}
json.dump(d, open(sys.argv[2], "w"))
EOF
expect 0 "export labels that would start with __" "$VMB" export "$T/dunder.json" --format openmetrics
check "no label name starts with __, each renamed with an x" python3 - "$T/out" <<'EOF'
import re, sys
names = set()
for line in open(sys.argv[1]):
    m = re.match(r'^vmbench_\w+\{(.*)\} ', line)
    if m:
        names |= set(re.findall(r'(?:^|,)([A-Za-z_][A-Za-z0-9_]*)="', m.group(1)))
assert not [n for n in names if n.startswith("__")], names
assert {"x__name__", "x__x", "x___y"} <= names, names
EOF

# A valid document need not say which vmbench wrote it ("vmbench (null)")
"$VMB" export 1 --format json | python3 -c 'import json, sys; d = json.load(sys.stdin); d["tool"] = {}
json.dump(d, open(sys.argv[1], "w"))' "$T/notool.json"
expect 0 "show a document without tool.version" "$VMB" show "$T/notool.json"
lacks "$T/out" "(null)" "no (null)"
has "$T/out" "vmbench (version unknown)" "says the version is unknown"

printf '{"schema": "vmbench-result", ' > "$T/trunc.json"
expect 2 "truncated JSON" "$VMB" show "$T/trunc.json"
has "$T/err" "$T/trunc.json: not valid JSON at line 1" "position of the error"
printf '{"schema": "vmbench-result", "schema_version": 7}' > "$T/future.json"
expect 2 "newer schema version" "$VMB" show "$T/future.json"
has "$T/err" "schema_version: 7 is not supported (this vmbench reads versions 1 to 3; it was written by a newer vmbench)" \
	"version message"
printf '{"foo": 1}' > "$T/foreign.json"
expect 2 "a JSON file that is not a result" "$VMB" show "$T/foreign.json"
has "$T/err" "not a valid vmbench result: schema: missing" "says what is missing"
expect 2 "garbage on stdin" sh -c "printf '\\001\\002garbage' | '$VMB' show -"
has "$T/err" "stdin: not valid JSON" "stdin named"
expect 2 "a file that does not exist" "$VMB" show "$T/nope.json"
# show of something that is no result file is the user's mistake (exit 2)
mkdir -p "$T/adir"
expect 2 "show a directory" "$VMB" show "$T/adir"
has "$T/err" "Is a directory" "says so"
expect 2 "show a device without end" "$VMB" show /dev/zero
has "$T/err" "/dev/zero: File too large" "says so"

# One malformed stored document (a corrupt row, edited by hand): results
# lists every run and marks that one; the same fault gives the same exit
# code (1: the store failed to give the run back) in results, show, compare
# by number, by id and by selector
bad="$T/bad.db"
for g in a b c; do
	expect 0 "import run $g" "$VMB" import "$SRC/tests/fixtures/import/sysbench-cpu.txt" --db "$bad" --label grp=$g
done
uuid2=$(python3 - "$bad" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
uuid = db.execute("SELECT uuid FROM runs WHERE id = 2").fetchone()[0]
db.execute("UPDATE runs SET doc = '{\"schema\": \"vmbench-res' WHERE id = 2")
db.execute("UPDATE runs SET doc = '{\"schema\": \"vmbench-result\"}' WHERE id = 3")
db.commit()
print(uuid[:8])
EOF
)
expect 1 "results with a corrupt row" "$VMB" results --db "$bad"
check "every run listed" test "$(grep -c '^[0-9]' "$T/out")" -eq 3
check "run 2 marked unreadable, the others not" sh -c "grep -E '^2 .*\(unreadable\)\$' '$T/out' &&
	! grep -E '^[13] .*unreadable' '$T/out'"
has "$T/err" "run 2: stored document is unreadable (not JSON); 'vmbench show 2' says more" "warns with its number"
has "$T/err" "1 stored run is unreadable" "says why the exit is 1"
expect 1 "results --format json with a corrupt row" "$VMB" results --db "$bad" --format json
check "the JSON lists it with status unreadable" python3 -c '
import json, sys
runs = json.load(open(sys.argv[1]))
assert [(r["run"], r["status"]) for r in runs] == [(1, "complete"), (2, "unreadable"), (3, "complete")], runs
assert runs[1]["labels"] == {"grp": "b", "source": "sysbench-cpu"}, runs[1]' "$T/out"
expect 1 "show the corrupt run" "$VMB" show 2 --db "$bad"
has "$T/err" "run 2: stored document is unreadable: $bad: not valid JSON" "show says which run and why"
expect 1 "show the corrupt run by id" "$VMB" show "$uuid2" --db "$bad"
has "$T/err" "run $uuid2: stored document is unreadable" "by id too"
expect 1 "show a run that is JSON but no result" "$VMB" show 3 --db "$bad"
has "$T/err" "run 3: stored document is unreadable: $bad: not a valid vmbench result" "says what is wrong"
expect 0 "show a good run beside them" "$VMB" show 1 --db "$bad"
expect 1 "compare by number" "$VMB" compare 1 2 --db "$bad"
has "$T/err" "run 2: stored document is unreadable" "compare says it"
expect 1 "compare by id" "$VMB" compare 1 "$uuid2" --db "$bad"
expect 1 "compare by selector" "$VMB" compare grp=a grp=b --db "$bad"
has "$T/err" "run 2: stored document is unreadable" "by selector too"
expect 1 "export by number" "$VMB" export 2 --db "$bad"
finish
