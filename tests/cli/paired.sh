#!/bin/sh
# compare's paired verdicts on stored rounds: configurations measured in the
# same rounds are compared round by round, the others by Welch on run means;
# --pair-by, --stat, and the one figure per cell in every format. The rounds
# are made from one real cheap run (no guest boots), which also shows the
# warm-up's record.
. "$(dirname "$0")/lib.sh"

expect 0 "one cheap run" "$VMB" run cpu.prime --time 0.05 --warmup 0.03 --warmup-max 0.3 --repeat 3 \
	--cpu.max-prime 2000 --threads 1 --json "$T/a.json" --no-store -q
check "the warm-up: how long it took, and whether it ended steady" python3 - "$T/a.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["suites"][0]["tests"][0]["cases"][0]
assert 0.03 <= c["warmup_s"] < 1 and isinstance(c["warmup_steady"], bool), c
assert c["warmup_steady"] or c["warmup_s"] >= 0.25, c  # not steady only when --warmup-max ran out
PY
# Three rounds of three configurations: every round moves all of them by one
# factor (1, 1.5, 0.5), fast is 2x slow, same is slow (within 1%). GROUPS
# "one": the rounds of one run group (a lab session); "each": a run group per
# configuration (separate `run --runs`), whose rounds only --pair-by pairs;
# "hand": no run group at all, each run labelled round=N (interleaved by hand).
rounds() { # rounds DIR GROUPS
	mkdir -p "$1" && python3 - "$T/a.json" "$1" "$2" <<'PY'
import copy, json, sys, uuid
d = json.load(open(sys.argv[1]))
factor = [1.0, 1.5, 0.5]
own = {"slow": [1.0, 0.99, 1.01], "same": [1.01, 1.0, 0.99], "fast": [0.99, 1.02, 1.0]}
scale = {"slow": 1000, "same": 1000, "fast": 2000}
for k in range(3):
    for cfg in scale:
        x = copy.deepcopy(d)
        x["id"] = str(uuid.uuid4())
        x["labels"] = {"cfg": cfg, "batch": "b%d" % (k + 1), "set": sys.argv[3]}
        x["run_group"] = {"id": "g-" + (cfg if sys.argv[3] == "each" else "one"), "round": k + 1, "rounds": 3,
                          "seed": 1, "order": []}
        if sys.argv[3] == "hand":
            del x["run_group"]
            x["labels"]["round"] = str(k + 1)
        c = x["suites"][0]["tests"][0]["cases"][0]
        m = [m for m in c["metrics"] if m["name"] == "events_per_s"][0]
        c["metrics"] = [m]
        v = scale[cfg] * factor[k] * own[cfg][k]
        xs = m["samples"] = [v * 0.995, v, v * 1.005]
        mu = sum(xs) / 3
        sd = (sum((y - mu) ** 2 for y in xs) / 2) ** 0.5
        h = 4.302652729749464 * sd / 3 ** 0.5  # t(0.975, 2)
        m["summary"] = {"n": 3, "mean": mu, "median": v, "stddev": sd, "cv": sd / mu, "min": xs[0], "max": xs[2],
                        "ci95_low": mu - h, "ci95_high": mu + h}
        json.dump(x, open("%s/%s-%d.json" % (sys.argv[2], cfg, k + 1), "w"))
PY
}
rounds "$T/one" one && rounds "$T/each" each && rounds "$T/hand" hand
for f in "$T"/one/*.json "$T"/each/*.json "$T"/hand/*.json; do
	"$VMB" import "$f" >/dev/null 2>&1 || not_ok "import $f"
done

expect 0 "rounds of one group, json" "$VMB" compare cfg=slow,set=one cfg=fast,set=one cfg=same,set=one --format json
check "paired: 2x found from 3 drifting rounds, the same one called the same" python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["pair_by"] == "auto", d["pair_by"]
base, fast, same = d["metrics"][0]["cells"]
assert fast["verdict"] == "better" and fast["verdict_test"] == "paired-t" and fast["pairs"] == 3, fast
assert fast["why"] == "paired t on 3 rounds measured together", fast["why"]
assert abs(fast["gap_pct"] - 100.66) < 0.01, fast["gap_pct"]  # geometric mean of 1.98, 2.0606, 1.9802
assert fast["p"] < 0.01 and fast["p_exact"] == 0.25, fast
assert same["verdict"] == "same" and same["verdict_test"] == "paired-t", same
# one figure per cell: the run means' mean and CI, said so; the repetitions' apart
assert base["interval_of"] == "runs" and abs(base["mean"] - (1000 + 1485 + 505) / 3) < 1e-6, base
assert abs(base["reps"]["mean"] - base["mean"]) < 1e-9 and base["reps"]["ci95_high"] != base["ci95_high"], base
PY
expect 0 "the same, --pair-by none" "$VMB" compare cfg=slow,set=one cfg=fast,set=one --pair-by none --format json
check "unpaired: Welch on run means misses it, and says why" python3 - "$T/out" <<'PY'
import json, sys
fast = json.load(open(sys.argv[1]))["metrics"][0]["cells"][1]
assert fast["verdict"] == "inconclusive" and fast["verdict_test"] == "welch" and "pairs" not in fast, fast
assert fast["why"] == "Welch on run means (--pair-by none)", fast["why"]
PY
expect 0 "text, paired" "$VMB" compare cfg=slow,set=one cfg=fast,set=one
has "$T/out" "+100.7% better, 2.0x faster (p=" "text: the ratio beside the verdict that backs it"
has "$T/out" "verdicts (1): paired t on 3 rounds measured together" "text: which test, and why"
expect 0 "text, unpaired" "$VMB" compare cfg=slow,set=one cfg=fast,set=one --pair-by none
has "$T/out" "no significant difference (p=" "text: unpaired is inconclusive"
lacks "$T/out" "2.0x" "text: no ratio beside 'no significant difference'"

expect 0 "separate run groups" "$VMB" compare cfg=slow,set=each cfg=fast,set=each --format csv
check "csv: not measured in the same rounds: Welch" python3 - "$T/out" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
r = [r for r in rows if r["baseline"] == "false"][0]
assert r["verdict_test"] == "welch" and r["why"] == "Welch on run means (not measured in the same rounds)", r
assert r["interval_of"] == "runs" and r["verdict"] == "inconclusive", r
PY
for by in round batch hand; do
	set=each
	[ "$by" != hand ] || { by=round set=hand; } # round=N labels on runs of no group: --pair-by round reads them
	expect 0 "$set runs, --pair-by $by" "$VMB" compare cfg=slow,set=$set cfg=fast,set=$set --pair-by $by \
		--format csv
	check "csv: --pair-by $by pairs them" python3 - "$T/out" "$by" <<'PY'
import csv, sys
r = [r for r in csv.DictReader(open(sys.argv[1])) if r["baseline"] == "false"][0]
assert r["verdict_test"] == "paired-t" and r["pairs"] == "3" and r["verdict"] == "better", r
assert r["why"] == "paired t on 3 rounds measured together (by %s)" % sys.argv[2], r["why"]
PY
done
expect 0 "--pair-by a label no run has" "$VMB" compare cfg=slow,set=each cfg=fast,set=each --pair-by nosuch
has "$T/out" "verdicts (1): Welch on run means (fewer than 2 rounds pair by nosuch)" "an unusable --pair-by is said"
expect 2 "--pair-by with a bad key" "$VMB" compare cfg=slow,set=one cfg=fast,set=one --pair-by 'a b'
has "$T/err" "give auto, round, none or a label's key" "--pair-by: the valid forms named"

expect 0 "--stat trimmed, csv" "$VMB" compare cfg=slow,set=one cfg=fast,set=one --stat trimmed --format csv
check "csv: the trimmed mean drops the largest and smallest run, the verdict stays the mean's" python3 - "$T/out" <<'PY'
import csv, sys
base, fast = list(csv.DictReader(open(sys.argv[1])))
assert abs(float(base["trimmed_mean"]) - 1000) < 1e-6 and abs(float(fast["trimmed_mean"]) - 1980) < 1e-6, base
assert abs(float(fast["trimmed_gap_pct"]) - 98) < 1e-6 and base["trimmed_gap_pct"] == "", fast
assert abs(float(base["mean"]) - 996.6666666666666) < 1e-6 and fast["verdict_test"] == "paired-t", base
PY
expect 0 "--stat median, text" "$VMB" compare cfg=slow,set=one cfg=fast,set=one --stat median
has "$T/out" "median of the run means (descriptive, for studies that report it; not tested" "text: --stat is labelled"
has "$T/out" "events_per_s: cfg=slow,set=one 1000 events/s; cfg=fast,set=one 1980 events/s (+98.0%)" "text: the medians and their gap"
expect 0 "report of the paired rounds" "$VMB" report cfg=slow,set=one cfg=fast,set=one -o "$T/r.html"
has "$T/r.html" "2.0x faster" "report: the paired verdict's ratio"
has "$T/r.html" "paired t on 3 rounds measured together" "report: which test, and why"
check "report: the environments as the facts that differ, in words, every run's folded" python3 - "$T/r.html" <<'PY'
import re, sys
env = open(sys.argv[1]).read().split("<h2>Environments</h2>")[1]
differ = re.search(r'<table class="env">(.*?)</table>', env, re.S).group(1)
rows = re.findall(r"<tr><th>([^<]*)</th>", differ.split("<tbody>")[1])
assert rows == ["labels"], rows  # the runs differ in their labels only
assert "cfg=slow, batch=b1, set=one" in differ and "cfg=fast, batch=b1, set=one" in differ, differ
assert "<details><summary>every run&#39;s environment</summary>" in env or "<details><summary>every run's environment" in env
assert '{"' not in env and "&quot;:" not in env, "no raw JSON"
PY

echo "1..$n"
[ "$fails" -eq 0 ]
