#!/bin/sh
# lab report without booting a guest: stored lab sessions (documents of
# real host runs, labelled and given fixed values as lab run stores them)
# reported by session, against a chosen baseline, with the ratio between the
# configurations first, the host beside them (off the guests' scale in the
# charts), the lab's advice, the net.http sweep per NIC model; and lab run's
# --baseline refused before any boot.
. "$(dirname "$0")/lib.sh"

db="$T/lab.db"
fast="--time 0.05 --warmup 0 --repeat 3 --no-store -q"
expect 0 "a disk.randread document to label" "$VMB" run disk.randread --disk.dir "$T" --disk.size 16m \
	--disk.iodepth 16 $fast --json "$T/disk.json"
expect 0 "a net.http sweep document to label" "$VMB" run net.http --net.connections 1,4,8 $fast --json "$T/http.json"
# Sessions, oldest first: one stored before sessions had ids (the label
# config=NAME), A (one run a configuration), C (the NICs' http sweep), B
# (two rounds). Guests: disk=ide 10k IOPS, disk=virtio-blk 14k (1.4x); the
# host 160k, which would flatten them on one scale.
python3 - "$T" <<'PY'
import copy, json, os, sys, uuid
t = sys.argv[1]
disk = json.load(open(f"{t}/disk.json"))
http = json.load(open(f"{t}/http.json"))
keys = {"accel": "tcg", "arch": "x86_64", "disk": "virtio-blk", "nic": "none", "smp": "1", "mem": "512M", "pin": "off"}
n = 0

def doc(base, config, labels, value, session=None, old=False):
    global n
    d = copy.deepcopy(base)
    d["id"] = str(uuid.uuid4())
    if config != "host":
        d["fingerprint"]["hypervisor"] = {"name": "QEMU TCG"}
        labels = dict(keys, **labels)
    if old:
        labels["config"] = config
    else:
        d["lab_config"] = config
        labels["lab"] = session
    d["labels"] = labels
    for s in d["suites"]:
        for te in s["tests"]:
            for c in te["cases"]:
                for m in c["metrics"]:
                    v = value(s["name"], te["name"], c["params"], m["name"])
                    if v is not None:
                        m["samples"] = [v * 0.99, v, v * 1.01]
                        m["summary"] = {"n": 3, "mean": v}
                        m.pop("histogram", None)
    n += 1
    json.dump(d, open(f"{t}/docs/{n:02d}.json", "w"))

def iops(x):
    return lambda s, te, p, m: x if m == "iops" else None

def http_rate(x):
    return lambda s, te, p, m: (x * p["connections"] if m == "requests_per_s" else
                                2e6 / x * p["connections"] if m == "p99_latency" else None)

os.makedirs(f"{t}/docs")
doc(disk, "host", {"t": "lab"}, iops(160000), old=True)
doc(disk, "accel=tcg disk=ide", {"disk": "ide", "t": "lab"}, iops(10000), old=True)
A, B, C = "20261130-100000-aaaa", "20261201-120000-bbbb", "20261201-110000-cccc"
doc(disk, "host", {}, iops(150000), A)
doc(disk, "accel=tcg disk=ide", {"disk": "ide"}, iops(9000), A)
doc(disk, "accel=tcg disk=virtio-blk", {}, iops(13000), A)
doc(http, "host", {}, http_rate(20000), C)
doc(http, "accel=tcg nic=e1000", {"nic": "e1000"}, http_rate(1000), C)
doc(http, "accel=tcg nic=virtio-net", {"nic": "virtio-net"}, http_rate(2000), C)
# D: QEMU's CPU time around each run, as lab run notes it; a configuration
# named with markup; notes a mean must leave out (negative, not a number).
D, odd = "20261201-090000-dddd", "accel=kvm nic=<b>&\"'"
def cost(user, system, wall):
    h = copy.deepcopy(http)
    for s in h["suites"]:
        s.setdefault("notes", {}).update(qemu_cpu_user_s=user, qemu_cpu_system_s=system, qemu_wall_s=wall)
    return h
