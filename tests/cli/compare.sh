#!/bin/sh
# compare, export and report on real results; the report rendered in headless Chromium.
. "$(dirname "$0")/lib.sh"

fast="cpu.prime --time 0.05 --warmup 0 --repeat 3 --cpu.max-prime 2000"
expect 0 "run A" "$VMB" run $fast --threads 1,2 --label hv=a --json "$T/a.json" -q
expect 0 "run A again" "$VMB" run $fast --threads 1,2 --label hv=a -q
expect 0 "run B" "$VMB" run $fast --threads 1,2 --label hv=b -q
# For verdicts that must not depend on this machine's noise: A's document with
# fixed rates (base) and the same halved (half). C ran with another max-prime.
python3 - "$T/a.json" "$T/base.json" "$T/half.json" <<'PY'
import json, sys
for out, scale in ((sys.argv[2], 1.0), (sys.argv[3], 0.5)):
    d = json.load(open(sys.argv[1]))
    d["id"] = "00000000-%g" % scale
    for c in d["suites"][0]["tests"][0]["cases"]:
        for m in c["metrics"]:
            if m["name"] == "events_per_s":
                m["samples"] = [x * scale for x in (1000.0, 1010.0, 990.0)]
                # a summary is its samples' (doc_validate checks it): compare reads the samples
                m["summary"] = {"n": 3, "mean": sum(m["samples"]) / 3}
    json.dump(d, open(out, "w"))
PY
# One run a side proves nothing without this machine's run-to-run noise: a
# stored calibration (as 'vmbench calibrate' writes it) of 1% for A's cases.
python3 - "$T/a.json" "$VMBENCH_DB.calibration" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
fp = d["fingerprint"]
key = "%s|%s|%s|%d" % (fp["cpu"].get("model") or "?", fp["hypervisor"].get("name") or "none",
                       fp["kernel"].get("release") or "?", fp["cpu"].get("logical") or 0)
cases = []
for c in d["suites"][0]["tests"][0]["cases"]:
    for m in c["metrics"]:
        cases.append({"machine": key, "suite": "cpu", "test": "prime",
                      "params": json.dumps(c["params"], sort_keys=True, separators=(",", ":")),
                      "metric": m["name"], "runs": 5, "reps": 3, "cv_between": 0.01})
os.makedirs(sys.argv[2], exist_ok=True)
json.dump({"schema": "vmbench-calibration", "schema_version": 1, "cases": cases},
          open(os.path.join(sys.argv[2], "20260101T000000Z-1.json"), "w"))
PY
expect 0 "run C with another max-prime" "$VMB" run cpu.prime --time 0.05 --warmup 0 --repeat 3 --threads 1 \
	--cpu.max-prime 3000 --json "$T/c.json" --no-store -q

expect 0 "compare two selectors" "$VMB" compare hv=a hv=b --format json
check "selectors pool their runs: 2 runs x 3 reps against 1 x 3" python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [o["runs"] for o in d["operands"]] == [2, 1], d["operands"]
rows = [r for r in d["metrics"] if r["metric"] == "events_per_s"]
assert len(rows) == 2 and all(r["cells"][0]["n"] == 6 and r["cells"][1]["n"] == 3 for r in rows), rows
assert all("verdict" in r["cells"][1] and "p" in r["cells"][1] for r in rows)
PY
expect 0 "compare files, text" "$VMB" compare "$T/base.json" "$T/half.json"
has "$T/out" "-50.0%" "the gap is -50%"
has "$T/out" "worse" "and significant, and worse"
lacks "$T/out" "$(printf '\033')" "no colour when stdout is not a terminal"
if command -v script >/dev/null 2>&1; then
	expect 0 "colour on a terminal" script -qec "'$VMB' compare '$T/base.json' '$T/half.json'" /dev/null
	has "$T/out" "$(printf '\033[31m')" "worse is red on a terminal"
	expect 0 "NO_COLOR on a terminal" env NO_COLOR=1 script -qec "'$VMB' compare '$T/base.json' '$T/half.json'" /dev/null
	lacks "$T/out" "$(printf '\033[3')" "and never with NO_COLOR"
