#!/bin/sh
# run -> store -> results -> show, labels, --json FILE, -q, --repeat, --cpus.
. "$(dirname "$0")/lib.sh"

fast="--time 0.05 --warmup 0 --repeat 3 --threads 1 --cpu.max-prime 2000"
expect 0 "run with labels" "$VMB" run cpu.prime $fast --label hv=kvm --label disk=virtio --json "$T/a.json"
has "$T/out" "cpu.prime" "table printed"
has "$T/out" "events_per_s" "headline metric printed"
has "$T/out" "stored as run 1 in $T/results.db" "where it was stored"
has "$T/out" "summary: 1 case in" "a summary at the end"
check "the summary: one line for the test, its headline in events/s with a k suffix" \
	grep -qE '^  cpu\.prime +events/s +[0-9.]+k  \[threads=1 max-prime=2000\]$' "$T/out"
check "no exponent in the summary" sh -c "! sed -n '/^summary:/,\$p' '$T/out' | grep -q 'e[+-][0-9]'"
has "$T/out" "next: vmbench show 1 " "what to do next: show"
has "$T/out" "vmbench compare 1 OTHER" "compare"
has "$T/out" "vmbench report 1 -o report.html" "report"
check "--json FILE written and valid" python3 "$SRC/tests/cli/check_result.py" "$T/a.json" --labels hv=kvm,disk=virtio
check "--repeat 3 gives exactly 3 samples" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["suites"][0]["tests"][0]["cases"][0]
assert c["repetitions"] == 3 and all(len(m["samples"]) == 3 for m in c["metrics"])' "$T/a.json"
expect 0 "second run, other label, pinned to CPU 0" "$VMB" run cpu.prime $fast --label hv=vmware --cpus 0 -q
check "-q prints nothing on stdout" test ! -s "$T/out"
expect 0 "--no-store" "$VMB" run cpu.prime $fast --no-store

expect 0 "results" "$VMB" results
has "$T/out" "disk=virtio hv=kvm" "results shows labels"
check "two runs listed" test "$(grep -c '^[0-9]' "$T/out")" -eq 2
expect 0 "results --label hv=vmware" "$VMB" results --label hv=vmware
check "filter keeps one run" test "$(grep -c '^[0-9]' "$T/out")" -eq 1
has "$T/out" "hv=vmware" "the right one"

expect 0 "show 1" "$VMB" show 1
has "$T/out" "labels disk=virtio hv=kvm" "show prints labels"
expect 0 "show 1 --json" "$VMB" show 1 --json
check "stored document equals the --json file" python3 -c '
import json, sys
assert json.load(open(sys.argv[1])) == json.load(open(sys.argv[2]))' "$T/out" "$T/a.json"
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"][:8])' "$T/a.json")
expect 0 "show by id prefix" "$VMB" show "$id" --json
expect 0 "show a file" "$VMB" show "$T/a.json"
has "$T/out" "events_per_s" "file shown as a table"
expect 2 "show a run that does not exist" "$VMB" show 99
has "$T/err" "no run '99'" "message names the run"
expect 2 "--json onto the file of the first run" "$VMB" run cpu.prime $fast --json "$T/a.json"
check "the first file is unchanged" python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["labels"]["hv"] == "kvm"' "$T/a.json"

expect 0 "list" "$VMB" list
check "list says how long a run of everything and a quick run take" \
	sh -c "grep -qE '^vmbench run +[0-9]+ cases on this machine.s [0-9]+ CPUs, [0-9]+ (s|min) to [0-9]+ (s|min) by the option defaults' '$T/out' &&
	       grep -qE '^vmbench run --quick +[0-9]+ cases on' '$T/out'"

# boot is measured by the lab only: a run naming no suite leaves it out (the
# estimate above counts it no more); named, it says why it cannot run here
expect 1 "run boot: nothing it can measure here" "$VMB" run boot --no-store
has "$T/err" "boot: skipped: a boot is timed from outside the guest: 'vmbench lab run --suites boot' measures it" \
	"run boot says why"

# Every output is checked before measuring; a write that still fails after
# measuring saves the document elsewhere and says where.
expect 2 "--json into a directory that does not exist: refused before measuring" \
	"$VMB" run cpu.prime $fast --json "$T/nodir/a.json"
has "$T/err" "--json: directory '$T/nodir' does not exist" "message names the missing directory"
lacks "$T/out" "events_per_s" "nothing measured (missing --json directory)"
ln -s "$T/nowhere.json" "$T/dangling.json"
expect 2 "--json onto a dangling symlink: refused before measuring" \
	"$VMB" run cpu.prime $fast --json "$T/dangling.json"
