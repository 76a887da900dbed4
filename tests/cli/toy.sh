#!/bin/sh
# The toy suite end to end (issue 24): a suite added by docs/extending.md's
# recipe (tests/toy/toy.c, X(toy) in src/suites/list.h behind the test-only
# VMB_TEST_SUITES, its line in tests/meson.build) is listed, run, stored,
# compared and reported like any other, with values known in advance.
# $1 is the test build with the toy; $3 the shipped binary, without it.
. "$(dirname "$0")/lib.sh"
SHIPPED=$3

expect 0 "list" "$VMB" list
has "$T/out" "toy.level" "list names the toy's tests"
has "$T/out" "toy.spread" "both of them"
has "$T/out" "--toy.count N" "and its options, from its table"
expect 0 "the shipped binary's list" "$SHIPPED" list
lacks "$T/out" "toy" "the shipped binary has no toy suite"
expect 2 "the shipped binary refuses to run it" "$SHIPPED" run toy --no-store -q

fast="--time 0.01 --warmup 0 --repeat 3 --runs 3 -q"
# Little's law: 1,000 requests/s of 1 ms each on one connection is one in
# flight; 1,500 is 1.5, which no closed loop does: refused with the figures
expect 0 "a closed loop within its bound" "$VMB" run toy.loop --toy.level 1000 --time 0.01 --warmup 0 \
	--repeat 2 --no-store -q
expect 1 "a closed loop beyond it" "$VMB" run toy.loop --toy.level 1500 --time 0.01 --warmup 0 --repeat 2 \
	--no-store -q
has "$T/err" "toy.loop: 1500 requests/s at mean latency 1 ms is 1.50 in flight on 1 connection: more than a closed loop allows" \
	"the runner says which figures break it"
expect 0 "run side a" "$VMB" run toy $fast --label side=a
expect 0 "run side b" "$VMB" run toy $fast --label side=b --toy.level 200
expect 0 "results" "$VMB" results
check "six runs stored, each with the toy suite" python3 - "$T/out" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:] if l.strip()]
assert len(rows) == 6, rows
assert all(r[-1] == "toy" for r in rows), rows
PY
expect 0 "export the first run" "$VMB" export 1 --format json
check "the stored document holds what the toy reported" python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
(s,) = d["suites"]
assert s["name"] == "toy", s["name"]
tests = {t["name"]: t for t in s["tests"]}
assert tests["loop"]["status"] == "ok", tests["loop"]
(c,) = tests["level"]["cases"]
m = {x["name"]: x for x in c["metrics"]}
assert m["level"]["samples"] == [100.0, 100.0, 100.0], m["level"]
(c,) = tests["spread"]["cases"]
assert c["params"] == {"count": 100}, c["params"]
m = {x["name"]: x for x in c["metrics"]}
assert m["latency"]["samples"] == [149.5] * 3, m["latency"]["samples"]
assert "latency.p99" in m, sorted(m)
PY
expect 0 "compare the two sides" "$VMB" compare side=a side=b --format json
check "compare pairs the toy's cases: level +100% better, latency +66.9% worse" python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = {(r["test"], r["metric"]): r for r in d["metrics"] if r["suite"] == "toy"}
lv = rows[("level", "level")]["cells"]
assert [c["mean"] for c in lv] == [100.0, 200.0] and lv[1]["gap_pct"] == 100.0, lv
assert lv[1]["verdict"] == "better", lv[1]
lat = rows[("spread", "latency")]["cells"]
assert [c["mean"] for c in lat] == [149.5, 249.5], lat
assert abs(lat[1]["gap_pct"] - 100.0 * 100 / 149.5) < 1e-9 and lat[1]["verdict"] == "worse", lat[1]
PY
expect 0 "compare, text" "$VMB" compare side=a side=b
has "$T/out" "+100.0%" "the text table shows the gap"
expect 0 "report" "$VMB" report side=a side=b -o "$T/r.html"
check "the report holds the toy's tests and metrics" python3 - "$T/r.html" <<'PY'
import sys
html = open(sys.argv[1]).read()
for s in ("toy.level", "toy.spread", ">level<", "latency.p99"):
    assert s in html, s
PY

# The toy lab rows (tests/toy/toylab.c, behind VMB_TEST_LAB), without booting:
# the NIC model toy-nic, one row of LAB_DEVICES, and the host-measured suite
# toyhost, one row of lab_host_rows (tests/unit/test_toylab.c builds their
# QEMU command line and measures toyhost from a configuration)
expect 0 "list --lab" "$VMB" list --lab
has "$T/out" "nic=toy-nic" "the lab lists the toy NIC model from its row"
has "$T/out" "-device e1000,netdev=n0,mac=52:54:00:70:6f:79" "with the QEMU arguments of its row"
has "$T/out" ",e1000-82545em,toy-nic (default none)" "a value of the matrix key nic"
expect 0 "the shipped binary's list --lab" "$SHIPPED" list --lab
lacks "$T/out" "toy" "the shipped binary has no toy lab row"
expect 2 "the shipped binary refuses nic=toy-nic" "$SHIPPED" lab run --matrix "accel=tcg nic=toy-nic" -q
has "$T/err" "toy-nic" "saying which value"
expect 0 "list" "$VMB" list
has "$T/out" "toyhost.vcpus" "the toy host-measured suite is listed"
expect 2 "lab contend refuses a host-measured suite" "$VMB" lab contend --matrix accel=tcg --suites toyhost -q
has "$T/err" "toyhost is measured by 'lab run' around a guest" "as the row of the host-measured table says"
# planned, not booted: a --baseline that names no configuration is refused
# with the configurations the matrix made, before anything is built
expect 2 "lab run plans a matrix with toy-nic and toyhost" "$VMB" lab run \
	--matrix "accel=tcg nic=toy-nic,e1000 smp=1" --suites cpu.prime,toyhost --baseline nic=none -q \
	--db "$T/lab.db" --cache "$T/cache"
has "$T/err" "its configurations: accel=tcg nic=toy-nic smp=1; accel=tcg nic=e1000 smp=1" \
	"the configurations are named by their labels, toy-nic's among them"
finish