else
	ok "colour on a terminal # skip: script(1) is not installed"
fi
expect 1 "--fail-if-worse 10 fails on the halved rate" "$VMB" compare "$T/base.json" "$T/half.json" --fail-if-worse 10
has "$T/err" "cpu.prime threads=1 max-prime=2000 events_per_s: -50.0%" "the regression is listed, params in run's order"
expect 0 "--fail-if-worse 60 does not" "$VMB" compare "$T/base.json" "$T/half.json" --fail-if-worse 60
expect 0 "--baseline 2 turns it around" "$VMB" compare "$T/base.json" "$T/half.json" --baseline 2 --format csv
check "csv: +100% better against the halved baseline" python3 - "$T/out" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["metric"] == "events_per_s" and r["baseline"] == "false"]
assert rows and all(abs(float(r["gap_pct"]) - 100) < 1e-6 and r["verdict"] == "better" for r in rows), rows
PY
expect 0 "unlike cases are never paired" "$VMB" compare "$T/a.json" "$T/c.json" --all
has "$T/out" "max-prime=3000" "C's case is listed"
check "each one-sided metric says which side it is missing from" python3 - "$T/out" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
case = None
seen = {}
for l in lines:
    if l.startswith("cpu.prime"):
        case = l
    elif l.startswith("  events_per_s"):
        seen[case] = l
a = [v for k, v in seen.items() if "max-prime=2000" in k]
c = [v for k, v in seen.items() if "max-prime=3000" in k]
assert len(a) == 2 and all(v.rstrip().endswith("missing in c.json") for v in a), a
assert len(c) == 1 and c[0].rstrip().endswith("missing in a.json"), c
missing = sum(1 for l in lines if "missing in " in l)
assert lines[-1] == f"c.json vs a.json: 0 better, 0 worse, 0 same, 0 inconclusive, {missing} missing", lines[-1]
PY
# Five operands with long names: the text keeps within 120 columns, its
# columns aligned, and closes with one tally line per operand.
for i in 1 2 3 4; do cp "$T/half.json" "$T/a-rather-long-operand-name-for-the-layout-$i.json"; done
expect 0 "compare five operands" "$VMB" compare "$T/base.json" "$T"/a-rather-long-operand-name-for-the-layout-*.json
check "120 columns at most, aligned, a tally per operand" python3 - "$T/out" <<'PY'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
assert max(len(l) for l in lines) <= 120, max(lines, key=len)
vals = [l for l in lines if "events/s" in l]
starts = {l.index("events/s") - len(l[:l.index("events/s")].split()[-1]) - 1 for l in vals}
assert len(starts) == 1, f"values start in columns {starts}"
tally = [l for l in lines if " vs base.json: " in l and l.endswith(" missing")]
assert len(tally) == 4 and all(l.endswith(": 0 better, 2 worse, 0 same, 0 inconclusive, 0 missing") for l in tally), tally
PY
long="$T/a-name-so-long-that-the-tally-line-of-compare-would-not-fit-in-one-hundred-and-twenty-columns.json"
cp "$T/half.json" "$long"
expect 0 "compare an operand with a very long name" "$VMB" compare "$T/base.json" "$long"
check "the tally wraps, indented, never cut with '~'" python3 - "$T/out" <<'PY'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
assert max(len(l) for l in lines) <= 120 and not any(l.endswith("~") for l in lines), lines
assert lines[-1].startswith("    ") and lines[-1].endswith(" missing"), lines[-2:]
assert (lines[-2] + " " + lines[-1].strip()).endswith(
    "-columns.json vs base.json: 0 better, 2 worse, 0 same, 0 inconclusive, 0 missing"), lines[-2:]