doc(http, "host", {"accel": "kvm"}, http_rate(20000), D)
doc(cost(0.6, 0.2, 2.0), odd, {"accel": "kvm", "nic": "e1000"}, http_rate(1000), D)
doc(cost(0.3, 0.3, 3.0), "accel=kvm nic=virtio-net", {"accel": "kvm", "nic": "virtio-net"}, http_rate(2000), D)
doc(http, "host", {"accel": "kvm"}, http_rate(20000), D)
doc(cost(1.0, 0.5, 2.5), odd, {"accel": "kvm", "nic": "e1000"}, http_rate(1000), D)
doc(cost(-1.0, 0.5, 2.5), "accel=kvm nic=virtio-net", {"accel": "kvm", "nic": "virtio-net"}, http_rate(2000), D)
for r, drift in ((1, 1.0), (2, 1.02)):
    doc(disk, "host", {}, iops(160000 * drift), B)
    doc(disk, "accel=tcg disk=ide", {"disk": "ide"}, iops(10000 * drift), B)
    doc(disk, "accel=tcg disk=virtio-blk", {}, iops(14000 * drift), B)
PY
check "the sessions are stored" sh -c 'for f in "$1"/docs/*.json; do "$2" import --keep-lab-labels "$f" --db "$3" >/dev/null || exit 1; done' sh \
	"$T" "$VMB" "$db"

B=lab=20261201-120000-bbbb
expect 0 "lab report, no selector: the last session" "$VMB" lab report --db "$db" -o "$T/last.html"
has "$T/err" "lab session $B" "names the session it reports"
check "its first line: the configurations against the baseline, the host (one baseline a page), tested" sh -c \
	'head -1 "$1" | grep -q "^accel=tcg disk=ide vs host: 16.0x worse disk.randread iops "' sh "$T/out"
has "$T/out" "#1 host (baseline), 2 runs" "the host is the default baseline"
has "$T/out" "#2 accel=tcg disk=ide, 2 runs" "every configuration of that session, its two rounds"
lacks "$T/out" "1 run" "no run of another session"
check "the report: its baseline stated first, then the same sentence, escaped" python3 - "$T/last.html" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
m = re.search(r"</h1>\n<p class=\"baseline\">Baseline: <b>host</b>\. [^<]*</p>\n<p class=\"lead\">([^<]*)</p>", h)
assert m and m.group(1).startswith("accel=tcg disk=ide vs host: 16.0x worse disk.randread iops"), h[:600]
assert "accel=tcg disk=virtio-blk vs host: 11.4x worse" in m.group(1), m.group(1)
assert h.count('class="baseline"') == 1, "stated once"
PY
check "the host sets no scale: the guests' bars do, the host's is marked at the edge" python3 - "$T/last.html" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
svg = [s for s in re.findall(r"<svg.*?</svg>", h, re.S) if "<title>disk.randread iops</title>" in s]
assert len(svg) == 1, len(svg)
s = svg[0]
ticks = [float(v[:-1]) * 1000 if v.endswith("k") else float(v)
         for v in re.findall(r'text-anchor="end" font-size="11">([0-9.]+k?)</text>', s)]
assert ticks and 14000 * 1.02 <= max(ticks) < 50000, ticks  # the guests' range, not the host's 160k
off = re.findall(r'<g class="offscale">(.*?)</g>', s, re.S)
assert len(off) == 1 and "<title>host, " in off[0] and "\u25b2 16" in off[0], off
PY

expect 0 "--baseline disk=ide: that configuration first, the host beside" "$VMB" lab report --baseline disk=ide \
	--db "$db" -o "$T/ide.html"
check "in that order" sh -c 'grep "^#" "$1" | tr "\n" "|" | grep -qx \
	"#1 accel=tcg disk=ide (baseline), 2 runs|#2 accel=tcg disk=virtio-blk, 2 runs|#3 host, 2 runs|"' sh "$T/out"
