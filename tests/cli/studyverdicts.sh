#!/bin/sh
# A study's claims judged end to end through the store, without booting a
# guest: a small study (one experiment, three disk models, two columns) and
# claims of every kind (a direction, a ratio, a closeness, two columns of a
# row, a conjunction, one about hardware virtualization, one the lab cannot
# measure); the documents of its run, as lab run stores them (matrix keys,
# session, study labels, lab_config, run_group's round), with figures chosen
# so that every verdict is certain, imported into a store; then lab report
# of the study's run redraws its card: reproduced, contradicted,
# inconclusive and not comparable each reached by the claim expected, the
# figures measured here those of the documents, the closing line's counts,
# and the same card at the head of the HTML report.
. "$(dirname "$0")/lib.sh"

db="$T/study.db"
mkdir -p "$T/shipped" "$T/docs"
export VMBENCH_STUDIES="$T/shipped"
# What each claim must come to (figures below): QD32 (iops at iodepth 32)
# ide 10k, ahci 20k, virtio-blk 30k; QD1 (iops at iodepth 1) ide 5000, ahci
# 5150 (1.03x: at the edge of a 3% margin), virtio-blk 6000 (1.2x); six
# rounds, each round's drift shared by every configuration, and a small
# fixed wiggle of each configuration's own. Every guest asked for
# accel=auto and ran under TCG.
cat >"$T/shipped/verdicts.study" <<'STUDY'
[study]
format = 1
title = Verdicts of every kind
source = made up for tests/cli/studyverdicts.sh

[experiment disk]
title = three disk models at two queue depths
matrix = accel=auto disk=ide,ahci,virtio-blk
suites = disk.randread
option = --disk.iodepth 1,32
rounds = 6
rows = disk
column = disk.randread iops at iodepth=32 | QD32
column = disk.randread iops at iodepth=1 | QD1
claim = virtio-blk beats ide at depth 32 | +200% | QD32: disk=virtio-blk > disk=ide
claim = ahci about twice ide | 2x | QD32: disk=ahci / disk=ide in 1.8..2.3
claim = ahci 3 to 5 times ide | 4x | QD32: disk=ahci / disk=ide in 3x..5x
claim = ahci close to ide at depth 1 | - | QD1: disk=ahci ~ disk=ide within 3%
claim = virtio-blk scales with depth | 5x | row disk=virtio-blk: QD32 > QD1
claim = virtio-blk ahead at depth 32, behind at depth 1 | - | QD32: disk=virtio-blk > disk=ahci; QD1: disk=virtio-blk < disk=ahci
claim = under VT-x virtio-blk beats ide at depth 1 | +20% | QD1: disk=virtio-blk > disk=ide | kvm
claim = the controller's own counter | 12 ms | not comparable: the stand-in has no such counter
STUDY

expect 0 "the study's plan: it parses and lab run takes its options" "$VMB" lab study verdicts --plan
# buffered: only the document's shape is used (its figures are replaced), and a
# temporary directory on tmpfs takes no O_DIRECT
expect 0 "a disk.randread document at depths 1 and 32 to label" "$VMB" run disk.randread --disk.dir "$T" \
	--disk.size 16m --disk.iodepth 1,32 --disk.buffered --time 0.05 --warmup 0 --repeat 3 --no-store -q \
	--json "$T/disk.json"
# The card each claim must reach, with the figures of the documents: written
# by the script that makes them, so that the checks read them back
python3 - "$T" <<'PY'
import copy, json, math, sys, uuid
t = sys.argv[1]
base = json.load(open(f"{t}/disk.json"))
session, run = "20260301-120000-abcd", "verdicts-20260301-120000"
study = {"lab": session, "study": "verdicts", "experiment": "disk", "study_run": run}
keys = {"accel": "tcg", "arch": "x86_64", "disk": None, "fs": "ext4", "nic": "none", "smp": "1", "mem": "512M", "pin": "off"}
qd32 = {"host": 50000, "ide": 10000, "ahci": 20000, "virtio-blk": 30000}
qd1 = {"host": 20000, "ide": 5000, "ahci": 5150, "virtio-blk": 6000}
drift = [1.00, 1.03, 0.97, 1.02, 0.98, 1.01]
wiggle = {"host": [0] * 6, "ide": [0] * 6, "ahci": [0.006, -0.004, 0.008, -0.006, 0.002, -0.005],
          "virtio-blk": [-0.005, 0.007, -0.003, 0.004, -0.008, 0.006]}