PY
expect 0 "compare two, text" "$VMB" compare "$T/base.json" "$T/half.json"
check "two operands: a column each, the verdict beside, a tally" python3 - "$T/out" <<'PY'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
assert max(len(l) for l in lines) <= 120
head = [l for l in lines if l.startswith("  METRIC")]
assert len(head) == 1 and "base.json (baseline)" in head[0] and head[0].rstrip().endswith("VS BASELINE"), head
rows = [l for l in lines if l.startswith("  events_per_s")]
assert len(rows) == 2 and all("-50.0% worse, 2.0x slower (p=" in l for l in rows), rows
assert lines[-1] == "half.json vs base.json: 0 better, 2 worse, 0 same, 0 inconclusive, 0 missing", lines[-1]
PY
# The lead states the finding first: threads=2 halved, threads=1 unchanged
# (the table's first row); the calibration's 1% noise tests one run a side.
python3 - "$T/base.json" "$T/half2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["id"] = "00000000-half2"
for c in d["suites"][0]["tests"][0]["cases"]:
    for m in c["metrics"]:
        if m["name"] == "events_per_s" and c["params"]["threads"] == 2:
            m["samples"] = [x * 0.5 for x in m["samples"]]
            m["summary"] = {"n": 3, "mean": sum(m["samples"]) / 3}
json.dump(d, open(sys.argv[2], "w"))
PY
expect 0 "compare: one case halved, one the same" "$VMB" compare "$T/base.json" "$T/half2.json"
check "the first sentence leads with the halved case, the same one after it, wrapped at 120" python3 - "$T/out" <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
lead = lines[:next(i for i, l in enumerate(lines) if l.startswith("#1 "))]
assert len(lead) == 2 and lead[1].startswith("    ") and max(len(l) for l in lead) <= 120, lead
# a case named by the parameters that tell it apart (max-prime is the same in both)
assert re.fullmatch(r"half2.json vs base.json: 2.00x worse cpu.prime events_per_s at threads=2 "
                    r"\(p=[0-9.e-]+\); the same within ±5% at threads=1 \(p=[0-9.e-]+\)\.",
                    " ".join(l.strip() for l in lead)), lead
PY
expect 0 "compare: nothing differs" "$VMB" compare "$T/base.json" "$T/base.json" --margin 0
check "and says so first" sh -c 'head -1 "$1" | grep -qx \
	"base.json vs base.json: no significant difference on any of 2 headline metrics of cpu.prime\."' sh "$T/out"
expect 0 "report: one case halved, one the same" "$VMB" report "$T/base.json" "$T/half2.json" -o "$T/lead.html"
has "$T/lead.html" '<p class="lead">half2.json vs base.json: 2.00x worse cpu.prime events_per_s at threads=2' \
	"the report's lead is the same finding"
expect 0 "markdown" "$VMB" compare "$T/base.json" "$T/half.json" --format markdown --metric 'events*'
has "$T/out" "| test | params | metric |" "markdown header"
# Names with the characters CSV and Markdown use: comma, quote, line break, bar.
odd="$T/we,ird \"na|me\"
x.json"
cp "$T/half.json" "$odd"
expect 0 "csv with an odd operand name" "$VMB" compare "$T/base.json" "$odd" --format csv
check "csv: RFC 4180, the name read back whole" python3 - "$T/out" <<'PY'
import csv, sys
raw = open(sys.argv[1], "rb").read()
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
inside = sum(1 for r in rows if r["operand"] != "base.json")  # the name's line break
assert raw.count(b"\n") - raw.count(b"\r\n") == inside and raw.endswith(b"\r\n"), "records end in CRLF"
names = {r["operand"] for r in rows}
assert names == {"base.json", 'we,ird "na|me"\nx.json'}, names
assert all(len(r) == 26 and None not in r for r in rows), rows
odd = [r for r in rows if r["operand"] != "base.json" and r["metric"] == "events_per_s"]
assert odd and all(abs(float(r["gap_pct"]) + 50) < 1e-6 and r["verdict"] == "worse" for r in odd), odd
PY
expect 0 "markdown with an odd operand name" "$VMB" compare "$T/base.json" "$odd" --format markdown
check "markdown: the bar escaped, no line break in a row" python3 - "$T/out" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n\n")[0].splitlines()  # the table; notes follow a blank line
cols = {len(l.replace("\\|", "").split("|")) for l in lines}
assert len(cols) == 1, cols
assert 'we,ird "na\\|me" x.json' in lines[0], lines[0]
PY
# One run a side with no calibration cannot be tested: never "same"
python3 - "$T/half.json" "$T/one.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["suites"][0]["tests"][0]["cases"]:
    for m in c["metrics"]:
        m["samples"] = m["samples"][:1]
        m["summary"] = {"n": 1, "mean": m["samples"][0]}
