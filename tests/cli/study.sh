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
    m = re.search(r"^\[experiment " + re.escape(i) + r"\] .*\n(.*)", out, re.M)
    assert m, i
    assert re.match(r"  (not run: .+|\d+ configurations? x \d+ rounds? x \d+ boots? = \d+ boots?)", m.group(1)), m.group(1)
PY
done

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

# refusals: exit 2, the line named, nothing run
printf '[study]\nformat = 1\ntitle = T\nsource = S\n[experiment a]\ntitle = A\nmatrix = accel=tcg disk=ide,floppy\nsuites = cpu\ncolumn = cpu.prime events_per_s\n' \
	> "$T/bad.study"
expect 2 "a study with a bad matrix" "$VMB" lab study "$T/bad.study" --plan
has "$T/err" "bad.study:5: [experiment a]: matrix: " "names the experiment's line"
printf '[study]\nformat = 1\ntitle = T\nsource = S\n\n[experiment a]\ntitle = A\nmatrix = accel=tcg\nsuites = disk\noption = --disk.dir /tmp\ncolumn = disk.randread iops\n' \
	> "$T/opt.study"
expect 2 "an option lab run refuses" "$VMB" lab study "$T/opt.study" --plan
has "$T/err" "--disk.dir" "lab run's own message"
has "$T/err" "opt.study:6: [experiment a]: lab run refuses its options" "and the experiment's line"
printf '[study]\nformat = 1\ntitle = T\nsource = S\n[experiment a]\ntitle = A\nmatrix = accel=tcg\nsuites = cpu\noption = --cpu.max-prime 1\ncolumn = cpu.prime events_per_s\n' \
	> "$T/range.study"
expect 2 "an option's value out of range" "$VMB" lab study "$T/range.study" --plan
has "$T/err" "--cpu.max-prime: '1' is out of range" "lab run's own range check"
expect 2 "a study that does not exist" "$VMB" lab study no-such-study --plan
has "$T/err" "studies/no-such-study.study: No such file or directory" "names where it looked"
expect 2 "lab study without a study" "$VMB" lab study --plan
has "$T/err" "lab study needs a study" "says what it needs"
expect 2 "--list with a study" "$VMB" lab study vbox-storage --list
expect 2 "lab study without --plan" "$VMB" lab study vbox-storage
has "$T/err" "this vmbench plans only" "says that it plans, and how"
expect 2 "--plan is lab study's" "$VMB" lab run --matrix accel=tcg --plan
has "$T/err" "--plan is an option of 'lab study'" "says whose"
expect 2 "lab study --time: the study says how each experiment measures" "$VMB" lab study vbox-storage --plan --time 3
has "$T/err" "--time is an option of 'lab run'" "says so"
expect 2 "lab study --rounds: the study's" "$VMB" lab study vbox-storage --plan --rounds 3
expect 1 "--list where no studies are" env VMBENCH_STUDIES="$T/none" "$VMB" lab study --list
has "$T/err" "$T/none" "names the directory"
finish