has "$T/out" "accel=tcg disk=virtio-blk vs accel=tcg disk=ide" "the verdicts are against disk=ide"
expect 0 "--baseline disk=virtio-blk turns the ratio around" "$VMB" lab report "$B" --baseline disk=virtio-blk \
	--db "$db" -o -
check "0.71x, worse" python3 - "$T/out" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
assert re.search(r'<p class="lead">accel=tcg disk=ide vs accel=tcg disk=virtio-blk: 1.40x worse disk.randread iops '
                 r'(?:at [^<]* )?\(p=[^)]+\)\.</p>', h), h[:800]
PY
expect 2 "lab report --baseline naming no configuration of the session" "$VMB" lab report --baseline disk=nvme --db "$db"
has "$T/err" "--baseline disk=nvme names none of the session's configurations (accel=tcg disk=ide; accel=tcg disk=virtio-blk)" \
	"lists those there are"
expect 2 "lab report --baseline with a key the matrix has not" "$VMB" lab report --baseline colour=red --db "$db"
has "$T/err" "colour is no matrix key; keys: accel, arch, disk, fs, nic" "lists the keys"

expect 0 "a selector that matches several sessions" "$VMB" lab report accel=tcg --db "$db" -o "$T/mixed.html"
has "$T/err" "the labels accel=tcg match runs of 4 lab sessions" "says so"
has "$T/err" "reporting the last one, $B" "and which one it reports"
has "$T/out" "#1 host (baseline), 2 runs" "that session's host is kept, as the baseline"
lacks "$T/out" "1 run" "nothing of the other sessions is mixed in"
expect 0 "the configuration by its matrix keys" "$VMB" lab report accel=tcg,disk=ide,$B --db "$db" -o -
check "that configuration, with its session's host" python3 - "$T/out" <<'PY'
import sys
h = open(sys.argv[1]).read()
assert "Compared: host (2 runs, baseline, shown beside the others), accel=tcg disk=ide (2 runs)." in h, h[:1500]
PY
expect 0 "the configuration's name, as printed and as stored before" "$VMB" lab report "config=accel=tcg disk=ide" \
	--db "$db" -o -
has "$T/err" "the labels config=accel=tcg disk=ide match runs of 3 lab sessions" "is a selector now"
expect 0 "runs stored before sessions had an id still report" "$VMB" lab report t=lab --db "$db" -o "$T/old.html"
has "$T/out" "#1 host (baseline), 1 run" "their host"
has "$T/out" "#2 accel=tcg disk=ide, 1 run" "their configuration, named as stored"
expect 2 "a selector no lab run has" "$VMB" lab report t=nothing --db "$db"
has "$T/err" "no lab run has the labels t=nothing; the store's last lab sessions:" "says so"
has "$T/err" "$B (6 runs, started" "suggests sessions that exist"
lacks "$T/err" "e.g. lab report t=lab" "and no selector the lab never set"
expect 2 "lab report on a store without lab runs" "$VMB" lab report --db "$T/empty.db"
expect 2 "a selector that matches a host only" "$VMB" lab report config=host --db "$db"
has "$T/err" "the labels config=host match no configuration, only the host; select a configuration by its matrix keys" \
	"says what would"

expect 0 "one run a configuration: the advice is the lab's" "$VMB" lab report lab=20261130-100000-aaaa --db "$db" \
	-o "$T/a.html"
has "$T/out" "measure with 'vmbench lab run --rounds 3'" "--rounds, not --runs"
has "$T/out" "a calibration of the host does not apply to a guest" "and no calibration"
lacks "$T/out" "vmbench run --runs" "no advice for run"
expect 0 "compare of lab runs gives the lab's advice too" "$VMB" compare lab=20261130-100000-aaaa,disk=ide \
	lab=20261130-100000-aaaa,disk=virtio-blk --db "$db"