d["id"] = "00000000-one"
json.dump(d, open(sys.argv[2], "w"))
PY
expect 0 "csv with one run a side, no calibration" "$VMB" compare "$T/base.json" "$T/one.json" --format csv --all \
	--no-calibration
check "csv: one run a side is untested, not the same" python3 - "$T/out" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1], newline="")) if r["baseline"] == "false"]
assert rows and all(r["verdict"] == "untested" and r["p"] == "" and r["basis"] == "none" for r in rows), rows
PY
expect 0 "json with one run a side, no calibration" "$VMB" compare "$T/base.json" "$T/one.json" --format json --all \
	--no-calibration
check "json: untested, and why" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert all(r["cells"][1]["verdict"] == "untested" and r["cells"][1]["basis"].startswith("none") for r in d["metrics"]), d' "$T/out"
expect 0 "text with one run a side, no calibration" "$VMB" compare "$T/base.json" "$T/half.json" --no-calibration
has "$T/out" "run-to-run noise is unknown" "the one-run caveat"
has "$T/out" "vmbench calibrate" "and how to fix it"
expect 0 "--fail-if-worse passes on one run a side without calibration" "$VMB" compare "$T/base.json" \
	"$T/half.json" --no-calibration --fail-if-worse 10
expect 0 "with the calibration: one run a side is tested" "$VMB" compare "$T/base.json" "$T/one.json" --format csv
check "csv: the calibration is the basis" python3 - "$T/out" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1], newline="")) if r["baseline"] == "false"]
assert rows and all(r["basis"] == "calibration" and r["verdict"] == "worse" for r in rows), rows
PY
expect 2 "a --metric that matches nothing" "$VMB" compare "$T/base.json" "$T/half.json" --metric 'zzz*' --fail-if-worse 1
has "$T/err" "no metric of these runs matches --metric zzz*" "says so, instead of passing on nothing"
expect 2 "--baseline that is no operand" "$VMB" compare "$T/base.json" "$T/half.json" --baseline zz
expect 2 "a selector nothing matches" "$VMB" compare hv=a hv=nope
has "$T/err" "no stored run has the labels hv=nope" "says which"
expect 2 "a malformed selector" "$VMB" compare hv=a "hv="
expect 2 "one operand only" "$VMB" compare hv=a

expect 0 "export openmetrics" "$VMB" export "$T/a.json" --format openmetrics
check "valid OpenMetrics text, a gauge per summary with labels" python3 - "$T/out" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[-1] == "# EOF", lines[-1]
sample = re.compile(r'^[a-zA-Z_][a-zA-Z0-9_]*\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)+\} -?[0-9.e+-]+$')
typed, families, n = set(), [], 0
for l in lines[:-1]:
    if l.startswith("# TYPE "):
        name = l.split()[2]
        assert name not in typed, f"family {name} declared twice"
        typed.add(name)
        families.append(name)
    elif l.startswith("# UNIT "):
        _, _, name, unit = l.split()
        assert name == families[-1] and name.endswith("_" + unit), l
    elif l.startswith("# HELP "):
        pass
    else:
        assert sample.match(l), l
        assert l.split("{")[0] == families[-1], "a sample outside its family"
        n += 1