has "$T/err" "'$T/dangling.json' exists (a symbolic link)" "message says it is a symlink"
lacks "$T/out" "events_per_s" "nothing measured (dangling symlink)"
check "nothing created through the symlink" test ! -e "$T/nowhere.json"
mkdir "$T/gone" "$T/tmp"
expect 1 "--json directory removed while measuring: exit 1" env TMPDIR="$T/tmp" \
	python3 "$SRC/tests/cli/stop_at.py" run-measured "rmdir '$T/gone'" \
	"$VMB" run cpu.prime $fast --json "$T/gone/a.json" --no-store
has "$T/err" "the result was saved to $T/tmp/vmbench-result-" "says where the result went"
check "the saved result is a valid document" \
	sh -c 'python3 "$1/tests/cli/check_result.py" "$2"/tmp/vmbench-result-*.json' _ "$SRC" "$T"

# Every selected test skipped (O_DIRECT on tmpfs): nothing measured, exit 1.
if shm=$(mktemp -d /dev/shm/vmbench-run-XXXXXX 2>/dev/null); then
	disk="--disk.dir $shm --disk.size 16m --disk.file-size 8m --disk.iodepth 1 --disk.ramp 0"
	expect 0 "runs before" "$VMB" results
	before=$(grep -c '^[0-9]' "$T/out")
	expect 1 "every test skipped: exit 1" "$VMB" run disk.randread $disk $fast
	has "$T/err" "nothing was measured: every selected test was skipped or failed" "says nothing was measured"
	has "$T/err" "would measure memory" "with the reason"
	expect 0 "runs after" "$VMB" results
	check "a run that measured nothing is not stored" test "$(grep -c '^[0-9]' "$T/out")" -eq "$before"
	expect 0 "one suite measured, the other skipped: exit 0" "$VMB" run cpu.prime disk.randread $disk $fast --no-store
	has "$T/err" "would measure memory" "the skipped one says why"
	rmdir "$shm"
else
	skip "every test skipped: exit 1" "no /dev/shm here"
fi

# A store that cannot be written. Root writes anywhere, so as root these
# run as nobody.
AS=""
if [ "$(id -u)" -eq 0 ]; then
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chmod 711 "$T"
fi
mkdir "$T/ro" "$T/tmp2"
[ -z "$AS" ] || chown 65534 "$T/ro" "$T/tmp2"
expect 0 "a store in a directory of its own" $AS "$VMB" run cpu.prime $fast --db "$T/ro/results.db" -q
chmod 555 "$T/ro"
expect 2 "read-only store directory: refused before measuring" \
	$AS "$VMB" run cpu.prime $fast --db "$T/ro/results.db"
has "$T/err" "the result store's directory '$T/ro' does not take new files" "message names the directory"
lacks "$T/out" "events_per_s" "nothing measured (read-only store directory)"
chmod 755 "$T/ro"
chmod 444 "$T/ro/results.db"
expect 2 "read-only store file: refused before measuring" \
	$AS "$VMB" run cpu.prime $fast --db "$T/ro/results.db"
has "$T/err" "the result store '$T/ro/results.db' is not writable" "message names the store"
chmod 644 "$T/ro/results.db"
expect 1 "store made read-only while measuring: exit 1" $AS env TMPDIR="$T/tmp2" \
	python3 "$SRC/tests/cli/stop_at.py" run-measured "chmod 555 '$T/ro'" \
	"$VMB" run cpu.prime $fast --db "$T/ro/results.db"
has "$T/err" "the result was saved to $T/tmp2/vmbench-result-" "says where the unstored result went"
check "the unstored result is a valid document" \
	sh -c 'python3 "$1/tests/cli/check_result.py" "$2"/tmp2/vmbench-result-*.json' _ "$SRC" "$T"
