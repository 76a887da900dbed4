#!/bin/sh
# vmbench lab study: the shipped studies list and plan (every file of
# studies/ parses, and lab run's own parser takes every experiment's
# options), --quick shortens the plan, and a bad study file or command is
# refused with the file's line and exit 2, before anything runs.
. "$(dirname "$0")/lib.sh"

export VMBENCH_STUDIES="$SRC/studies"
expect 0 "lab study --list" "$VMB" lab study --list
nstudies=$(ls "$SRC"/studies/*.study | wc -l)
check "--list shows every shipped study ($nstudies)" test "$(grep -c "experiments, " "$T/out")" -eq "$nstudies"
has "$T/out" "vbox-storage     VirtualBox storage controllers" "with its name and title"
has "$T/out" "'vmbench lab study vbox-storage --plan'" "and how to plan it"

for f in "$SRC"/studies/*.study; do
	name=$(basename "$f" .study)
	expect 0 "lab study $name --plan: it parses, and lab run takes every experiment's options" \
		"$VMB" lab study "$name" --plan
	has "$T/out" "in all: " "$name: the plan ends with the boots and the time in all"
	check "$name: every experiment is planned or listed as not run, with why" python3 - "$f" "$T/out" <<'PY'
import re, sys
ids = re.findall(r"^\[experiment ([^\]]+)\]", open(sys.argv[1]).read(), re.M)
out = open(sys.argv[2]).read()
for i in ids:
    # after its title, its claims (each with how it is judged), then its plan
    m = re.search(r"^\[experiment " + re.escape(i) + r"\] .*\n(?:  claim: .*\n    judged: .*\n)*(.*)", out, re.M)
    assert m, i
    assert re.match(r"  (not run: .+|\d+ configurations? x \d+ rounds? x \d+ boots? = \d+ boots?|lab contend: \d+ guests of one configuration at once)", m.group(1)), m.group(1)
PY
done

# Study 0's 0.12 (issue 45): the USB controllers as disk rows, run; the
# failure-rate claims not comparable with why; passthrough not run, with why
expect 0 "lab study vmware-virtualbox --experiment usb,usb-passthrough --plan --quick" "$VMB" lab study \
	vmware-virtualbox --experiment usb,usb-passthrough --plan --quick
has "$T/out" "3 configurations x 3 rounds x 1 boot = 9 boots" "usb: three disk rows, --quick's 3 rounds"
has "$T/out" "    accel=kvm disk=usb-xhci fs=none" "qemu-xhci's row"
has "$T/out" "    accel=kvm disk=usb-ehci fs=none" "the ehci+uhci fallback's row"
has "$T/out" "  --quick adds: --time 1" "--quick's shorter repetitions"
has "$T/out" "judged: read MB/s: disk=usb-xhci > disk=usb-ehci; write MB/s: disk=usb-xhci > disk=usb-ehci" \
	"the claim the stand-in can judge: the emulation cost, as throughput"
has "$T/out" "judged: not comparable here: failure rates of a real phone and FPGA programmer" \
	"the study's failure rates: not comparable, with why"
has "$T/out" "  not run: needs a real phone and FPGA programmer on a real USB controller passed through" \
	"passthrough: not run, with why"

# --all: every shipped study planned in turn (nothing run), each with its
# claims and its "in all", then one closing line per study and their sum
cat > "$T/all.py" <<'PY'
import glob, os, re, sys
src, out, quick = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3] == "quick"
names = sorted(os.path.basename(f)[:-6] for f in glob.glob(src + "/studies/*.study"))
heads = re.findall(r"^study (\S+): ", out, re.M)
assert heads == names, (heads, names)
per = re.findall(r"^in all: (\d+) boots, ", out, re.M)
assert len(per) == len(names), per
closing = out.split("\nthe %d studies planned:\n" % len(names))[1]
for n in names:
    text = open("%s/studies/%s.study" % (src, n)).read()
    claims = len(re.findall(r"^(?:claim|expect)\s*=", text, re.M))
    exps = len(re.findall(r"^\[experiment ", text, re.M))
    sec = out.split("study %s: " % n)[1].split("\nstudy ")[0]
    assert sec.count("\n  claim: ") == claims, (n, sec.count("\n  claim: "), claims)
    line = "  %s: %d claim%s in %d experiment%s, planned (nothing run)\n" % (n, claims, "" if claims == 1 else "s", exps, "" if exps == 1 else "s")
    assert line in closing, (line, closing)
m = re.search(r"^in all, the %d studies: (\d+) boots, " % len(names), closing, re.M)
assert m and int(m.group(1)) == sum(map(int, per)), (m and m.group(1), per)
if quick:
    assert "not part of --quick: " in out, "--quick's plan of every study"
print(m.group(1))
PY
expect 0 "lab study --all --plan: every shipped study planned" "$VMB" lab study --all --plan --db "$T/all.db"
check "each study's name, claims and 'in all'; one closing line each; their sum" python3 "$T/all.py" "$SRC" "$T/out" full
python3 "$T/all.py" "$SRC" "$T/out" full > "$T/all-boots"
check "--all --plan runs nothing, stores nothing" test ! -e "$T/all.db"
expect 0 "lab study --all --plan --quick" "$VMB" lab study --all --plan --quick
check "--quick: every study's quick plan, the same closing lines" python3 "$T/all.py" "$SRC" "$T/out" quick
check "--quick: fewer boots in all than the full plans" test "$(python3 "$T/all.py" "$SRC" "$T/out" quick)" -lt "$(cat "$T/all-boots")"
# Study 0's 0.8: THP always against never, memcached loaded from the host
expect 0 "the thp experiment planned, --quick" "$VMB" lab study vmware-virtualbox --experiment thp --plan --quick
has "$T/out" "image=debian-apps thp=always" "its configurations set the guest's THP at boot"
has "$T/out" "--quick adds: --net.memcached-keys 20000 --net.connections 50" "and --quick a smaller key space"
has "$T/out" "judged: p999 ms: thp=always / thp=never in 2x..5x" "its p99.9 claim is judged on the rounds"
expect 2 "--all with a study" "$VMB" lab study vbox-storage --all --plan
has "$T/err" "--all runs every shipped study: no FILE with it" "says so"
expect 2 "--all with --experiment" "$VMB" lab study --all --experiment nic --plan
has "$T/err" "--experiment names experiments of one study" "says whose"
expect 2 "--all with -o" "$VMB" lab study --all --plan -o "$T/all.html"
has "$T/err" "--all writes one per study" "says why"

# Enough rounds to decide: a full run's rounds by power (lab run's --rounds
# auto --mdd --budget-total), from the study's rounds, to the finest claim's
# need, within a budget the plan states; --quick's fixed rounds, and the
# claims they leave undecided, under a stated assumption with no earlier run
printf '[study]\nformat = 1\ntitle = T\nsource = S\n[experiment a]\ntitle = A\nmatrix = accel=tcg disk=ide,ahci\nsuites = cpu\noption = --threads 1\nrounds = 4\nquick-rounds = 3\ncolumn = cpu.prime events_per_s | events/s\nclaim = faster | about 24%% more | events/s: disk=ide > disk=ahci\nclaim = close | - | events/s: disk=ide ~ disk=ahci within 6%%\n[experiment b]\ntitle = B\nmatrix = accel=tcg disk=ide,ahci\nsuites = cpu\noption = --threads 1\ncolumn = cpu.prime events_per_s | events/s\n' \
	> "$T/power.study"
expect 0 "a study with claims of two sizes: planned" "$VMB" lab study "$T/power.study" --plan --db "$T/power.db"
check "rounds by power to the finest claim's need, the budget stated and the estimate's upper bound" python3 - "$T/out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
a = text.split("[experiment a]")[1].split("[experiment b]")[0]
m = re.search(r"^  rounds by power: at least 4 \(the study's\), then more until every headline verdict's smallest detectable difference is within 3% \(what 'close' needs: half its margin of 6%\), within --budget-total (\d+) s \(12 rounds at the estimate's upper bound\)$", a, re.M)
assert m, a
budget = int(m.group(1))
e = re.search(r"^  estimated: (\d+) (s|min) to (\d+) (s|min) \(its rounds by power", a, re.M)
assert e, a
hi = int(e.group(3)) * (60 if e.group(4) == "min" else 1)
shown = budget if budget < 90 else round(budget / 60) * 60
assert hi == shown, (hi, budget)
b = text.split("[experiment b]")[1]
assert re.search(r"^  rounds: 3, fixed \(no claim of it to decide\)$", b, re.M), b
PY
# --budget-total SECONDS: the experiments' budgets scaled to make SECONDS in
# all (here one experiment has rounds by power: it gets all of it)
expect 0 "--budget-total 420: the full run's time in all" "$VMB" lab study "$T/power.study" --plan --budget-total 420 \
	--db "$T/power.db"
check "the budget its share, said, and the estimate's upper bound" python3 - "$T/out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
a = text.split("[experiment a]")[1].split("[experiment b]")[0]
m = re.search(r"within --budget-total (\d+) s \(--budget-total's share: ([0-9.e+-]+) of 12 rounds at the estimate's upper bound\)$", a, re.M)
assert m and abs(int(m.group(1)) - 420) <= 1 and float(m.group(2)) > 0, a
assert re.search(r"^  estimated: \d+ (s|min) to 7 min \(its rounds by power", a, re.M), a
PY
expect 2 "--budget-total with --quick" "$VMB" lab study "$T/power.study" --plan --quick --budget-total 420
has "$T/err" "--budget-total is a full run's time: --quick's rounds are fixed" "says why"
expect 2 "--budget-total with --all" "$VMB" lab study --all --plan --budget-total 420
expect 2 "--budget-total 0" "$VMB" lab study "$T/power.study" --plan --budget-total 0
expect 0 "the same, --quick" "$VMB" lab study "$T/power.study" --plan --quick --db "$T/power.db"
check "--quick: its rounds, no variance known before a run (said), the assumption named, the claims it leaves" python3 - "$T/out" <<'PY'
import math, sys
text = open(sys.argv[1]).read()
a = text.split("[experiment a]")[1].split("[experiment b]")[0]
# 3 paired rounds: (t(.975, 2) + t(.80, 2)) * 5% / sqrt(3), as a ratio
d = math.expm1((4.302653 + 1.060660) * 0.05 / math.sqrt(3)) * 100
line = ("  --quick: 3 rounds; what they detect here is not known before a run (no earlier run of this experiment in "
        "the store to measure its rounds' spread); if a claim's ratio moves 5%% from round to round (an assumption), "
        "about %.3g%%; claims needing finer: 'close' (needs 3%%, detects about %.3g%%)\n") % (d, d)
assert line in a, (line, a)
assert "rounds by power" not in text
PY
check "the plans stored nothing" test ! -e "$T/power.db"

# accel = kvm | tcg: what the study ran under. The plan says it per
# experiment, and once whether KVM boots a guest here (from /dev/kvm and the
# lab's remembered verdict: nothing boots); a study all under TCG has no
# such line
printf '[study]\nformat = 1\ntitle = T\nsource = S\n[experiment a]\ntitle = A\nmatrix = accel=kvm disk=ide,ahci\naccel = kvm\nsuites = cpu\noption = --threads 1\ncolumn = cpu.prime events_per_s\n[experiment b]\ntitle = B\nmatrix = accel=auto\naccel = kvm\nsuites = cpu\noption = --threads 1\ncolumn = cpu.prime events_per_s\n' \
	>"$T/kvm.study"
expect 0 "a study of two experiments with accel = kvm: planned" "$VMB" lab study "$T/kvm.study" --plan
check "each says the study ran it under hardware virtualization" test "$(grep -c "^  the study ran it under hardware virtualization (accel = kvm): KVM where it boots a guest here, else TCG" "$T/out")" = 2
check "whether KVM boots a guest here: said once" test "$(grep -c "^KVM: " "$T/out")" = 1
expect 0 "vbox-storage --plan: every configuration under TCG" "$VMB" lab study vbox-storage --plan
lacks "$T/out" "KVM: " "no word on KVM where nothing asks for it"
printf '[study]\nformat = 1\ntitle = T\nsource = S\n[experiment a]\ntitle = A\nmatrix = disk=ide accel=tcg | disk=ahci\naccel = tcg\nsuites = cpu\noption = --threads 1\ncolumn = cpu.prime events_per_s\n' \
	>"$T/tcg.study"
expect 2 "accel = tcg with a configuration that may use KVM" "$VMB" lab study "$T/tcg.study" --plan
has "$T/err" "tcg.study:8: accel = tcg: the matrix's configuration 2 of 2 may run under KVM (accel=auto)" "names the line and the configuration"

# the same study by its path, and --quick's shorter plan
expect 0 "lab study FILE --plan (a path)" "$VMB" lab study "$SRC/studies/vbox-storage.study" --plan
cp "$T/out" "$T/full"
expect 0 "lab study NAME --plan --quick" "$VMB" lab study vbox-storage --plan --quick
check "--quick's plan is shorter than the full one" python3 - "$T/full" "$T/out" <<'PY'
import re, sys
def secs(path):
    m = re.search(r"in all: \d+ boots, (\d+) (s|min) to", open(path).read())
    return int(m.group(1)) * (60 if m.group(2) == "min" else 1)
assert secs(sys.argv[2]) < secs(sys.argv[1]), (secs(sys.argv[2]), secs(sys.argv[1]))
PY

# a boot is estimated by its image's row: arm64-tcg's distro experiment
# boots image=debian-apps 6 times, at the table's 90 s each
cat > "$T/est.py" <<'PY'
import re
def est(text, exp):
    sec = text.split("[experiment %s]" % exp)[1].split("[experiment")[0]
    boots = int(re.search(r"= (\d+) boots?", sec).group(1))
    m = re.search(r"estimated: (\d+) (s|min) to", sec)
    return boots, int(m.group(1)) * (60 if m.group(2) == "min" else 1)
PY
expect 0 "lab study arm64-tcg --plan --quick" "$VMB" lab study arm64-tcg --plan --quick
check "a busybox guest's boots are estimated at 10 s each; quick-rounds, quick-skip, quick-option" python3 - "$T/out" "$T" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from est import est
text = open(sys.argv[1]).read()
boots, lo = est(text, "cpu")
assert boots == 6 and lo < 6 * 90, (boots, lo)
boots, lo = est(text, "boot")  # quick-rounds = 5 of its 10 rounds
assert boots == 10, boots
# quick-skip: the Debian experiment is listed with why, and not counted
sec = text.split("[experiment distro]")[1].split("[experiment")[0]
assert "not part of --quick: it boots a Debian guest" in sec and "'--experiment distro' runs it" in sec, sec
assert "estimated" not in sec and " x " not in sec, sec  # not planned, not counted
# quick-option: the fio file's quick size, said
assert "--quick adds: --disk-size 128m" in text.split("[experiment random-io]")[1].split("[experiment")[0], text
# the Debian guests' OLTP (db=mariadb) and HTTP (httpd=nginx) are left out of --quick, with why
for exp in ("oltp", "http"):
    sec = text.split("[experiment %s]" % exp)[1].split("[experiment")[0]
    assert "not part of --quick: it boots the Debian guest" in sec and "estimated" not in sec, sec
PY
expect 0 "--experiment distro --quick: named, the quick-skip experiment is planned" "$VMB" lab study arm64-tcg --plan --quick --experiment distro
check "planned: 6 boots of the Debian image, estimated at 90 s each" python3 - "$T/out" "$T" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from est import est
text = open(sys.argv[1]).read()
assert "not part of --quick" not in text, text
boots, lo = est(text, "distro")
assert boots == 6 and lo >= 6 * 90, (boots, lo)
assert "debian 90 s" in text and "busybox 10 s" in text, text[-400:]
assert "debian 90 s" in text and "busybox 10 s" in text, text[-400:]
PY

# the settings the studies used, as each plan shows them (issue 43)
expect 0 "vbox-storage's raw disk: the image on the host's cache, the raw device without, both uncached" \
	"$VMB" lab study vbox-storage --plan --experiment raw-disk
has "$T/out" "backend=file cache=writeback" "the image on the host's page cache"
has "$T/out" "backend=block cache=none" "the raw device without it"
has "$T/out" "backend=file cache=none" "and a row with both uncached"
has "$T/out" "against backend=file,cache=writeback" "against the image as the study had it"
expect 0 "vmware-virtualbox's headline: one accelerator, the two device sets" \
	"$VMB" lab study vmware-virtualbox --plan --experiment headline,pvscsi
check "profile=vmware and profile=vbox on one accelerator (accel=kvm, TCG where KVM cannot boot); pvscsi on the raw device" python3 - "$T/out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
head = text.split("[experiment headline]")[1].split("[experiment")[0]
confs = re.findall(r"^    (accel=\S+ .*)$", head, re.M)
assert len(confs) == 2 and all(c.startswith("accel=kvm ") for c in confs), confs
assert any("profile=vmware" in c for c in confs) and any("profile=vbox" in c for c in confs), confs
pv = text.split("[experiment pvscsi]")[1]
assert re.search(r"^    accel=kvm .*fs=none", pv, re.M), pv
PY
expect 0 "vmware-virtualbox's quota: planned, --quick" \
	"$VMB" lab study vmware-virtualbox --plan --quick --experiment quota
check "one 4-vCPU configuration running sched.quota, 3 quick rounds of --time 2, its four claims" python3 - "$T/out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
q = text.split("[experiment quota]")[1]
assert re.findall(r"^    (accel=\S+ .*)$", q, re.M) == ["accel=kvm smp=4"], q
assert "suites sched.quota" in q and "--quick adds: --time 2" in q, q
assert "1 configuration x 3 rounds x 1 boot = 3 boots" in q, q
assert len(re.findall(r"^  claim: over-commit ", q, re.M)) == 4, q
assert "switches/s, quota 4.5 / switches/s, quota 3.0 in 2.2x..4.4x" in q, q
assert "not comparable" not in q, q
PY
expect 0 "arm64-tcg's boot: UEFI on the ARM guest, the guest's own reboot" \
	"$VMB" lab study arm64-tcg --plan --experiment boot
has "$T/out" "cortex-a72 topology=1x2x1 firmware=uefi" "the ARM guest boots edk2"
has "$T/out" "suites boot.cold,boot.reboot" "warm is boot.reboot"

# --experiment: only the named experiments are planned (and run)
expect 0 "lab study --experiment pvscsi,snapshot --plan" "$VMB" lab study vmware-virtualbox --experiment pvscsi,snapshot --plan
check "only those two are planned" python3 - "$T/out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
assert re.findall(r"^\[experiment (\S+)\]", text, re.M) == ["pvscsi", "snapshot"], text[:600]
assert re.search(r"in all: 12 boots", text), text[-400:]
PY
expect 2 "--experiment of an experiment the study does not have" "$VMB" lab study vmware-virtualbox --experiment pvscsi,nope --plan
has "$T/err" "--experiment 'nope': study vmware-virtualbox has no such experiment (it has headline," "names it and lists the study's"
expect 2 "--experiment naming one twice" "$VMB" lab study vmware-virtualbox --experiment nic,nic --plan
has "$T/err" "names 'nic' twice" "says which"
expect 2 "--experiment with an empty name" "$VMB" lab study vmware-virtualbox --experiment nic, --plan
expect 2 "--experiment outside lab study" "$VMB" lab run --experiment nic
has "$T/err" "--experiment belongs to lab study" "says whose option it is"

# refusals: exit 2, the line named, nothing run
printf '[study]\nformat = 1\ntitle = T\nsource = S\n[experiment a]\ntitle = A\nmatrix = accel=tcg disk=ide,floppy\nsuites = cpu\ncolumn = cpu.prime events_per_s at threads=1\n' \
	> "$T/bad.study"
expect 2 "a study with a bad matrix" "$VMB" lab study "$T/bad.study" --plan
has "$T/err" "bad.study:5: [experiment a]: matrix: " "names the experiment's line"
printf '[study]\nformat = 1\ntitle = T\nsource = S\n\n[experiment a]\ntitle = A\nmatrix = accel=tcg\nsuites = disk\noption = --disk.dir /tmp\ncolumn = disk.randread iops at iodepth=1\n' \
	> "$T/opt.study"
expect 2 "an option lab run refuses" "$VMB" lab study "$T/opt.study" --plan
has "$T/err" "--disk.dir" "lab run's own message"
has "$T/err" "opt.study:10: option --disk.dir ...: lab run refuses it" "and the option's line"
printf '[study]\nformat = 1\ntitle = T\nsource = S\n[experiment a]\ntitle = A\nmatrix = accel=tcg\nsuites = cpu\noption = --cpu.max-prime 1\ncolumn = cpu.prime events_per_s at threads=1\n' \
	> "$T/range.study"
expect 2 "an option's value out of range" "$VMB" lab study "$T/range.study" --plan
has "$T/err" "--cpu.max-prime: '1' is out of range" "lab run's own range check"
printf '[study]\nformat = 1\ntitle = T\nsource = S\n[experiment a]\ntitle = A\nmatrix = accel=tcg\nsuites = cpu\noption = --threads 4\ncolumn = cpu.prime events_per_s\n' \
	> "$T/cases.study"
expect 2 "a column that would match several cases (1 and 4 threads)" "$VMB" lab study "$T/cases.study" --plan
has "$T/err" "cases.study:10: column: cpu.prime runs a case per thread count (--threads 4" "names the line and the cases"
mkfifo "$T/fifo.study"
expect 2 "a FIFO as the study: refused at once, not waited on" timeout 20 "$VMB" lab study "$T/fifo.study" --plan
has "$T/err" "fifo.study: not a regular file" "says what it is not"
expect 2 "a directory as the study" "$VMB" lab study "$SRC/studies/.." --plan
has "$T/err" "not a regular file" "said the same way"
expect 2 "a study that does not exist" "$VMB" lab study no-such-study --plan
has "$T/err" "no shipped study 'no-such-study'; the shipped studies ($SRC/studies): arm64-tcg, " "says so, and lists the shipped ones"
expect 2 "a study file that does not exist" "$VMB" lab study "$T/no-such.study" --plan
has "$T/err" "$T/no-such.study: No such file or directory" "names the path"
expect 2 "lab study without a study" "$VMB" lab study --plan
has "$T/err" "lab study needs a study" "says what it needs"
expect 2 "--list with a study" "$VMB" lab study vbox-storage --list
expect 2 "a run of a study lab run would refuse: stopped at the plan" "$VMB" lab study "$T/opt.study" --db "$T/none.db"
check "before anything ran or was stored" test ! -e "$T/none.db"
# a label the lab sets itself is refused by the plan, before anything runs
printf '[study]\nformat = 1\ntitle = T\nsource = S\n[experiment a]\ntitle = A\nmatrix = accel=tcg\nsuites = cpu\noption = --threads 1\noption = --label disk=mine\ncolumn = cpu.prime events_per_s\n[experiment b]\ntitle = B\nnot-run = why\n' \
	> "$T/label.study"
expect 2 "a label the lab sets itself: refused by the plan" "$VMB" lab study "$T/label.study" --db "$T/label.db" \
	-o "$T/label.html"
has "$T/err" "--label disk=mine: the lab sets the label disk itself" "lab run's own message"
has "$T/err" "label.study:5: [experiment a]: lab run refuses its options (above)" "and the experiment's line"
check "before anything ran or was stored" test ! -e "$T/label.db" -a ! -e "$T/label.html"
# what only this machine decides (a CPU it lets this process run on)
# refuses that experiment when it starts, before it boots: the others are
# still tabled
if python3 -c 'import os, sys; sys.exit(1023 in os.sched_getaffinity(0))'; then
	printf '[study]\nformat = 1\ntitle = T\nsource = S\n[experiment a]\ntitle = A\ncommand = contend\nmatrix = accel=tcg\nsuites = cpu.prime\noption = --host-cpus 1023\ncolumn = cpu.prime events_per_s\n[experiment b]\ntitle = B\nnot-run = why\n' \
		> "$T/refused.study"
	expect 0 "the plan leaves this machine's CPUs to the run" "$VMB" lab study "$T/refused.study" --plan
	expect 2 "an experiment lab contend refuses as it starts" "$VMB" lab study "$T/refused.study" --db "$T/refused.db" \
		-o "$T/refused.html"
	has "$T/err" "--host-cpus: CPU 1023 is not one this process may run on" "lab contend's own message"
	has "$T/out" "== [experiment a] A" "the refused experiment has its place"
	has "$T/out" "not run: lab run refused it here" "saying why it has no table"
	has "$T/out" "== [experiment b] B" "and the others theirs"
	check "the report is written all the same" test -s "$T/refused.html"
else
	skip "an experiment refused as it starts" "this process may run on CPU 1023"
fi
# A study file is input: its options may set nothing its own keys set, nor
# where results go, nor what boots in the guests, nor lab study's own; each
# refused at the plan, with its line and why
study_with() { # study_with FILE LINE...: a run experiment with these lines
	f=$1
	shift
	printf '[study]\nformat = 1\ntitle = T\nsource = S\n[experiment a]\ntitle = A\nmatrix = accel=tcg\nsuites = cpu\noption = --threads 1\ncolumn = cpu.prime events_per_s\n' > "$f"
	for l in "$@"; do printf '%s\n' "$l" >> "$f"; done
}
for c in "matrix|option = --matrix \"accel=tcg smp=1,2,3,4 mem=128M,256M,512M,1G disk=ide,nvme,virtio-blk,ahci\"" \
	"matrix|option = --matrix accel=bogus" "suites|option = --suites disk" "rounds|option = --rounds 100" \
	"boots|option = --boots 2" "baseline|option = --baseline none" "quick|option = --quick" \
	"db|option = --db x.db" "output|option = --time 1 -o x.html" "output|quick-option = --output=x.html" \
	"image-dir|option = --image-dir d" "cache|option = --cache d" "kernel|option = --kernel k" \
	"busybox|option = --busybox b" "agent|option = --agent x86_64=/bin/true" "arch|option = --arch aarch64" \
	"experiment|option = --experiment a" "verbose|option = --verbose" "label study=x|option = --label study=x" \
	"label study_run=x|quick-option = --label study_run=x"; do
	name=${c%%|*}
	study_with "$T/own.study" "${c#*|}"
	expect 2 "a study's option --$name: refused by the plan" "$VMB" lab study "$T/own.study" --plan
	has "$T/err" "own.study:11: $(printf '%s' "${c#*|}" | cut -d' ' -f1) --$name" "names the line and the option"
	lacks "$T/out" "1 configuration x" "and plans nothing"
done
study_with "$T/own.study" "option = --help"
expect 2 "a study's --help: refused, not printed" "$VMB" lab study "$T/own.study" --plan
has "$T/err" "own.study:11: option --help: a study may not give it" "says so at its line"
lacks "$T/out" "usage:" "lab's help is not printed"
study_with "$T/own.study" "option = --time 1 extra"
expect 2 "a word of an option line that is no option's" "$VMB" lab study "$T/own.study" --plan
has "$T/err" "own.study:11: option: 'extra' is no option of lab run's" "is refused, not dropped"
study_with "$T/own.study" "option = --policy fair"
expect 2 "a contend option in a run experiment: refused by the plan" "$VMB" lab study "$T/own.study" --plan
has "$T/err" "--policy belongs to lab contend; 'lab run' does not take it" "lab run's own message"
has "$T/err" "own.study:11: option --policy ...: lab run refuses it (above)" "and the study's line"
study_with "$T/own.study" "quick-option = --cpu.max-prime 1"
expect 2 "a quick-option lab run refuses: refused by a plan without --quick too" "$VMB" lab study "$T/own.study" --plan
has "$T/err" "own.study:11: quick-option --cpu.max-prime ...: lab run refuses it" "names the line"
for c in "option = --rt-priority 99|--rt-priority 99 with --rt-threads all" "option = --load 50,50|--load '50,50': 50 is there twice" \
	"option = --shares 1,1,1,2|--shares are the weights policy's" "option = --reserve 99|--reserve is the reservation policy's"; do
	printf '[study]\nformat = 1\ntitle = T\nsource = S\n[experiment a]\ntitle = A\ncommand = contend\nmatrix = accel=tcg\nsuites = cpu.prime\noption = --policy rt\n%s\ncolumn = cpu.prime events_per_s\n' \
		"${c%%|*}" > "$T/contend.study"
	expect 2 "lab contend's check of '${c%%|*}': at the plan" "$VMB" lab study "$T/contend.study" --plan
	has "$T/err" "${c#*|}" "lab contend's own message"
	has "$T/err" "contend.study:5: [experiment a]: lab contend refuses its options (above)" "and the experiment's line"
done

# A study's text reaches the terminal escaped: its plan, its run's tables,
# its errors; and the report stays HTML-escaped
esc=$(printf '\033')
printf '[study]\nformat = 1\ntitle = T\033[31m <red>\nsource = S\033]0;title\007\n[experiment a]\ntitle = A\033[2J\nstand-in = \302\233 C1\nnot-run = needs\033[1m <hardware>\n' \
	> "$T/esc.study"
expect 0 "a study with escape sequences: planned" "$VMB" lab study "$T/esc.study" --plan
has "$T/out" 'study esc: T\x1b[31m <red>' "the title's escape shown as text"
has "$T/out" 'source: S\x1b]0;title\x07' "the source's"
has "$T/out" '[experiment a] A\x1b[2J' "the experiment's title"
has "$T/out" 'not run: needs\x1b[1m <hardware>' "the reason it is not run"
lacks "$T/out" "$esc" "no escape byte reaches the terminal"
expect 0 "a study with escape sequences: run (nothing to boot)" "$VMB" lab study "$T/esc.study" --db "$T/esc.db" -o "$T/esc.html"
has "$T/out" '== [experiment a] A\x1b[2J' "its table's title"
lacks "$T/out" "$esc" "no escape byte in the run's output"
lacks "$T/err" "$esc" "nor in its messages"
check "the report: HTML-escaped, and no control character" python3 - "$T/esc.html" <<'PY'
import sys
h = open(sys.argv[1], encoding="utf-8").read()
assert "T\\x1b[31m &lt;red&gt;" in h, h
assert "needs\\x1b[1m &lt;hardware&gt;" in h, h
assert "\\xc2\\x9b C1" in h, h
assert not any(ord(c) < 0x20 and c != "\n" or 0x7f <= ord(c) <= 0x9f for c in h), [c for c in h if ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f]
PY
printf '[study]\nformat = 1\ntitle = T\nsource = S\nco\033[31mlour = red\n' > "$T/esckey.study"
expect 2 "an unknown key with an escape sequence" "$VMB" lab study "$T/esckey.study" --plan
has "$T/err" "esckey.study:5: unknown key 'co\\x1b[31mlour'" "echoed escaped"
lacks "$T/err" "$esc" "no escape byte in the error"
printf '[study]\nformat = 1\ntitle = T\nsource = S\n[experiment a]\ntitle = A\nmatrix = accel=tcg\nsuites = cpu\noption = --label "k=\033[2J"\ncolumn = cpu.prime events_per_s at threads=1\n' > "$T/escopt.study"
expect 2 "an option with a control character" "$VMB" lab study "$T/escopt.study" --plan
has "$T/err" "escopt.study:9: option: a control character (byte 12 is 0x1b)" "refused at its line"
lacks "$T/err" "$esc" "not echoed"

# NAME is a shipped study, never a file of the current directory; a path
# has a '/' or ends in .study
mkdir -p "$T/cwd"
printf 'not a study\n' > "$T/cwd/vbox-storage"
expect 0 "a file named vbox-storage here: the shipped study is planned" sh -c 'cd "$1" && shift && exec "$@"' sh \
	"$T/cwd" "$VMB" lab study vbox-storage --plan
has "$T/out" "study vbox-storage: VirtualBox storage controllers" "the shipped one"
cp "$SRC/studies/esx-nics.study" "$T/cwd/mine.study"
expect 0 "NAME.study is a path, in the current directory" sh -c 'cd "$1" && shift && exec "$@"' sh \
	"$T/cwd" "$VMB" lab study mine.study --plan
has "$T/out" "study mine: " "the file's"
expect 2 "a name near a shipped study's" "$VMB" lab study vbox-storag --plan
has "$T/err" "no shipped study 'vbox-storag' (did you mean 'vbox-storage'?); the shipped studies ($SRC/studies): arm64-tcg, esx-nics, vbox-storage, vcpu-scheduling, vmware-virtualbox" "suggests it and lists them"
# a device or a FIFO is refused before it is opened (opening /dev/ptmx makes
# a terminal): the kernel says of each open of a file (inotify's IN_OPEN)
expect 2 "/dev/ptmx as the study" "$VMB" lab study /dev/ptmx --plan
has "$T/err" "/dev/ptmx: not a regular file" "refused as what it is"
mkfifo "$T/watched.study"
check "a FIFO is refused without being opened" python3 - "$T/watched.study" "$VMB" <<'PY'
import ctypes, os, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
IN_OPEN, IN_NONBLOCK = 0x20, 0o4000
fd = libc.inotify_init1(IN_NONBLOCK)
assert fd >= 0 and libc.inotify_add_watch(fd, sys.argv[1].encode(), IN_OPEN) >= 0, ctypes.get_errno()
r = subprocess.run([sys.argv[2], "lab", "study", sys.argv[1], "--plan"], capture_output=True, timeout=20)
assert r.returncode == 2 and b"watched.study: not a regular file" in r.stderr, r
try:
    events = os.read(fd, 4096)
except BlockingIOError:
    events = b""
assert not events, "the FIFO was opened"
PY
expect 2 "--plan is lab study's, lab run's and lab contend's" "$VMB" lab image --plan
has "$T/err" "--plan belongs to lab run, lab contend and lab study; 'lab image' does not take it" "says whose"
expect 2 "lab study --time: the study says how each experiment measures" "$VMB" lab study vbox-storage --plan --time 3
has "$T/err" "--time belongs to lab run and lab contend" "says so"
expect 2 "lab study --rounds: the study's" "$VMB" lab study vbox-storage --plan --rounds 3
expect 1 "--list where no studies are" env VMBENCH_STUDIES="$T/none" "$VMB" lab study --list
has "$T/err" "$T/none" "names the directory"

# One small study end to end: the host against one TCG guest, two rounds
# (two boots, about 20 s): plain build only, as the other guest tests
if [ "${3:-all}" != all ]; then
	skip "a study run end to end" "this build boots no guest (the ASan build; the plain build's run boots one)"
elif [ ! -x /bin/busybox ] || ! command -v qemu-system-x86_64 >/dev/null 2>&1 || [ "$(uname -m)" != x86_64 ]; then
	skip "a study run end to end" "needs busybox-static and qemu-system-x86_64 on an x86_64 host (scripts/deps.sh test)"
else
	export TMPDIR="$T/tmp"
	mkdir -p "$TMPDIR" "$T/w"
	cat > "$T/tiny.study" <<'STUDY'
[study]
format = 1
title = Tiny <study> & the host against a TCG guest
source = vmbench's own test (tests/cli/study.sh)
[experiment cpu]
title = cpu.prime on the host and in a TCG guest
matrix = accel=tcg
suites = cpu.prime
option = --time 0.1
option = --repeat 2
option = --warmup 0
option = --threads 1
option = --cpu.max-prime 2000
rounds = 2
column = cpu.prime events_per_s at threads=1 | events/s
column = cpu.prime latency.p99 in us | p99 us
published = host | events/s | 1,000,000
conclusion = The host is faster than its emulation.
expect = events/s: host > accel=tcg
claim = the host <faster> than VT-x | 1,000,000 | events/s: host / accel=tcg in 1.01..1000 | kvm
claim = its tail latency | 7 us | not comparable: the study's tail was measured another way
[experiment gone]
title = not here
not-run = needs <hardware>
claim = a figure of hardware the lab lacks | 3 | not comparable: needs <hardware>
STUDY
	shared_images x86_64
	# a --db path longer than 64 characters: lab run was handed it cut, stored
	# into another file and the tables found nothing
	mkdir -p "$T/a-directory-whose-name-makes-the-path-longer-than-sixty-four-characters"
	db="$T/a-directory-whose-name-makes-the-path-longer-than-sixty-four-characters/study.db"
	expect 0 "lab study: a study of two experiments, one run, one not" sh -c 'cd "$1" && shift && exec "$@"' sh \
		"$T/w" "$VMB" lab study "$T/tiny.study" --quick --cache "$SRC/build-lab-cache" --image-dir "$T/imgs" \
		--db "$db"
	has "$T/out" "== [experiment cpu] cpu.prime on the host and in a TCG guest" "the experiment's table"
	check "a row per configuration, a figure per column, events in events/s and p99 in us" python3 - "$T/out" <<'PY'
import re, sys
out = open(sys.argv[1]).read()
# after the row's name, the accelerator its results ran under (the host: none)
ran = {m.group(1): m.group(2) for m in re.finditer(r"^  (host|accel=tcg)\s+(-|kvm|tcg|mixed)\s+[0-9]", out, re.M)}
assert ran == {"host": "-", "accel=tcg": "tcg"}, ran
rows = {m.group(1): m.group(2).split() for m in re.finditer(r"^  (host|accel=tcg)\s+(?:-|tcg)\s+([0-9].*)$", out, re.M)}
assert set(rows) == {"host", "accel=tcg"}, rows
for name, cells in rows.items():
    assert cells[1] == "events/s" and float(cells[0]) > 0 and float(cells[2]) > 0, (name, cells)
assert float(rows["host"][0]) > float(rows["accel=tcg"][0]), rows
PY
	has "$T/out" "claim: events/s: host > accel=tcg: " "the claim's verdict, paired by round"
	has "$T/out" "] over 2 rounds" "on the two rounds"
	has "$T/out" "reproduction card of study tiny (claim | published | measured here | verdict):" "the card"
	has "$T/out" "cpu: the host <faster> than VT-x | 1,000,000 | " "a claim's row: its text and published figure"
	lacks "$T/out" "ran under TCG: the claim is about hardware virtualization" \
		"a kvm claim whose side asked for TCG (accel=tcg: emulated on purpose) is judged, not set aside (a side that asked for KVM and fell back: tests/unit/test_study.c)"
	has "$T/out" "cpu: its tail latency | 7 us | - | not comparable here: the study's tail was measured another way" \
		"a claim the lab cannot measure says why"
	has "$T/out" "gone: a figure of hardware the lab lacks | 3 | - | not comparable here: needs <hardware>" \
		"the claims of an experiment not run are on the card"
	check "the card's closing line counts every claim" sh -c "grep -Eq '^  [0-2] of 4 claims reproduced, [0-2] contradicted, [0-2] inconclusive, 2 not comparable$' '$T/out'"
	has "$T/out" "accel=tcg against host, events/s: " "every cell against the baseline, paired"
	has "$T/out" "the study's figure: host | events/s | 1,000,000" "the study's figures beside"
	has "$T/out" "== [experiment gone] not here" "the experiment not run is listed"
	has "$T/out" "not run: needs <hardware>" "with why"
	check "the report: new, a section per experiment, every text escaped, each row's accelerator" python3 - "$T/w" <<'PY'
import glob, sys
(path,) = glob.glob(sys.argv[1] + "/vmbench-study-*.html")
h = open(path).read()
assert h.count("<section>") == 3, h.count("<section>")  # the card and the two experiments
assert "Tiny &lt;study&gt; &amp; the host" in h and "<study>" not in h
assert "needs &lt;hardware&gt;" in h
assert "<h2>Reproduction card</h2>" in h and h.index("Reproduction card") < h.index("cpu.prime on the host")
assert "the host &lt;faster&gt; than VT-x" in h and "<faster>" not in h
assert "claims reproduced" in h
import re
assert "<th>ran under</th>" in h and re.search(r"<td>accel=tcg</td>\s*<td>tcg</td>", h) and re.search(r"<td>host</td>\s*<td>-</td>", h), h
PY
	check "stored: every run with the labels study, experiment and study_run" python3 - "$db" <<'PY'
import json, sqlite3, sys
docs = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs")]
# a try that failed and was booted again (--retries, on a busy machine) is
# stored as a marker beside the run that then succeeded: said, not counted
for f in (d for d in docs if "lab_failure" in d):
    print("# a failed try, retried:", json.dumps(f["lab_failure"])[:300])
docs = [d for d in docs if "lab_failure" not in d]
assert len(docs) == 4, [(d["labels"], d.get("lab_config")) for d in docs]  # the host and the guest, two rounds each
for d in docs:
    l = d["labels"]
    assert l["study"] == "tiny" and l["experiment"] == "cpu" and l["study_run"].startswith("tiny-"), l
assert len({d["labels"]["study_run"] for d in docs}) == 1
assert sorted(d["run_group"]["round"] for d in docs) == [1, 1, 2, 2]
PY
	# lab report of the study's run redraws its card from the store, by the
	# shipped study of its name ($VMBENCH_STUDIES), and heads its report with it
	cp "$T/out" "$T/run.out"
	run=$(python3 -c 'import json, sqlite3, sys; print(json.loads(sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs LIMIT 1").fetchone()[0])["labels"]["study_run"])' "$db")
	mkdir -p "$T/shipped"
	cp "$T/tiny.study" "$T/shipped/tiny.study"
	check "--quick's note: every inconclusive claim that needs finer than the run detected is named" python3 - "$T/run.out" <<'PY'
import re, sys
out = open(sys.argv[1]).read()
notes = {m.group(1): float(m.group(2)) for m in
         re.finditer(r"--quick's rounds left cpu: (.*?) inconclusive: it needs ([0-9.]+)%", out)}
for m in re.finditer(r"^  cpu: (.*?) \| .* \| inconclusive: .*the smallest difference this run could detect: (\d+)%", out, re.M):
    # what each claim needs comes from its own size (a direction 10%, a ratio half its range's width, capped)
    needs = notes.get(m.group(1))
    if needs is None:
        continue
    assert needs < int(m.group(2)) + 1, (m.group(0), needs)  # the card rounds what it could detect
# a note only for a claim the card calls inconclusive; none for one not comparable
for claim in notes:
    assert re.search(r"^  cpu: " + re.escape(claim) + r" \| .* \| inconclusive: ", out, re.M), claim
assert "--quick's rounds left cpu: its tail latency" not in out
PY
	# a --quick plan after a run foresees its rounds from that run's spread
	expect 0 "lab study --plan --quick with the run in the store" "$VMB" lab study "$T/tiny.study" --plan --quick --db "$db"
	check "what --quick's 2 rounds detect, from the spread of the stored run's rounds" python3 - "$T/out" "$run" <<'PY'
import re, sys
out = open(sys.argv[1]).read()
m = re.search(r"^  --quick: 2 rounds detect about ([0-9.e+]+)%(?: to [0-9.e+]+%)? here \(from the spread of the rounds of study_run=(\S+), the newest earlier run of it in the store\); claims needing finer: (.*)$", out, re.M)
assert m and m.group(2) == sys.argv[2], out
assert float(m.group(1)) >= 0
assert (m.group(3) == "none") == (float(m.group(1)) <= 10), m.group(0)
PY
	# and how long its round took: the stored documents' first start to last
	# end over their rounds, which the estimate does not go below
	check "a round's time measured here, from the stored run, and the estimate not below it" python3 - "$T/out" "$run" "$db" <<'PY'
import datetime, json, re, sqlite3, sys
out, run, db = sys.argv[1], sys.argv[2], sys.argv[3]
out = open(out).read()
docs = [json.loads(d) for (d,) in sqlite3.connect(db).execute("SELECT doc FROM runs")]
docs = [d for d in docs if d.get("labels", {}).get("study_run") == run and "lab_failure" not in d
        and d.get("settings", {}).get("quick") is True]
t = lambda s: datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").timestamp()
rounds = len(docs) / 2  # a round: the host and the one configuration
per = (max(t(d["ended"]) for d in docs) - min(t(d["started"]) for d in docs)) / rounds
shown = lambda s: "%.0f s" % s if s < 90 else "%.0f min" % (s / 60)
line = "  measured here before: %s a round (study_run=%s, %.3g round%s, --quick)\n" % (shown(per), run, rounds,
                                                                                      "" if rounds == 1 else "s")
assert line in out, (line, out)
e = re.search(r"^  estimated: (?:about )?(\d+) (s|min)", out, re.M)
lo = int(e.group(1)) * (60 if e.group(2) == "min" else 1)
assert lo + (30 if e.group(2) == "min" else 0.5) >= per * 2, (lo, per, e.group(0))
PY
	expect 0 "lab report study_run=RUN: the study's run" env VMBENCH_STUDIES="$T/shipped" "$VMB" lab report \
		"study_run=$run" --db "$db" -o "$T/report.html"
	has "$T/out" "the card of study_run=$run, redrawn from the store" "says whose card"
	check "the card redrawn: the run's own, row for row, and its closing line" python3 - "$T/run.out" "$T/out" <<'PY'
import sys
def card(path):
    text = open(path).read()
    part = text.split("reproduction card of study tiny (claim | published | measured here | verdict):\n")[1]
    lines = []
    for l in part.split("\n"):
        lines.append(l)
        if " claims reproduced, " in l:
            return lines
    raise AssertionError(part[:500])
a, b = card(sys.argv[1]), card(sys.argv[2])
assert a == b and len(a) == 5, (a, b)
PY
	check "the report is headed by the card" python3 - "$T/report.html" <<'PY'
import sys
h = open(sys.argv[1]).read()
assert "<h2>Reproduction card</h2>" in h, h[:2000]
assert h.index("Reproduction card") < h.index("<h2>Summary</h2>"), "first"
assert "the host &lt;faster&gt; than VT-x" in h and "of 4 claims reproduced" in h
PY
	expect 0 "lab report of a study's run whose study is not shipped here" "$VMB" lab report "study_run=$run" \
		--db "$db" -o "$T/report2.html"
	has "$T/err" "no shipped study is named tiny" "says why there is no card"
	lacks "$T/out" "reproduction card" "and draws none"
	check "no QEMU process of this test is left" sh -c "! pgrep -f '[q]emu-system-.*$TMPDIR' >/dev/null"
	# lab report of a study's session: one baseline a page (the host, the
	# experiment's), stated once at the top, and the lead sentence against it
	expect 0 "lab report of the study's session, again" env VMBENCH_STUDIES="$T/shipped" "$VMB" lab report \
		"study_run=$run" --db "$db" -o "$T/report3.html"
	check "the terminal's lead, after the card: the configuration against the host" sh -c \
		'sed -n "/ claims reproduced, /,\$p" "$1" | grep -v "^ *\$" | sed -n 2p | grep -q "^accel=tcg vs host: "' sh "$T/out"
	check "the page: its baseline stated once, before the lead; the lead and every table against it" python3 - \
		"$T/report3.html" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
base = re.findall(r'<p class="baseline">Baseline: <b>([^<]*)</b>\.', h)
assert base == ["host"], base  # one baseline, stated once
lead = re.search(r'<p class="lead">([^<]*)</p>', h)
assert lead and h.index('class="baseline"') < lead.start() < h.index("<h2>Summary</h2>"), "stated at the top, the lead after it"
pairs = re.findall(r"(?:^|\n)(\S[^\n]*?) vs ([^:\n]+):", lead.group(1))
assert pairs == [("accel=tcg", "host")], pairs  # the lead against that baseline
heads = set(re.findall(r'<th class="vd">[^<]* vs ([^<]*)</th>', h))
assert heads == {"host"}, heads  # and every table's verdicts
PY
	# the study's page as rich as a lab page: a chart per column, the published
	# figure in its cell, each verdict with its detectable difference, the
	# configurations' fingerprints, every text escaped (the run's own page, above)
	cat > "$T/studypage.py" <<'PY'
import glob, html, re, sqlite3, json, sys
part, where, db = sys.argv[1:4]
(path,) = glob.glob(where + "/vmbench-study-*.html")
h = open(path, encoding="utf-8").read()
sec = {re.search(r"<h2>(.*?)</h2>", x).group(1): x for x in h.split("<section>")[1:]}
cpu = sec["cpu.prime on the host and in a TCG guest"]
rows = {m.group(1): m.group(2) for m in re.finditer(r"<tr><td>(host|accel=tcg)</td>\s*<td>[^<]*</td>(.*?)</tr>", cpu, re.S)}
cells = {k: re.findall(r"<td[^>]*>(.*?)</td>", v, re.S) for k, v in rows.items()}
assert len(cells) == 2 and all(len(v) == 2 for v in cells.values()), cells
if part == "charts":  # a chart per column of the experiment's table, none for the experiment not run
    charts = re.findall(r"<svg.*?</svg>", cpu, re.S)
    assert [re.search(r"<title>(.*?)</title>", c).group(1) for c in charts] == ["events/s", "p99 us"], charts
    assert "<svg" not in sec["not here"]
    for c in charts:  # a bar per row, its value in its tooltip
        assert re.search(r"<title>host: [0-9.]+k?</title>", c) and re.search(r"<title>accel=tcg: [0-9.]+k?</title>", c), c
if part == "published":  # in the cell of its row (host) and column (events/s), not listed apart
    assert '<span class="published">1,000,000 published</span>' in cells["host"][0], cells
    assert "published" not in cells["host"][1] + "".join(cells["accel=tcg"]), cells
    assert "host | events/s | 1,000,000" not in cpu, "matched: not listed apart"
if part == "mdd":  # each verdict against the baseline with its detectable difference, each claim's too
    for c in cells["accel=tcg"]:
        assert re.search(r"<small>[0-9.]+x, (better|worse|no significant difference), p=[0-9.e-]+, mdd (\d+%|unknown)", c), c
    claims = re.findall(r'<p class="(?:agrees|disagrees|neither)">((?:events/s: host|the host &lt;faster).*?)</p>', cpu)
    assert len(claims) == 2, claims
    for c in claims:
        assert re.search(r"could detect: \d+%", c), c
if part == "fingerprints":  # each configuration's, from its documents
    docs = [json.loads(r[0]) for r in sqlite3.connect(db).execute("SELECT doc FROM runs")]
    first = {}
    for d in sorted((d for d in docs if "lab_failure" not in d), key=lambda d: d["run_group"]["round"]):
        first.setdefault(d["lab_config"], d)
    env = cpu.split("<h3>Environments</h3>")[1]
    assert re.findall(r"<thead><tr><th>fact</th><th>(.*?)</th><th>(.*?)</th></tr>", env) == [("host", "accel=tcg")], env[:300]
    for fact, get in (("cpu", lambda d: d["fingerprint"]["cpu"]["model"]),
                      ("kernel", lambda d: d["fingerprint"]["kernel"]["release"]),
                      ("hypervisor", lambda d: "name " + d["fingerprint"]["hypervisor"]["name"])):
        row = re.search(r"<tr><th>%s</th>(.*?)</tr>" % fact, env, re.S).group(1)
        vals = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        assert len(vals) == 2, vals
        for name, v in zip(("host", "accel=tcg"), vals):
            assert html.unescape(v).startswith(get(first[name])), (fact, name, v)
if part == "escaped":  # every text: the title (in the head, the page and no chart), the claims; no control character
    assert h.count("Tiny &lt;study&gt; &amp; the host") == 2 and "<study>" not in h, h[:400]
    assert "<faster>" not in h and "<hardware>" not in h
    assert not any(ord(c) < 0x20 and c != "\n" for c in h)
    assert "<svg" in h and len(h) < 60000, len(h)  # the charts drawn, the page still small
PY
	for c in "charts|an <svg> chart per column of the experiment's table, a bar per row" \
		"published|the study's figure in the cell of its row and column, not listed apart" \
		"mdd|each verdict against the baseline says its mdd, each claim's verdict its detectable difference" \
		"fingerprints|each configuration's CPU, kernel and hypervisor, from its documents" \
		"escaped|every text escaped, no control character, the page under 60 KB"; do
		check "the study's page: ${c#*|}" python3 "$T/studypage.py" "${c%%|*}" "$T/w" "$db"
	done
	# Ctrl-C once the guest is up: the study stops there, draws nothing of the
	# cut experiment (it once asked its session's tables of the store and said
	# "no stored run has the labels ...", with lab study's usage), and says
	# what it stored and how to see it
	check "Ctrl-C in an experiment: exit 130, no table drawn, the stored part named" python3 - "$VMB" "$T" "$SRC" <<'PY'
import os, signal, subprocess, sys
vmb, t, src = sys.argv[1:4]
env = dict(os.environ, VMBENCH_TEST_STOP_AT="lab-booted")
p = subprocess.Popen([vmb, "lab", "study", f"{t}/tiny.study", "--quick", "--cache", f"{src}/build-lab-cache",
                      "--image-dir", f"{t}/imgs", "--db", f"{t}/int.db", "-o", f"{t}/int.html"], env=env,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
pid, status = os.waitpid(p.pid, os.WUNTRACED)
assert os.WIFSTOPPED(status), status
os.kill(p.pid, signal.SIGINT)
os.kill(p.pid, signal.SIGCONT)
out, err = (x.decode() for x in p.communicate(timeout=300))
assert p.returncode == 130, (p.returncode, err)
assert "no stored run has the labels" not in err and "--help" not in err, err
assert "interrupted: what was measured is stored; 'vmbench lab report study_run=tiny-" in err, err
assert "reproduction card" not in out and not os.path.exists(f"{t}/int.html"), out[-500:]
PY
	check "no QEMU process of this test is left after it" sh -c "! pgrep -f '[q]emu-system-.*$TMPDIR' >/dev/null"
fi
finish