assert "vmbench_cpu_prime_events_per_s" in typed and n > 20
assert any('stat="p99"' in l and 'hv="a"' in l and 'threads="2"' in l for l in lines)
assert "vmbench_cpu_prime_latency_seconds" in typed and "# UNIT vmbench_cpu_prime_latency_seconds seconds" in lines
assert not any("run_id=" in l for l in lines), "run_id only with --run-id"
PY
expect 0 "export csv" "$VMB" export "$T/a.json" --format csv
# 2 cases x (events_per_s, latency, its 5 percentiles and its stddev) + parallel_efficiency
check "csv has one row per metric" test "$(($(wc -l < "$T/out") - 1))" -eq 17
expect 0 "export json is the document" "$VMB" export "$T/a.json"
check "identical" python3 -c 'import json,sys; assert json.load(open(sys.argv[1])) == json.load(open(sys.argv[2]))' \
	"$T/out" "$T/a.json"
expect 2 "export of a selector that matches two runs" "$VMB" export hv=a

expect 0 "report" "$VMB" report "$T/base.json" "$T/half.json" hv=b -o "$T/r.html"
expect 2 "report never overwrites" "$VMB" report "$T/a.json" -o "$T/r.html"
lacks "$T/r.html" "http://" "no external http resource"
lacks "$T/r.html" "https://" "no external https resource"
lacks "$T/r.html" "<script" "no script"
# A result a guest sent in is data, never markup: every string it carries
# (names, params and their keys, labels, notes, fingerprint, reasons) holds
# script, quotes and ampersands, and so does the operand's file name.
evil="$T/x\"'<i>&.json"
python3 - "$T/a.json" "$evil" <<'PY'
import json, sys
P = "<script>alert(1)</script>\"'&<img src=x onerror=alert(2)>"
KEEP = {"schema", "status", "direction", "unit", "started", "ended", "start", "id", "version"}  # validated enumerations and timestamps
def evil(x, key=None):
    if isinstance(x, dict):
        keyed = key in ("params", "labels", "notes", "options")
        return {(k + P if keyed else k): (v if k in KEEP else evil(v, k)) for k, v in x.items()}
    if isinstance(x, list):
        return [evil(v, key) for v in x]
    return x + P if isinstance(x, str) else x
d = json.load(open(sys.argv[1]))
d["suites"][0]["notes"] = {"note": "n"}
d["suites"].append({"name": "net", "status": "skipped", "reason": "no namespace", "options": {}, "notes": {},
                    "tests": []})
json.dump(evil(d), open(sys.argv[2], "w"))
PY
expect 0 "report on a document full of markup" "$VMB" report "$T/a.json" "$evil" -o "$T/evil.html"
has "$T/evil.html" "threads&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;&lt;img" "a param key, escaped"
has "$T/evil.html" "cpu&lt;script&gt;" "the suite name, escaped"
has "$T/evil.html" "x&quot;&#39;&lt;i&gt;&amp;.json" "the operand's file name, escaped"
check "no markup from the document: only the report's own tags and attributes" python3 - "$T/evil.html" <<'PY'
import html.parser, sys
TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "b", "span", "small", "br", "div", "table",
        "thead", "tbody", "tr", "th", "td", "details", "summary", "figure", "figcaption", "svg", "g", "rect", "line",
        "path", "polyline", "circle", "text"}
class P(html.parser.HTMLParser):
    texts = []
    def handle_starttag(self, tag, attrs):
        assert tag in TAGS, f"<{tag}> from the document"
        for k, v in attrs:
            assert not k.startswith("on") and k not in ("src", "href"), f"attribute {k}={v} on <{tag}>"
    def handle_data(self, d):
        self.texts.append(d)
p = P()
p.feed(open(sys.argv[1]).read())
text = "".join(p.texts)
for want in ("<script>alert(1)</script>\"'&<img src=x onerror=alert(2)>", "vm", "no namespace"):
    assert want in text, f"{want!r} is not shown as text"
