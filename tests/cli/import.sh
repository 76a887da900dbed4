#!/bin/sh
# import: real fio, iperf3 and sysbench outputs into the store; malformed
# input is exit 2 with the place; imported runs pair with vmbench's own.
. "$(dirname "$0")/lib.sh"

fx="$SRC/tests/fixtures/import"
for f in fio-randread.json fio-randrw.json iperf3-tcp.json iperf3-udp.json sysbench-cpu.txt sysbench-memory.txt; do
	expect 0 "import $f" "$VMB" import "$fx/$f" --label host=old
	has "$T/out" "results from $fx/$f as run" "$f stored"
done
expect 0 "results list them with their source" "$VMB" results --label source=fio
check "two fio runs" test "$(grep -c '^[0-9]' "$T/out")" -eq 2
expect 0 "import from stdin, convert only" sh -c "'$VMB' import - --no-store --json - < '$fx/sysbench-cpu.txt'"
check "the converted document is valid" "$VMB" show "$T/out" --json

# sysbench's figure and vmbench's own, for the same event, pair up in compare
expect 0 "vmbench cpu.prime like the sysbench run" "$VMB" run cpu.prime --cpu.max-prime 10000 --threads 2 \
	--time 0.1 --warmup 0 --repeat 3 --label host=new -q
expect 0 "compare the imported sysbench run with it" "$VMB" compare source=sysbench-cpu host=new --format json
check "paired: the same row has both cells" python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
row = [r for r in d["metrics"] if r["metric"] == "events_per_s" and r["params"] == {"max-prime": 10000, "threads": 2}]
assert len(row) == 1 and all(c is not None for c in row[0]["cells"]), d["metrics"]
PY

printf '{"fio version": "fio-3.33", "jobs": [' > "$T/trunc.json"
expect 2 "truncated fio JSON" "$VMB" import "$T/trunc.json"
has "$T/err" "trunc.json: not valid JSON at line 1" "the position"
printf '{"fio version": "x", "jobs": [{"job options": {"rw": "randread"}, "read": {}}]}' > "$T/noiops.json"
expect 2 "fio JSON without the numbers" "$VMB" import "$T/noiops.json"
has "$T/err" "jobs[0].read.lat_ns: missing" "the JSON path"
printf 'sysbench 1.0.20\nNumber of threads: 1\nPrime numbers limit: 10000\nCPU speed:\n    events per second: lots\n' \
	> "$T/sb.txt"
expect 2 "sysbench output with garbage" "$VMB" import "$T/sb.txt"
has "$T/err" "line 5: expected a number after 'events per second:'" "the line"
expect 2 "a file in no known format" "$VMB" import "$SRC/README.md"
expect 2 "a file that does not exist" "$VMB" import "$T/none.json"
check "nothing malformed was stored" test "$("$VMB" results | grep -c '^[0-9]')" -eq 7
finish