has "$T/out" "'vmbench lab run --rounds 3'" "lab's"
expect 0 "compare of other runs keeps run's" "$VMB" compare "$T/disk.json" "$T/disk.json"
has "$T/out" "'vmbench run --runs 3'" "run's"

expect 0 "results: a session's configuration once" "$VMB" results --label "$B" --db "$db"
check "the matrix keys off their defaults, disk (which differs between the runs) on every row, no config label" \
	sh -c 'grep -c "  accel=tcg disk=ide $2  " "$1" | grep -qx 2 && grep -c "  accel=tcg disk=virtio-blk $2  " "$1" |
	grep -qx 2 && ! grep -q "config=" "$1"' sh "$T/out" "$B"
lacks "$T/out" "mem=512M" "a key at its default is left out"
has "$T/out" "(lab matrix keys at their defaults not shown; --wide shows every label)" "and the table says so"
expect 0 "results --wide: every label" "$VMB" results --label "$B" --wide --db "$db"
check "the defaults too" sh -c 'grep -c "accel=tcg arch=x86_64 disk=ide $2 mem=512M nic=none pin=off smp=1" "$1" |
	grep -qx 2' sh "$T/out" "$B"
lacks "$T/out" "not shown" "nothing left out to mention"
expect 0 "results --format csv: every label" "$VMB" results --label "$B" --format csv --db "$db"
has "$T/out" "\"accel=tcg arch=x86_64 disk=ide $B mem=512M nic=none pin=off smp=1\"" "the defaults in the CSV"
expect 0 "results: a run stored before, its configuration once too" "$VMB" results --label t=lab --db "$db"
has "$T/out" "accel=tcg disk=ide t=lab" "the matrix keys off their defaults"
lacks "$T/out" "config=accel" "not again as config="
has "$T/out" "config=host" "a config label that repeats nothing stays"
# A selector that matches the runs of several sessions says which, how many
# runs each gave, and how to keep one.
expect 0 "compare selectors that match two sessions" "$VMB" compare accel=tcg,disk=ide accel=tcg,disk=virtio-blk \
	--db "$db"
has "$T/err" "accel=tcg,disk=ide pools the runs of several lab sessions (" "the message names the pooling"
has "$T/err" "lab=20261201-120000-bbbb: 2 runs" "each session with its runs"
has "$T/err" "lab=20261130-100000-aaaa: 1 run" "the other session too"
has "$T/err" "add its lab=ID to the selector, e.g. accel=tcg,disk=ide,lab=2026" "and the selector to add"
check "the header says so, and that a cell's runs x repetitions are what it used" python3 - "$T/out" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
head = re.search(r"^#1 accel=tcg,disk=ide(.*?)\n#2 ", text, re.S | re.M)
assert head, text[:600]
h = " ".join(l.strip() for l in head.group(1).splitlines())
assert h.startswith("(baseline), 4 runs of several lab sessions pooled (") and "lab=20261201-120000-bbbb: 2 runs" in h, h
assert "lab=20261130-100000-aaaa: 1 run, " in h and "1 run of no session)" in h, h
assert h.endswith("each cell's runs x repetitions say how many it used"), h
PY
expect 0 "one session's runs" "$VMB" compare "accel=tcg,disk=ide,$B" "accel=tcg,disk=virtio-blk,$B" --db "$db"
lacks "$T/err" "pools the runs" "nothing pooled, nothing said"
lacks "$T/out" "several lab sessions" "in the header neither"
expect 0 "report of the pooled selectors" "$VMB" report accel=tcg,disk=ide accel=tcg,disk=virtio-blk --db "$db" -o -
has "$T/out" "(4 runs, baseline of several lab sessions pooled: lab=" "the report says it too"
# A lab run lists a suite for each item (disk in the guest, disk from the
# host): results names each suite once.
python3 - "$T/docs/01.json" "$T/twice.json" <<'PY'
import copy, json, sys, uuid
d = json.load(open(sys.argv[1]))
d["id"] = str(uuid.uuid4())
d["suites"].append(copy.deepcopy(d["suites"][0]))
d["labels"]["t"] = "twice"
json.dump(d, open(sys.argv[2], "w"))
PY
expect 0 "a document with the disk suite twice" "$VMB" import --keep-lab-labels "$T/twice.json" --db "$db"
expect 0 "results lists it" "$VMB" results --label t=twice --db "$db"
check "disk once" sh -c 'grep " t=twice " "$1" | grep -q "  disk$" && ! grep -q "disk,disk" "$1"' sh "$T/out"