PY
lacks "$T/evil.html" "<script" "no script tag"
lacks "$T/evil.html" "<img" "no img tag"
lacks "$T/evil.html" "<i>" "no tag from the file name"
# The report's reading aids: a tally sentence per operand, p99 beside the
# headline rate, one-sided rows in their own collapsed section, and legends
# naming only the operands drawn in the chart.
expect 0 "report on unlike cases" "$VMB" report "$T/a.json" "$T/c.json" "$T/half.json" -o "$T/r2.html"
check "tally, p99, one-sided section, legends" python3 - "$T/r2.html" <<'PY'
import re, sys
html = open(sys.argv[1]).read()
assert re.search(r'<p class="tally"><b>c\.json</b> against <b>a\.json</b>: <span class="better">0 better</span>, '
                 r'<span class="worse">0 worse</span>, <span class="same">0 the same</span> \(within &plusmn;5%\), 0 with '
                 r'no significant difference, 3 measured on one side only; of 3 headline metrics\.</p>', html), "c's tally"
assert re.search(r'<p class="tally"><b>half\.json</b> against <b>a\.json</b>: .*; of 2 headline metrics\.</p>', html)
summary = re.search(r'<table class="cmp" id="summary">.*?<tbody>(.*?)</tbody>', html, re.S).group(1)
assert "max-prime=3000" not in summary and summary.count("<tr>") == 0, "one-sided rows are not in the summary"
one = re.search(r'<details class="onesided"><summary>3 metrics measured in only some of the operands \(all of them\)'
                r'</summary>(.*?)</details>', html, re.S)
assert one and one.group(1).count("<tr><td") == 3, "they are in their own collapsed section"
assert "missing in c.json" in one.group(1) and "missing in a.json" in one.group(1), "saying which side lacks them"
assert re.search(r'data-label="a\.json">[^<]*events/s <small>±[0-9.]+%\(r\)</small><br><small>p99 latency [0-9.]+ [mu]?s</small>',
                 one.group(1)), "p99 of the case's latency beside the rate"
figs = re.findall(r'<figure>(.*?)</figure>', html, re.S)
lat = [f for f in figs if "latency percentiles" in f]
only_c = [f for f in lat if "max-prime=3000" in f]
assert len(only_c) == 1, len(only_c)
legend = re.findall(r'font-size="12">([^<]*)</text>', only_c[0])
assert "c.json" in legend and "a.json" not in legend and "half.json" not in legend, legend
both = [f for f in lat if "threads=2 max-prime=2000" in f]
legend = re.findall(r'font-size="12">([^<]*)</text>', both[0])
assert "a.json" in legend and "half.json" in legend and "c.json" not in legend, legend
# case labels too wide for their bars: numbers under them, the labels in the caption
bars = [f for f in figs if "per case" in f]
assert len(bars) == 1 and "per case (1 = threads=1 max-prime=2000; 2 = threads=2 max-prime=2000; " \
    "3 = threads=1 max-prime=3000)</figcaption>" in bars[0], bars
assert re.search(r'font-size="11">3</text>', bars[0]) and "threads=1 max-prime=3000</text>" not in bars[0]
PY
expect 0 "report on five operands with long names" "$VMB" report "$T/base.json" "$T"/a-rather-long-operand-name-for-the-layout-*.json -o "$T/r5.html"
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$chromium" ]; then
	flags="--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking
		--disable-component-update --disable-sync"
	# shellcheck disable=SC2086
	timeout 120 "$chromium" $flags --user-data-dir="$T/chr1" --window-size=1200,2400 \
		--screenshot="$T/shot.png" "file://$T/r.html" >/dev/null 2>&1
	# shellcheck disable=SC2086
	timeout 120 "$chromium" $flags --user-data-dir="$T/chr2" --dump-dom "file://$T/r.html" > "$T/dom.html" 2>/dev/null
	check "the screenshot is not blank" python3 - "$T/shot.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
assert len(set(raw)) > 50, f"only {len(set(raw))} distinct byte values: blank"
PY
	check "the DOM has the expected charts and table rows" python3 - "$T/dom.html" "$VMB" "$T" <<'PY'