order = ["accel=auto disk=ide", "accel=auto disk=ahci", "accel=auto disk=virtio-blk"]
n = 0

def figure(col, cfg, r):
    # QD1's wiggle is QD32's backwards, so that a row's two columns differ too
    w = wiggle[cfg][r] if col is qd32 else wiggle[cfg][5 - r]
    return col[cfg] * drift[r] * (1 + w)

def doc(cfg, r):
    global n
    d = copy.deepcopy(base)
    d["id"] = str(uuid.uuid4())
    labels = dict(study)
    if cfg == "host":
        d["lab_config"] = "host"
    else:
        labels.update(keys, disk=cfg)
        d["lab_config"] = f"accel=auto (ran tcg) disk={cfg}"
        d["lab_note"] = "accel=auto: /dev/kvm is absent, TCG used"
        d["fingerprint"]["hypervisor"] = {"name": "QEMU TCG"}
    d["labels"] = labels
    d["run_group"] = {"id": "lab-0000beef", "round": r + 1, "rounds": 6, "seed": 48879, "order": order}
    for s in d["suites"]:
        for te in s["tests"]:
            for c in te["cases"]:
                for m in c["metrics"]:
                    if m["name"] == "iops":
                        v = figure(qd32 if c["params"]["iodepth"] == 32 else qd1, cfg, r)
                        m["samples"] = [v * 0.99, v, v * 1.01]
                        m["summary"] = {"n": 3, "mean": v}
                        m.pop("histogram", None)
    n += 1
    json.dump(d, open(f"{t}/docs/{n:02d}.json", "w"))

# stored as lab run stores them: round after round, the configurations shuffled
for r in range(6):
    for cfg in (["host", "virtio-blk", "ide", "ahci"] if r % 2 else ["host", "ahci", "ide", "virtio-blk"]):
        doc(cfg, r)

def ratio(ca, a, cb, b):
    """what the card says was measured: the geometric mean of the per-round ratios a / b"""
    return math.exp(sum(math.log(figure(ca, a, r) / figure(cb, b, r)) for r in range(6)) / 6)

def x(g):
    return f"{g:.3g}x ["

# claim text | verdict | what "measured here" starts with (each relation's) | why
card = [
    ("virtio-blk beats ide at depth 32", "reproduced", [x(ratio(qd32, "virtio-blk", qd32, "ide"))], ""),
    ("ahci about twice ide", "reproduced", [x(ratio(qd32, "ahci", qd32, "ide"))], ""),
    ("ahci 3 to 5 times ide", "contradicted", [x(ratio(qd32, "ahci", qd32, "ide"))], ""),
    ("ahci close to ide at depth 1", "inconclusive", [f"{(ratio(qd1, 'ahci', qd1, 'ide') - 1) * 100:+.1f}% ["],
     " p=0.031; the smallest difference this run could detect: 1%"),
    ("virtio-blk scales with depth", "reproduced", [x(ratio(qd32, "virtio-blk", qd1, "virtio-blk"))], ""),
    ("virtio-blk ahead at depth 32, behind at depth 1", "contradicted",
     [x(ratio(qd32, "virtio-blk", qd32, "ahci")), x(ratio(qd1, "virtio-blk", qd1, "ahci"))], ""),
    ("under VT-x virtio-blk beats ide at depth 1", "not comparable here", [x(ratio(qd1, "virtio-blk", qd1, "ide"))],
     "ran under TCG: the claim is about hardware virtualization"),
    ("the controller's own counter", "not comparable here", ["-"], "the stand-in has no such counter"),
]
json.dump({"run": run, "card": card, "tally": "3 of 8 claims reproduced, 2 contradicted, 1 inconclusive, 2 not comparable"},
          open(f"{t}/want.json", "w"))