expect 0 "the NICs' http sweep" "$VMB" lab report lab=20261201-110000-cccc --db "$db" -o "$T/http.html"
# one run a side: no verdict backs a ratio, so none is stated
has "$T/out" "accel=tcg nic=virtio-net vs host: not tested on any of" "no ratio without a test (against the baseline, the host)"
has "$T/out" " headline metrics of net.http (one run a side: noise unknown)." "the NICs' suite, and why"
check "requests/s and p99 against connections: a line per NIC model, the host's along the edge" python3 - \
	"$T/http.html" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
for metric in ("requests_per_s", "p99_latency"):
    svg = [s for s in re.findall(r"<svg.*?</svg>", h, re.S) if f"<title>net.http {metric} vs connections</title>" in s]
    assert len(svg) == 1, (metric, len(svg))
    lines = re.findall(r'<g class="series"><polyline[^>]*points="([^"]*)"/>.*?<title>([^<]*)</title>', svg[0])
    names = [n for _, n in lines]
    assert sorted(names) == ["accel=tcg nic=e1000", "accel=tcg nic=virtio-net", "host"], names
    assert all(len(p.split()) == 3 for p, _ in lines), lines  # connections 1, 4, 8
off = re.findall(r'<g class="offscale"[^>]*><g class="series">.*?<title>([^<]*)</title>', h, re.S)
assert off and set(off) == {"host"}, off
PY

expect 0 "a session with QEMU's CPU time in its notes" "$VMB" lab report lab=20261201-090000-dddd --db "$db" \
	-o "$T/cost.html"
# by hand: <b>&"' (0.6/2 + 1.0/2.5)/2 = 0.35 user, (0.2/2 + 0.5/2.5)/2 = 0.15
# system over 2 runs; virtio-net 0.1 and 0.1 over 1 (its second run's user
# time is negative); the host ran no QEMU
has "$T/out" "host cost: QEMU's CPU-seconds per second of each run (user + system), mean of the runs" \
	"the terminal table"
check "a row per configuration and item, its mean over the valid runs" python3 - "$T/out" <<'PY'
import re, sys
rows = [l.split() for l in open(sys.argv[1]).read().split("host cost:")[1].splitlines()[2:] if l.strip()]
assert rows == [["accel=kvm", "nic=<b>&\"'", "net.http", "0.50", "0.35", "0.15", "2"],
                ["accel=kvm", "nic=virtio-net", "net.http", "0.20", "0.10", "0.10", "1"]], rows
PY
check "the HTML report has the Host cost section, the same figures, the name escaped" python3 - "$T/cost.html" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
m = re.search(r"<h2>Host cost</h2>\n<p>QEMU's CPU time [^<]*</p>.*?<tbody>\n(.*?)</tbody>", h, re.S)
assert m, h[:2000]
rows = re.findall(r"<tr>(.*?)</tr>", m.group(1))
cells = [re.findall(r"<td[^>]*>([^<]*)</td>", r) for r in rows]
assert cells == [["accel=kvm nic=&lt;b&gt;&amp;&quot;&#39;", "net.http", "0.50", "0.35", "0.15", "2"],
                 ["accel=kvm nic=virtio-net", "net.http", "0.20", "0.10", "0.10", "1"]], cells