import json, re, subprocess, sys
dom, vmb, t = sys.argv[1:4]
html = open(dom).read()
cmp = json.loads(subprocess.run([vmb, "compare", f"{t}/base.json", f"{t}/half.json", "hv=b", "--format", "json",
                                 "--all"], capture_output=True, text=True, check=True).stdout)
head = [r for r in cmp["metrics"] if r["headline"]]
groups = {(r["suite"], r["test"], r["metric"]) for r in head}
latency = [r for r in cmp["metrics"] if r["unit"] == "ns" and not re.search(r"\.(p[0-9.]+|stddev)$", r["metric"])]
want = len(groups) + min(len(latency), 12)  # bars per group (2 cases: no curve) + latency charts
got = len(re.findall(r'<svg class="chart"', html))
assert got == want, f"{got} charts, expected {want}"
summary = re.search(r'<table class="cmp" id="summary">.*?<tbody>(.*?)</tbody>', html, re.S).group(1)
assert summary.count("<tr>") == len(head), (summary.count("<tr>"), len(head))
assert html.count("<details>") >= 4  # all metrics + one per run (1 + 1 + 1)
PY
	# The verdicts on screen, not behind a horizontal scroll, at 1200 px and on
	# a phone (400 px): the report measured in an iframe by a page of the test's own.
	cat > "$T/measure.html" <<'EOF'
<!doctype html><html><body style="margin:0">
<iframe id="w1200" src="r5.html" style="width:1200px;height:900px;border:0"></iframe>
<iframe id="w400" src="r5.html" style="width:400px;height:900px;border:0"></iframe>
<pre id="out"></pre>
<script>
window.onload = () => {
  const res = {};
  for (const id of ["w1200", "w400"]) {
    const d = document.getElementById(id).contentDocument;
    res[id] = {width: d.documentElement.clientWidth,
               cells: [...d.querySelectorAll("#summary td.vd")].map(c => {
                 const r = c.getBoundingClientRect(); return [r.left, r.right, c.textContent]; })};
  }
  document.getElementById("out").textContent = JSON.stringify(res);
};
</script></body></html>
EOF
	# shellcheck disable=SC2086
	timeout 120 "$chromium" $flags --user-data-dir="$T/chr3" --allow-file-access-from-files --virtual-time-budget=5000 \
		--dump-dom "file://$T/measure.html" > "$T/measure.out" 2>/dev/null
	check "every verdict of the summary within the window at 1200 px and at 400 px" python3 - "$T/measure.out" <<'PY'
