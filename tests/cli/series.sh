#!/bin/sh
# Series over time: net.tcp_stream and net.udp over loopback and
# disk.randread on a temporary file keep their per-interval points; the
# points' count and times follow from the interval and the window (values,
# never speeds); show --series, export --format csv --series and the
# report's line charts show exactly what the document holds.
. "$(dirname "$0")/lib.sh"

d="$T/d"
mkdir -p "$d"
common="--repeat 2 --warmup 0 --no-store"

expect 0 "net.tcp_stream, net.udp and net.http with a 0.05 s interval" "$VMB" run net.tcp_stream net.udp net.http \
	$common --net.time 0.3 --net.interval 0.05 --net.rate 10 --net.connections 2 --net.threads 2 --json "$T/net.json"
check "each repetition's series: at most window/interval points, each interval at least 0.05 s" python3 - "$T/net.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 3, d["schema_version"]
want = {"tcp_stream": [("mbit_per_s", "Mbit/s")], "udp": [("sender_mbit_per_s", "Mbit/s")],
        "http": [("requests_per_s", "1/s"), ("p99_latency", "ns")]}
for t in d["suites"][0]["tests"]:
    c = t["cases"][0]
    se = c["series"]
    assert sorted(s["rep"] for s in se) == sorted([1, 2] * len(want[t["name"]])), (t["name"], se)
    for s in se:
        assert (s["name"], s["unit"]) in want[t["name"]] and s["bucket"] == 1, s
        ts = [p[0] for p in s["points"]]
        assert 1 <= len(ts) <= 6, (t["name"], len(ts))
        assert ts[0] >= 0.05, ts
        assert all(b - a >= 0.05 - 1e-9 for a, b in zip(ts, ts[1:])), ts
        assert ts[-1] <= 0.3 + 0.05, ts
        assert all(p[1] >= 0 for p in s["points"]), s["points"]
        # http: each interval is at least 0.05 s long, so its rate x 0.05 s
        # counts at most the requests done in it, and all of them at most
        # the repetition's requests
        if s["name"] == "requests_per_s":
            done = [m for m in c["metrics"] if m["name"] == "requests"][0]["samples"][s["rep"] - 1]
            assert sum(p[1] * 0.05 for p in s["points"]) <= done * (1 + 1e-9), (s["points"], done)
PY

expect 0 "disk.randread with --disk.log-interval 50" "$VMB" run disk.randread $common --time 0.3 \
	--disk.dir "$d" --disk.size 16m --disk.ramp 0 --disk.iodepth 1 --disk.log-interval 50 --json "$T/disk.json"
if grep -q '"status": "skipped"' "$T/disk.json"; then
	skip "disk series: six whole windows" "disk.randread cannot run in $d here"
else
	check "disk series: iops and latency, six whole 50 ms windows, a whole number of I/Os in each" \
		python3 - "$T/disk.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["suites"][0]["tests"][0]["cases"][0]
names = sorted((s["name"], s["rep"]) for s in c["series"])
assert names == [("iops", 1), ("iops", 2), ("latency", 1), ("latency", 2)], names
for s in c["series"]:
    ts = [p[0] for p in s["points"]]
    if s["name"] == "iops":
        assert s["unit"] == "1/s", s["unit"]
        assert [round(t, 9) for t in ts] == [0.05, 0.1, 0.15, 0.2, 0.25, 0.3], ts
        for p in s["points"]:
            ios = p[1] * 0.05
            assert abs(ios - round(ios)) < 1e-6, p
    else:
        assert s["unit"] == "ns" and 1 <= len(ts) <= 6 and all(p[1] > 0 for p in s["points"]), s
PY
fi
expect 0 "without --disk.log-interval: no series" "$VMB" run disk.randread $common --time 0.1 \
	--disk.dir "$d" --disk.size 16m --disk.ramp 0 --disk.iodepth 1 --json "$T/nolog.json"
lacks "$T/nolog.json" '"series"' "the document has none"
# every window is kept in memory until the repetition ends: windows under
# fio's 1 ms, or more than a million in a repetition, are the user's mistake
expect 2 "--disk.log-interval 0.001: a window under 1 ms" "$VMB" run disk.randread $common --time 0.1 \
	--disk.dir "$d" --disk.size 16m --disk.ramp 0 --disk.iodepth 1 --disk.log-interval 0.001