assert "<b>&" not in h
PY
check "no Host cost section without the notes" sh -c '! grep -q "<h2>Host cost</h2>" "$1"' sh "$T/last.html"

# lab run: --baseline is checked against the matrix before anything boots
expect 2 "lab run --baseline naming no configuration: nothing booted" "$VMB" lab run \
	--matrix "accel=tcg disk=ide,virtio-blk" --baseline disk=nvme --cache "$T/no-cache" --db "$T/run.db"
has "$T/err" "--baseline disk=nvme names no configuration of the matrix; its configurations: accel=tcg disk=ide; accel=tcg disk=virtio-blk" \
	"lists the matrix's configurations"
expect 2 "lab run --baseline naming two" "$VMB" lab run --matrix "disk=ide,virtio-blk smp=1,2" --baseline smp=1 \
	--cache "$T/no-cache" --db "$T/run.db"
has "$T/err" "--baseline smp=1 names 2 configurations of the matrix; name one with more keys" "says how to name one"
expect 2 "lab run --baseline with no matrix key" "$VMB" lab run --matrix "disk=ide" --baseline colour=red \
	--cache "$T/no-cache" --db "$T/run.db"
expect 2 "lab run --label of a key the lab sets" "$VMB" lab run --matrix "disk=ide" --label disk=x --cache "$T/no-cache" \
	--db "$T/run.db"
has "$T/err" "--label disk=x: the lab sets the label disk itself (a matrix key)" "says so"
# the host is measured with --baseline KEY=VALUE too: its CPUs are checked as with host
cpu=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)) + 1)')
if [ "$cpu" -lt 256 ]; then
	expect 2 "lab run --baseline KEY=VALUE --cpus naming a CPU the host does not have: refused before anything" \
		"$VMB" lab run --matrix "accel=tcg disk=ide,virtio-blk smp=$((cpu + 1))" --baseline disk=ide --cpus "$cpu" \
		--suites cpu --cache "$T/no-cache" --db "$T/run.db"
	has "$T/err" "--cpus" "says which option"
else
	skip "lab run --baseline KEY=VALUE --cpus naming a CPU the host does not have" "the host has 256 CPUs or more"
	skip "says which option" "the host has 256 CPUs or more"
fi
check "nothing was fetched or stored for them" sh -c 'test ! -e "$1/no-cache" && test ! -e "$1/run.db"' sh "$T"
case $(uname -m) in aarch64 | arm64) other=x86_64 ;; *) other=aarch64 ;; esac
expect 1 "a lab run whose configurations all skip still has a session" "$VMB" lab run --matrix "accel=kvm arch=$other" \
	--suites boot --baseline none --cache "$T/no-cache" --db "$T/run.db"
check "printed at its start and its end" sh -c 'test "$(grep -c "lab session lab=[0-9]\{8\}-[0-9]\{6\}-[0-9a-f]\{4\}" "$1")" = 2' \
	sh "$T/err"
check "Ctrl-C during the host baseline: exit 130, said as an interruption, not as the host's failure" \
	python3 - "$VMB" "$T" "$other" <<'PY'
import os, signal, subprocess, sys
vmb, t, other = sys.argv[1:4]
# the only configuration skips (KVM of another architecture): nothing boots
p = subprocess.Popen([vmb, "lab", "run", "--matrix", f"accel=kvm arch={other}", "--suites", "cpu", "--quick",
                      "--cache", f"{t}/no-cache", "--db", f"{t}/int.db", "-o", f"{t}/int.html"],
                     start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
err = b""
while b"measuring the host" not in err:
    line = p.stderr.readline()
    assert line, err
    err += line
os.killpg(p.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the lab and its host run
err = (err + p.communicate(timeout=120)[1]).decode()
assert p.returncode == 130, (p.returncode, err)
assert "error: interrupted" in err and "host baseline failed" not in err, err
PY
finish
