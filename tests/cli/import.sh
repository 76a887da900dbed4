#!/bin/sh
# import: real fio, iperf3 and sysbench outputs (and vmbench's own documents)
# into the store; malformed input is exit 2 with the place and nothing is
# stored; imported runs can be shown and compared, and pair with vmbench's own.
. "$(dirname "$0")/lib.sh"

fx="$SRC/tests/fixtures/import"
stored=0
for f in "$fx"/*.json "$fx"/*.txt; do
	b=$(basename "$f")
	case $b in fio-numjobs-nogroup.json) continue ;; esac
	expect 0 "import $b" "$VMB" import "$f" --label host=old
	has "$T/out" "results from $f as run" "$b stored"
	stored=$((stored + 1))
done
expect 0 "results list them with their source" "$VMB" results --label source=fio
check "every fio run" test "$(grep -c '^[0-9]' "$T/out")" -eq "$(ls "$fx"/fio-*.json | grep -vc nogroup)"
expect 0 "every imported run can be shown" sh -c "for i in \$(seq 1 $stored); do '$VMB' show \$i --json > /dev/null || exit 1; done"
expect 0 "compare the fio runs by selector" "$VMB" compare source=fio host=old

# fio's own job lines before the JSON are skipped, and said so
expect 0 "fio output with its job lines" "$VMB" import "$fx/fio-multijob.json" --no-store --json "$T/mj.json"
has "$T/err" "fio-multijob.json: skipped 2 lines that are not part of the fio JSON" "the skipped lines are counted"
check "three cases, each with its own latency percentiles" python3 - "$T/mj.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cases = [c for t in d["suites"][0]["tests"] for c in t["cases"]]
assert len(cases) == 3, cases
for c in cases:
    lat = [m for m in c["metrics"] if m["name"] == "latency"][0]
    assert lat["histogram"]["percentiles"]["p99"] > 0, c
    # the percentiles also as the metrics a native run has, so that compare pairs them
    p99 = [m for m in c["metrics"] if m["name"] == "latency.p99"][0]
    assert p99["samples"] == [lat["histogram"]["percentiles"]["p99"]] and p99["direction"] == "lower", p99
    # fio's CPU usage, as the disk suite names it
    cpu = {m["name"]: m["samples"] for m in c["metrics"] if m["name"].startswith("cpu_")}
    assert set(cpu) == {"cpu_user_pct", "cpu_sys_pct"} and all(v[0] >= 0 for v in cpu.values()), cpu
PY
expect 0 "compare --all: an import's p99 is compared, not missing" "$VMB" compare "$T/mj.json" "$T/mj.json" --all \
	--metric latency.p99 --format csv
check "p99 on both sides, one value each, not imprecise" python3 - "$T/out" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 6 and all(r["metric"] == "latency.p99" and r["n"] == "1" for r in rows), rows
assert all(r["precision_reached"] == "true" and r["verdict"] in ("", "untested") for r in rows), rows
PY
expect 2 "fio usr_cpu beyond 1000 CPUs" "$VMB" import "$SRC/tests/fuzz/corpus/import/fio-cpu-out-of-range.json" --no-store
has "$T/err" "jobs[0].usr_cpu: 250000 is beyond what is plausible" "the implausible CPU usage named"
# a byte-order mark, as some editors save it
printf '\357\273\277' > "$T/bom.json"
cat "$fx/fio-randread.json" >> "$T/bom.json"
expect 0 "fio JSON with a UTF-8 BOM" "$VMB" import "$T/bom.json" --no-store

# iperf3 --bidir: both directions, the receiver's figure as the headline
expect 0 "iperf3 --bidir" "$VMB" import "$fx/iperf3-tcp-bidir.json" --no-store --json "$T/bidir.json"
check "two directions, receiver's figures" python3 - "$T/bidir.json" "$fx/iperf3-tcp-bidir.json" <<'PY'
import json, sys
d, raw = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
cases = d["suites"][0]["tests"][0]["cases"]
got = {c["params"]["reverse"]: [m for m in c["metrics"] if m["headline"]][0]["samples"][0] for c in cases}
assert got == {False: raw["end"]["sum_received"]["bits_per_second"] / 1e6,
               True: raw["end"]["sum_received_bidir_reverse"]["bits_per_second"] / 1e6}, got
PY

# sysbench memory does not print its access mode: --param states it
expect 0 "sysbench memory with --param access=rnd" "$VMB" import "$fx/sysbench-mem-write-rnd-1M.txt" --param access=rnd \
	--no-store --json "$T/rnd.json"
has "$T/rnd.json" '"access": "rnd"' "the stated access mode is a param"
expect 2 "--param over what the output prints" "$VMB" import "$fx/fio-randread.json" --param access=rnd --no-store
has "$T/err" "fio output states every parameter" "refused"

expect 0 "import from stdin, convert only" sh -c "'$VMB' import - --no-store --json - < '$fx/sysbench-cpu.txt'"
check "the converted document is valid" "$VMB" show "$T/out" --json

# a colleague's vmbench document: into the store, once
cp "$T/out" "$T/colleague.json"
expect 0 "import a vmbench result document" "$VMB" import "$T/colleague.json" --label from=colleague
has "$T/out" "imported vmbench results from $T/colleague.json" "stored as vmbench's"
expect 2 "the same run again" "$VMB" import "$T/colleague.json"
has "$T/err" "is already in" "a run is stored once"
stored=$((stored + 1))

# sysbench's figure and vmbench's own, for the same event, pair up in compare
expect 0 "vmbench cpu.prime like the sysbench run" "$VMB" run cpu.prime --cpu.max-prime 10000 --threads 2 \
	--time 0.1 --warmup 0 --repeat 3 --label host=new -q
stored=$((stored + 1))
expect 0 "compare the imported sysbench run with it" "$VMB" compare source=sysbench-cpu host=new --format json
check "paired: the same row has both cells" python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
row = [r for r in d["metrics"] if r["metric"] == "events_per_s" and r["params"] == {"max-prime": 10000, "threads": 2}]
assert len(row) == 1 and all(c is not None for c in row[0]["cells"]), d["metrics"]
PY

# iperf3 -u and vmbench's net.udp, at the same rate and datagram size, pair
# up in compare: the same test (net.udp, not a "udp_stream" no suite has),
# the same params, the same metric names
expect 0 "vmbench net.udp like iperf3 -u -b 50M -l 32768" "$VMB" run net.udp --quick --net.rate 50 \
	--net.udp-size 32768 --label host=udp -q
stored=$((stored + 1))
expect 0 "compare the imported iperf3 UDP runs with it" "$VMB" compare source=iperf3 host=udp --all --format json
check "paired: net.udp rate=50 udp-size=32768, each metric with both cells" python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert not [r for r in d["metrics"] if r["test"] == "udp_stream"], "udp_stream"
for name in ("mbit_per_s", "sender_mbit_per_s", "target_mbit_per_s", "jitter", "lost_pct"):
    row = [r for r in d["metrics"] if r["suite"] == "net" and r["test"] == "udp" and r["metric"] == name
           and r["params"] == {"rate": 50, "udp-size": 32768}]
    assert len(row) == 1 and all(c is not None for c in row[0]["cells"]), (name, row)
PY

expect 0 "import --help lists the formats from the table" "$VMB" import --help
for w in "fio --output-format=json" "iperf3 -J" "sysbench memory run output" "a vmbench result document"; do
	has "$T/out" "$w" "help names $w"
done

printf '{"fio version": "fio-3.33", "jobs": [' > "$T/trunc.json"
expect 2 "truncated fio JSON" "$VMB" import "$T/trunc.json"
has "$T/err" "trunc.json: not valid JSON at line 1" "the position"
printf '{"fio version": "x", "jobs": [{"job options": {"rw": "randread"}, "read": {}}]}' > "$T/noiops.json"
expect 2 "fio JSON without the numbers" "$VMB" import "$T/noiops.json"
has "$T/err" "jobs[0].read.lat_ns: missing" "the JSON path"
lacks "$T/err" "out of memory" "a missing field is not out of memory"
python3 - "$T/deep.json" <<'PY'
import sys
lat = '{"min": 1, "max": 1, "mean": 1, "stddev": 0}'
deep = "[" * 2040 + "]" * 2040
open(sys.argv[1], "w").write('{"fio version": "x", "jobs": [{"job options": {"rw": "randread"}, "read": '
    '{"iops": 1, "bw_bytes": 1, "total_ios": 1, "lat_ns": %s, "clat_ns": {"min": 1, "max": 1, "mean": 1, '
    '"stddev": 0, "percentile": {"99.000000": %s}}}}]}' % (lat, deep))
PY
expect 2 "fio percentiles 2,040 arrays deep" "$VMB" import "$T/deep.json"
has "$T/err" 'clat_ns.percentile."99.000000": expected a latency in ns' "refused with the path"
expect 2 "fio numjobs=2 without group_reporting" "$VMB" import "$fx/fio-numjobs-nogroup.json"
has "$T/err" "rerun fio with --group_reporting" "says what would be right"
printf 'sysbench 1.0.20\nNumber of threads: 1\nPrime numbers limit: 10000\nCPU speed:\n    events per second: lots\n' \
	> "$T/sb.txt"
expect 2 "sysbench output with garbage" "$VMB" import "$T/sb.txt"
has "$T/err" "line 5: expected a number after 'events per second:'" "the line"
expect 2 "a file in no known format" "$VMB" import "$SRC/README.md"
has "$T/err" "not a format vmbench imports (fio --output-format=json" "the formats are listed"
expect 2 "a file that does not exist" "$VMB" import "$T/none.json"
expect 0 "results" "$VMB" results
check "nothing malformed was stored" test "$(grep -c '^[0-9]' "$T/out")" -eq "$stored"
expect 0 "compare every imported iperf3 run" "$VMB" compare source=iperf3 host=old
# the tool's own clock, iperf3's intervals as intervals of one run
expect 0 "fio: convert only" "$VMB" import "$fx/fio-randread.json" --no-store --json "$T/ts-fio.json"
check "started is fio's timestamp, not the import's" python3 - "$T/ts-fio.json" "$fx/fio-randread.json" <<'PY'
import datetime, json, sys
d, f = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
want = datetime.datetime.fromtimestamp(f["timestamp"], datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
assert d["started"] == want, (d["started"], want)
PY
expect 0 "iperf3: convert only" "$VMB" import "$fx/iperf3-tcp.json" --no-store --json "$T/ts-ip.json"
check "iperf3: its timestamp, its intervals kept apart from the run's figure" python3 - "$T/ts-ip.json" \
	"$fx/iperf3-tcp.json" <<'PY'
import datetime, json, sys
d, f = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ts = f["start"]["timestamp"]["timesecs"]
assert d["started"] == datetime.datetime.fromtimestamp(ts, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
c = d["suites"][0]["tests"][0]["cases"][0]
ms = {m["name"]: m for m in c["metrics"]}
assert len(ms["mbit_per_s"]["samples"]) == 1, ms["mbit_per_s"]
assert len(ms["interval_mbit_per_s"]["samples"]) == len(f["intervals"]) and not ms["interval_mbit_per_s"]["headline"]
PY
# iperf3 -O: the omitted intervals (its warm-up, whose clock restarts after
# it) are not in the series; the measured ones are, at their own ends
expect 0 "iperf3 -O 1: imported" "$VMB" import "$fx/iperf3-tcp-omit.json" --no-store --json "$T/omit.json"
check "iperf3 -O 1: the series holds the measured intervals only" python3 - "$T/omit.json" \
	"$fx/iperf3-tcp-omit.json" <<'PY'
import json, sys
d, f = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
c = d["suites"][0]["tests"][0]["cases"][0]
want = [[i["sum"]["end"], i["sum"]["bits_per_second"] / 1e6] for i in f["intervals"] if not i["sum"]["omitted"]]
assert len(want) == 4 and len(want) < len(f["intervals"]), want
got = [s["points"] for s in c["series"] if s["name"] == "mbit_per_s"]
assert len(got) == 1 and len(got[0]) == len(want), got
assert all(abs(a[0] - b[0]) < 1e-9 and abs(a[1] - b[1]) < 1e-6 * b[1] for a, b in zip(got[0], want)), (got, want)
# and the intervals' metric holds the same four, as iperf3's own figures leave its warm-up out
iv = [m for m in c["metrics"] if m["name"] == "interval_mbit_per_s"][0]["samples"]
assert len(iv) == 4 and all(abs(a - b[1]) < 1e-6 * b[1] for a, b in zip(iv, want)), (iv, want)
PY
# fio's per-interval logs (log_avg_msec=100) with the JSON of their run:
# series of the job's case, per direction; malformed lines refused with file:line
fl="$SRC/tests/fixtures/fiolog"
expect 0 "fio JSON with its logs" "$VMB" import "$fl/fio-randread-log.json" "$fl"/rr_*.log --no-store --json "$T/fl.json"
has "$T/err" "rr_slat.1.log: empty, no series from it" "an empty log (no slat for psync) is noted"
check "fio logs: iops, latency, clat, mb_per_s of repetition 1, as logged" python3 - "$T/fl.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["suites"][0]["tests"][0]["cases"][0]
s = {x["name"]: x for x in c["series"]}
assert sorted(s) == ["clat", "iops", "latency", "mb_per_s"], sorted(s)
assert all(x["rep"] == 1 for x in s.values())
# rr_iops.1.log: 19 lines, "100, 20, 0, 0, 0" first, "1913, 60, ..." last
i = s["iops"]
assert i["unit"] == "1/s" and len(i["points"]) == 19 and i["points"][0] == [0.1, 20] and i["points"][-1] == [1.913, 60], i
l = s["latency"]
assert l["unit"] == "ns" and len(l["points"]) == 20 and l["points"][0] == [0.103, 34554101] and l["points"][-1] == [2.007, 1957306], l
# KiB/s in the log, MB/s (10^6 bytes) in the series: 80 KiB/s = 0.08192 MB/s
b = s["mb_per_s"]
assert b["unit"] == "MB/s" and len(b["points"]) == 19 and abs(b["points"][0][1] - 0.08192) < 1e-12, b
PY
expect 0 "fio randrw with its logs" "$VMB" import "$fl/fio-randrw-log.json" "$fl/rw_iops.1.log" "$fl/rw_lat.1.log" \
	--no-store --json "$T/fl2.json"
check "randrw: a series per direction" python3 - "$T/fl2.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["suites"][0]["tests"][0]["cases"][0]
s = {x["name"]: x["points"] for x in c["series"]}
assert sorted(s) == ["read_iops", "read_latency", "write_iops", "write_latency"], sorted(s)
assert len(s["read_iops"]) == 9 and s["read_iops"][0] == [0.147, 258] and s["write_iops"][0] == [0.148, 306], s
assert len(s["write_latency"]) == 10 and s["write_latency"][-1][0] == 1.005, s["write_latency"]
PY
sed '3s/^302,/150,/' "$fl/rr_iops.1.log" > "$T/bad_iops.1.log"
expect 2 "a fio log whose time goes back" "$VMB" import "$fl/fio-randread-log.json" "$T/bad_iops.1.log"
has "$T/err" "bad_iops.1.log:3: time 150 ms is not after the read line before (201 ms)" "the line named"
sed '5s/.*/500, 7, 1, 0, 0/' "$fl/rr_lat.1.log" > "$T/bad_lat.1.log"
expect 2 "a write in a randread job's log" "$VMB" import "$fl/fio-randread-log.json" "$T/bad_lat.1.log"
has "$T/err" "bad_lat.1.log:5: a write in the log of a job with rw=randread" "the line named"
cp "$fl/rr_iops.1.log" "$T/rr_iops.2.log"
expect 2 "a log of a job the JSON does not have" "$VMB" import "$fl/fio-randread-log.json" "$T/rr_iops.2.log"
has "$T/err" "the log of fio's thread 2, and the jobs of the fio output ran 1 thread" "the thread named"
# fio numbers logs by thread: jobs[0] ran numjobs=2 (threads 1 and 2), so
# nj_iops.3.log is jobs[1]'s and nj_iops.2.log the second thread of jobs[0]
expect 0 "a log after a job of numjobs=2" "$VMB" import "$fl/fio-numjobs-log.json" "$fl/nj_iops.3.log" --no-store \
	--json "$T/fl3.json"