PY
check "the study's run is stored, every document kept whole (its lab labels too)" sh -c \
	'for f in "$1"/docs/*.json; do "$2" import --keep-lab-labels "$f" --db "$3" >/dev/null || exit 1; done' sh \
	"$T" "$VMB" "$db"
run=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["run"])' "$T/want.json")

expect 0 "lab report study_run=RUN: the card redrawn from the store" "$VMB" lab report "study_run=$run" --db "$db" \
	-o "$T/page.html"
has "$T/out" "the card of study_run=$run, redrawn from the store" "says whose card"
# the guests' repetitions sensed the guest's own CPU (its kernel's threads count there, an emulated disk's
# driver work): said to be the guest's, not the host's
has "$T/out" "disk=ide: busy inside the guest during " "a guest's noise is said to be the guest's"
lacks "$T/out" "disk=ide: host busy during" "not the host's"
check "every claim's verdict, the figures measured here those of the documents, and the closing line" \
	python3 - "$T/out" "$T/want.json" <<'PY'
import json, re, sys
out, want = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
part = out.split("reproduction card of study verdicts (claim | published | measured here | verdict):\n")[1].split("\n")
rows = part[:len(want["card"])]
for line, (text, verdict, measured, why) in zip(rows, want["card"]):
    m = re.fullmatch(r"  disk: (.*?) \| (.*?) \| (.*) \| (reproduced|contradicted|inconclusive|not comparable here)(?:: (.*))?",
                     line)
    assert m, line
    assert m.group(1) == text, (line, text)
    assert m.group(4) == verdict, (line, verdict)
    got = m.group(3).split("; ")
    assert len(got) == len(measured), (line, measured)
    for g, w in zip(got, measured):
        assert g.startswith(w), (line, w)
        assert w == "-" or g.endswith(" over 6 rounds"), line
    assert why in (m.group(5) or "") if why else m.group(5) is None, (line, why)
assert part[len(want["card"])] == "  " + want["tally"], part[len(want["card"])]
# every verdict reached
assert {v for _, v, _, _ in want["card"]} == {"reproduced", "contradicted", "inconclusive", "not comparable here"}
PY
check "the same card heads the HTML report, row for row" python3 - "$T/page.html" "$T/out" "$T/want.json" <<'PY'
import html, re, sys
h, out, want = open(sys.argv[1]).read(), open(sys.argv[2]).read(), open(sys.argv[3]).read()
import json
want = json.loads(want)
assert h.index("<h2>Reproduction card</h2>") < h.index("<h2>Summary</h2>"), "the card first"
sec = h[h.index("<h2>Reproduction card</h2>"):]
sec = sec[:sec.index("</section>")]
rows = re.findall(r'<tr class="(\w+)"><td>(.*?)</td>\s*<td>(.*?)</td>\s*<td>(.*?)</td>\s*<td>(.*?)</td>\s*</tr>', sec)
text = out.split("reproduction card of study verdicts (claim | published | measured here | verdict):\n")[1].split("\n")
assert len(rows) == len(want["card"]), rows
cls = {"reproduced": "agrees", "contradicted": "disagrees"}
for (c, claim, pub, measured, verdict), line, (_, v, _, _) in zip(rows, text, want["card"]):
    cells = [html.unescape(s) for s in (claim, pub, measured, verdict)]
    assert "  " + " | ".join(cells) == line, (cells, line)
    assert c == cls.get(v, "neither"), (c, v)
assert f"<p>{want['tally']}</p>" in sec, sec[-300:]
PY
finish