chmod 755 "$T/ro"
# --runs: interleaved rounds, each its own document under one run group, the
# order shuffled per round from a recorded seed (the same seed, the same order)
rr="cpu.prime cpu.zlib --threads 1 --time 0.05 --warmup 0 --repeat 2 --no-store --seed 42 --runs 3"
expect 0 "--runs 3 --seed 42" "$VMB" run $rr --json "$T/rr.json"
expect 0 "again with the same seed" "$VMB" run $rr --json "$T/rs.json"
check "three documents, one group of its own, the seed and each round's order recorded, reproducible" python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
a = [json.load(open(f"{t}/rr-r{k}.json")) for k in (1, 2, 3)]
b = [json.load(open(f"{t}/rs-r{k}.json")) for k in (1, 2, 3)]
g = [d["run_group"] for d in a]
assert all(x["seed"] == 42 and x["rounds"] == 3 and x["id"] == g[0]["id"] for x in g), g
assert [x["round"] for x in g] == [1, 2, 3], g
assert all(sorted(x["order"]) == ["cpu.prime", "cpu.zlib"] for x in g), g
assert [x["order"] for x in g] == [d["run_group"]["order"] for d in b], "the same seed gave another order"
# two groups of one seed (in one second, as here) are two groups
assert b[0]["run_group"]["id"] != g[0]["id"] and b[0]["run_group"]["id"].startswith("0000002a-"), (g[0], b[0]["run_group"])
for d in a:
    ran = [s["name"] + "." + te["name"] for s in d["suites"] for te in s["tests"]]
    assert sorted(ran) == ["cpu.prime", "cpu.zlib"] and d["schema_version"] == 3, ran
    c = d["suites"][0]["tests"][0]["cases"][0]
    assert len(c["reps"]) == c["repetitions"] and all("start" in r and "busy" in r for r in c["reps"]), c["reps"]
PY
expect 2 "--runs with --json -" "$VMB" run cpu.prime --runs 2 --no-store --json -
has "$T/err" "give --json FILE.json" "says what would work"
# --progress-fd: the progress as lines a program reads (what the lab's agent sends its host), not a terminal's
expect 0 "--progress-fd 3: progress lines on descriptor 3" sh -c '"$1" run cpu.prime --quick --threads 1 \
	--no-store -q --progress-fd 3 3>"$2"' sh "$VMB" "$T/progress"
check "a line per step: case of how many, seconds left, the test and its parameters, the step" python3 - \
	"$T/progress" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines and lines[0] == "1/1 " + lines[0].split()[1] + " cpu.prime threads=1 max-prime=10000 warm-up", lines
for l in lines:
    assert re.fullmatch(r"1/1 \d+ cpu\.prime threads=1 max-prime=10000 (warm-up|repetition \d+ \(of 5 at most\))", l), l
PY
expect 2 "--progress-fd of a descriptor that is not open" "$VMB" run cpu.prime --quick --no-store --progress-fd 9
has "$T/err" "--progress-fd 9: not an open descriptor" "says so"

# --runs auto: rounds until every headline's mdd is within --mdd, or until
# --budget-total would run out; it says which, and the rounds are the runs stored
ra="cpu.prime --threads 1 --time 0.02 --warmup 0 --repeat 2 --cpu.max-prime 2000 --runs auto --db $T/auto.db"
expect 0 "--runs auto --mdd 1000: reached at the second round" "$VMB" run $ra --mdd 1000 --label auto=a
has "$T/out" "--runs auto: stopped after 2 rounds: every case is decided (1 with a minimal detectable difference within \
--mdd 1000%)" "says every case is decided, how, and after how many rounds"
check "then the rounds' figure: the mean of the stored rounds' means, with rounds x repetitions" python3 - "$T/out" \
	"$VMB" "$T/auto.db" <<'PY'
import json, re, subprocess, sys
out = open(sys.argv[1]).read()
assert "the 2 rounds together (each figure the mean of the rounds' means" in out, out[-600:]
m = re.search(r"^  cpu\.prime threads=1 max-prime=2000 events_per_s +([0-9.]+)(k?) events/s (±[0-9.]+% )?2x2\b", out, re.M)
assert m, out[-600:]
shown = float(m.group(1)) * (1000 if m.group(2) else 1)
ids = [r["id"] for r in json.loads(subprocess.run([sys.argv[2], "results", "--label", "auto=a", "--format", "json",
                                                   "--db", sys.argv[3]], capture_output=True, text=True, check=True).stdout)]
means = []
for i in ids:
    d = json.loads(subprocess.run([sys.argv[2], "show", str(i), "--json", "--db", sys.argv[3]], capture_output=True,
                                  text=True, check=True).stdout)
    (c,) = d["suites"][0]["tests"][0]["cases"]
    (x,) = [x for x in c["metrics"] if x["name"] == "events_per_s"]
    means.append(x["summary"]["mean"])
want = sum(means) / len(means)
assert len(means) == 2 and abs(shown - want) <= 0.005 * want, (shown, means)
PY
expect 0 "--runs auto --mdd 0.01 --budget-total 1: the budget decides" "$VMB" run $ra --mdd 0.01 --budget-total 1 \
	--label auto=b
check "says the budget stopped it, with the mdd reached, and stored each round" python3 - "$T/out" "$VMB" "$T/auto.db" <<'PY'
import json, re, subprocess, sys
out = open(sys.argv[1]).read()
m = re.search(r"--runs auto: stopped after (\d+) rounds?: another would end after --budget-total 1s; (still undecided: "
              r"cpu\.prime events_per_s \(minimal detectable difference [0-9.]+%\)|no case is judged before two rounds)$",
              out, re.M)