import html, json, re, sys
m = re.search(r'<pre id="out">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
assert m, "the measuring page did not run"
res = json.loads(html.unescape(m.group(1)))
for w, r in res.items():
    assert len(r["cells"]) == 2 * 4, (w, len(r["cells"]))  # 2 cases x 4 operands against the baseline
    for left, right, text in r["cells"]:
        assert 0 <= left and right <= r["width"] + 0.5, f"{w}: verdict '{text}' at {left:.0f}..{right:.0f} px"
        assert "worse" in text, text
PY
else
	skip "report rendered in Chromium" "chromium is not installed (scripts/deps.sh test installs it)"
fi
# calibrate: runs of their own, the noise stored beside the store, used by
# compare for operands of one run
cal="cpu.prime --quick --time 0.05 --repeat 2"
expect 2 "calibrate an unknown suite" "$VMB" calibrate nosuch --db "$T/cal.db"
has "$T/err" "unknown suite 'nosuch'" "says which"
# --repeat 1 as run takes it: the noise is between the runs
expect 0 "calibrate two short runs" "$VMB" calibrate cpu.prime --quick --time 0.05 --repeat 1 --runs 2 --db "$T/cal.db"
has "$T/out" "cannot be told from noise with 3 runs a side" "the minimal detectable difference"
check "what is stored is said as what was printed and the rest" python3 - "$T/out" "$T/cal.db.calibration" <<'PY'
import json, os, re, sys
lines = open(sys.argv[1]).read().splitlines()
printed = [l for l in lines if "cannot be told from noise" in l]
m = re.match(r"stored the run-to-run noise of (\d+) metrics \(the (\d+) headline ones above, and the others\) of (\d+) cases? for ", lines[-1])
assert m and int(m.group(2)) == len(printed), lines
d = json.load(open(os.path.join(sys.argv[2], os.listdir(sys.argv[2])[0])))
cases = {(c["suite"], c["test"], c["params"]) for c in d["cases"]}
assert int(m.group(1)) == len(d["cases"]) and int(m.group(3)) == len(cases), (m.groups(), len(d["cases"]), cases)
PY
check "one calibration file, valid" python3 - "$T/cal.db.calibration" <<'PY'
import json, os, sys
files = os.listdir(sys.argv[1])
assert len(files) == 1 and files[0].endswith(".json"), files
d = json.load(open(os.path.join(sys.argv[1], files[0])))
assert d["schema"] == "vmbench-calibration" and d["schema_version"] == 1 and d["runs"] == 2
names = {(c["test"], c["metric"]) for c in d["cases"]}
assert ("prime", "events_per_s") in names, names
assert all(c["runs"] == 2 and c["cv_between"] >= 0 for c in d["cases"]), d["cases"]
PY
expect 0 "one run" "$VMB" run $cal --no-store --json "$T/cal1.json" -q
expect 0 "another run" "$VMB" run $cal --no-store --json "$T/cal2.json" -q
expect 0 "compare one run a side with the calibration" "$VMB" compare "$T/cal1.json" "$T/cal2.json" --db "$T/cal.db" \
	--format csv
check "the calibration is the basis of every verdict" python3 - "$T/out" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1], newline="")) if r["baseline"] == "false"]
assert rows and all(r["basis"] == "calibration" and r["verdict"] != "untested" and r["mdd_pct"] for r in rows), rows
PY
printf '{"schema": "vmbench-calibration", "schema_version": 1, "cases": [{"machine": 1}]}' \
	> "$T/cal.db.calibration/20990101T000000Z-1.json"
expect 0 "a broken calibration file is skipped, not fatal" "$VMB" compare "$T/cal1.json" "$T/cal2.json" --db "$T/cal.db"
has "$T/err" "cases[0].machine: expected a string; ignored" "and named"
# percentiles of every latency metric, per repetition, are comparable metrics:
# the example of compare --help works
expect 0 "compare --help names latency.p99" "$VMB" compare --help
has "$T/out" "latency.p99" "the example is there"
pd="--disk.dir $T --disk.size 16m --disk.file-size 8m --time 0.05 --warmup 0 --disk.ramp 0 --repeat 2 --disk.iodepth 1"
expect 0 "a short randread" "$VMB" run disk.randread $pd --no-store -q --json "$T/p1.json"
expect 0 "another" "$VMB" run disk.randread $pd --no-store -q --json "$T/p2.json"
expect 0 "compare --metric latency.p99" "$VMB" compare "$T/p1.json" "$T/p2.json" --metric latency.p99 --format csv
check "p99 per repetition, one row per operand" python3 - "$T/out" "$T/p1.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 2 and all(r["metric"] == "latency.p99" and r["unit"] == "ns" and r["n"] == "2" for r in rows), rows
d = json.load(open(sys.argv[2]))
ms = {m["name"]: m for m in d["suites"][0]["tests"][0]["cases"][0]["metrics"]}
assert {"latency.p50", "latency.p90", "latency.p95", "latency.p99", "latency.p99.9"} <= set(ms), set(ms)
assert all(a <= b for a, b in zip(ms["latency.p50"]["samples"], ms["latency.p99"]["samples"]))
PY
# a schema 1 document (one run, no noise readings) still loads and compares,
# with the one-run caveat
v1="$SRC/tests/fixtures/store/labels.json"
check "the fixture is schema version 1" python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["schema_version"] == 1' "$v1"
expect 0 "compare schema 1 documents" "$VMB" compare "$v1" "$v1" --no-calibration
has "$T/out" "untested: one run, noise unknown" "no verdict from repetitions"
has "$T/out" "run-to-run noise is unknown" "and the caveat"
finish