has "$T/err" "--disk.log-interval 0.001: windows of 1 ms or more" "says what would be right"
expect 2 "--disk.log-interval 1 over --time 1500: 1.5 million windows" "$VMB" run disk.randread $common --time 1500 \
	--disk.dir "$d" --disk.size 16m --disk.ramp 0 --disk.iodepth 1 --disk.log-interval 1
has "$T/err" "1500000 windows of 1 ms in a repetition of 1500 s; at most 1000000" "says how many"

# show --series: a line per repetition and series, with its count
expect 0 "show --series" "$VMB" show --series "$T/net.json"
npts=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["suites"][0]["tests"][0]["cases"][0]; print(len(c["series"][0]["points"]))' "$T/net.json")
has "$T/out" "net.tcp_stream  streams=1" "names the case"
check "a line for each of the eight series, the first with its point count" python3 - "$T/out" "$npts" <<'PY'
import sys
lines = [l for l in open(sys.argv[1]) if l.startswith("  rep ")]
assert len(lines) == 8, lines
assert lines[0].split()[:4] == ["rep", "1", "mbit_per_s", sys.argv[2]], lines[0]
PY
expect 0 "show --series of a run without series" "$VMB" show --series "$T/nolog.json"
has "$T/out" "no series in this run" "says so"
expect 2 "show --series --json" "$VMB" show --series --json "$T/net.json"
has "$T/err" "--json and --series" "says which two"

# export --format csv --series: one row per point, the document's values
expect 0 "export --format csv --series" "$VMB" export --format csv --series "$T/net.json"
check "one row per point with the document's run, repetition, time and value" python3 - "$T/out" "$T/net.json" <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
assert rows[0] == ["run", "suite", "test", "params", "repetition", "t_s", "metric", "value", "unit"], rows[0]
want = [[d["id"], "net", t["name"], None, str(s["rep"]), p[0], s["name"], p[1], s["unit"]]
        for t in d["suites"][0]["tests"] for s in t["cases"][0]["series"] for p in s["points"]]
assert len(rows) - 1 == len(want), (len(rows), len(want))
for r, w in zip(rows[1:], want):
    assert r[:3] == w[:3] and r[4] == w[4] and r[6] == w[6] and r[8] == w[8], (r, w)
    assert float(r[5]) == w[5] and float(r[7]) == w[7], (r, w)
assert "interval=0.05" in rows[1][3], rows[1][3]
PY
expect 2 "--series with --format json" "$VMB" export --format json --series "$T/net.json"
has "$T/err" "--series goes with --format csv" "says which format"

# the report: a chart per case and series name, a polyline per repetition
# with as many points as the series
expect 0 "report with series" "$VMB" report "$T/net.json" -o "$T/r.html"
check "a series chart per case and name, each a polyline per repetition with the series' points" python3 - "$T/r.html" "$T/net.json" <<'PY'
import json, re, sys
h = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
sec = h[h.index("<h2>Series over time</h2>"):]
sec = sec[:sec.index("</div>")]
figs = re.findall(r"<figure>(.*?)</figure>", sec, re.S)
want = []
for t in d["suites"][0]["tests"]:
    se = t["cases"][0]["series"]
    for name in dict.fromkeys(s["name"] for s in se):
        want.append((t["name"], name, [s for s in se if s["name"] == name]))
assert len(figs) == len(want) == 4, (len(figs), len(want))
for fig, (test, name, se) in zip(figs, want):
    lines = re.findall(r'<polyline [^>]*data-rep="(\d+)" points="([^"]*)"', fig)
    assert [int(r) for r, _ in lines] == [s["rep"] for s in se], lines
    assert [len(p.split()) for _, p in lines] == [len(s["points"]) for s in se], (lines, se)
    assert "net." + test in fig and name + " over time" in fig, (test, name)
PY

# a document with a bad series is refused by its path
python3 - "$T/net.json" "$T/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["suites"][0]["tests"][0]["cases"][0]["series"][0]["rep"] = 9
json.dump(d, open(sys.argv[2], "w"))
PY
expect 2 "a series of a repetition the case does not have" "$VMB" show --series "$T/bad.json"
has "$T/err" "suites[0].tests[0].cases[0].series[0].rep: 9 is out of range [1, 2]" "names the path"
finish