check "thread 3's log is the series of jobs[1] (jobs=1), as logged" python3 - "$T/fl3.json" <<'PY'
import json, sys
cs = json.load(open(sys.argv[1]))["suites"][0]["tests"][0]["cases"]
jobs = {str(c["params"]["jobs"]): c for c in cs}
assert "series" not in jobs["2"], jobs["2"]
s = jobs["1"]["series"]
assert len(s) == 1 and s[0]["name"] == "iops" and s[0]["points"][0] == [0.25, 512] and len(s[0]["points"]) == 4, s
PY
expect 2 "the log of the second thread of a job of numjobs=2" "$VMB" import "$fl/fio-numjobs-log.json" \
	"$fl/nj_iops.2.log" --no-store
has "$T/err" "nj_iops.2.log: jobs[0] ran numjobs=2" "the job named"
expect 2 "fio logs with another tool's output" "$VMB" import "$fx/iperf3-tcp.json" "$fl/rr_iops.1.log" --no-store
# a vmbench document whose summary is not its samples' (issue 41: show
# printed the summary's 1e18 events/s, compare the samples' 691) or whose
# samples no machine measures: refused whole, at the figure's path
rf="$SRC/tests/fixtures/import/refused"
expect 0 "the store before" "$VMB" results
cp "$T/out" "$T/before"
expect 2 "a summary of n 1,000,000 and mean 1e18 over 2 samples" "$VMB" import "$rf/vmbench-summary-not-samples.json"
has "$T/err" "metrics[0].summary.n: 1000000, but there are 2 samples" "the summary's n, at its path"
expect 2 "a summary mean of 1000 over samples whose mean is 691.15" "$VMB" import "$rf/vmbench-summary-mean.json"
has "$T/err" "metrics[0].summary.mean: 1000 is not what the samples give (691.15)" "the mean and the samples'"
expect 2 "samples of 1e308 events/s" "$VMB" import "$rf/vmbench-samples-1e308.json"
has "$T/err" "metrics[0].samples[0]: 1e+308 is beyond what is plausible (at most 1e+13 1/s)" "the bound of the unit"
expect 2 "show refuses such a document too" "$VMB" show "$rf/vmbench-summary-mean.json"
has "$T/err" "summary.mean: 1000 is not what the samples give" "with the same reason"
expect 0 "the store after" "$VMB" results
check "none of them was stored" cmp "$T/before" "$T/out"
expect 0 "nothing of the refused imports was stored" "$VMB" results --label source=fio
check "no run beyond the fio runs above" test "$(grep -c '^[0-9]' "$T/out")" -eq "$(ls "$fx"/fio-*.json | grep -vc nogroup)"
finish