assert m, out[-600:]
runs = json.loads(subprocess.run([sys.argv[2], "results", "--label", "auto=b", "--format", "json", "--db", sys.argv[3]],
                                 capture_output=True, text=True, check=True).stdout)
assert len(runs) == int(m.group(1)), (len(runs), m.group(1))
PY
# a first round of at least 0.8 s: a second would end after --budget-total 1, and no mdd is known yet
expect 0 "--runs auto --budget-total 1, a long first round" "$VMB" run cpu.prime --threads 1 --time 0.4 --warmup 0 \
	--repeat 2 --cpu.max-prime 2000 --runs auto --budget-total 1 --db "$T/auto.db" --label auto=one
has "$T/out" "--runs auto: stopped after 1 round: another would end after --budget-total 1s; no case is judged before \
two rounds" "one round: nothing judged, no made-up figure"
# a stored calibration of this machine (as 'vmbench calibrate' writes it, 5% noise) predicts the rounds up front
"$VMB" run cpu.prime --threads 1 --time 0.02 --warmup 0 --repeat 2 --cpu.max-prime 2000 --no-store -q \
	--json "$T/auto-one.json"
python3 - "$T/auto-one.json" "$T/auto.db.calibration" <<'PY'
import json, os, sys
fp = json.load(open(sys.argv[1]))["fingerprint"]
key = "%s|%s|%s|%d" % (fp["cpu"].get("model") or "?", fp["hypervisor"].get("name") or "none",
                       fp["kernel"].get("release") or "?", fp["cpu"].get("logical") or 0)
case = {"machine": key, "suite": "cpu", "test": "prime", "params": '{"max-prime":2000,"threads":1}',
        "metric": "events_per_s", "runs": 5, "reps": 2, "cv_between": 0.05}
os.makedirs(sys.argv[2], exist_ok=True)
json.dump({"schema": "vmbench-calibration", "schema_version": 1, "cases": [case]},
          open(os.path.join(sys.argv[2], "20260101T000000Z-1.json"), "w"))
PY
expect 0 "--runs auto with a calibration" "$VMB" run $ra --mdd 10 --budget-total 1 --label auto=c
check "the calibration's prediction, before the first round" python3 - "$T/out" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
m = re.fullmatch(r"--runs auto: this machine's stored calibration predicts (\d+) rounds for --mdd 10% \(the noisiest "
                 r"headline: cpu\.prime, run-to-run noise 5\.0%; 1 of the 1 selected tests calibrated\)", lines[0])
# 5% noise: 2 rounds detect (12.71 + 1.38) * 5% * 1 = 70%, so more are needed for 10%
assert m and int(m.group(1)) >= 3, lines[:2]
PY
# the rounds' progress names each case with the params that tell it apart (issue 44: QD1 and QD32 read alike)
expect 0 "--runs auto over two thread counts" "$VMB" run cpu.prime --threads 1,2 --time 0.02 --warmup 0 --repeat 2 \
	--cpu.max-prime 2000 --runs auto --mdd 0.01 --budget-total 5 --no-store
check "round 2 names both undecided cases by their threads, and the stop line the ones still undecided" python3 - \
	"$T/out" <<'PY'
import re, sys
out = open(sys.argv[1]).read()
m = re.search(r"^round 2: 0 of 2 cases decided; undecided: (.*)$", out, re.M)
assert m, out[-800:]
named = re.findall(r"cpu\.prime events_per_s at (threads=\d) \(minimal detectable difference [0-9.]+%\)", m.group(1))
assert sorted(named) == ["threads=1", "threads=2"], m.group(1)
assert re.search(r"^--runs auto: stopped after \d+ rounds: another would end after --budget-total 5s; still undecided: "
                 r"cpu\.prime events_per_s at threads=", out, re.M), out[-800:]
PY
expect 2 "--mdd without --runs auto" "$VMB" run cpu.prime --runs 3 --mdd 5 --no-store
has "$T/err" "give --runs auto" "says what --mdd needs"
expect 2 "--runs auto --json -" "$VMB" run cpu.prime --runs auto --json - --no-store
has "$T/err" "--json - writes one document, and --runs auto makes one a round" "says so, not '--runs 1000 makes 1000'"
expect 2 "--runs neither a number nor auto" "$VMB" run cpu.prime --runs lots --no-store
has "$T/err" "--runs 'lots': give a number from 1 to 1000, or auto" "the valid forms"
finish
