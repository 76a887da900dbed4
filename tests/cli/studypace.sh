#!/bin/sh
# A study's plan against what its store says, without booting a guest:
# what a round took here before (lab study --plan's "measured here
# before") from stored documents whose times are hostile or unusual (in the
# future, before their own run began, a numeric offset, a fraction of a
# second, a lowercase t), each the only document of its store; and
# --budget-total where there is nothing to budget, or a budget below the
# suites' estimate with no earlier run.
. "$(dirname "$0")/lib.sh"

cat >"$T/pace.study" <<'STUDY'
[study]
format = 1
title = T
source = S

[experiment a]
title = A
matrix = accel=tcg disk=ide,ahci
suites = cpu
option = --threads 1
rounds = 4
column = cpu.prime events_per_s | events/s
claim = faster | about 24% more | events/s: disk=ide > disk=ahci

[experiment b]
title = B
matrix = accel=tcg disk=ide,ahci
suites = cpu
option = --threads 1
column = cpu.prime events_per_s | events/s
STUDY
expect 0 "a document to label" "$VMB" run cpu.prime --threads 1 --time 0.05 --warmup 0 --repeat 3 --no-store -q \
	--json "$T/base.json"

# store NAME STARTED ENDED: a store of one document of experiment a's
# host, of the full run study_run=pace-20261201-100000 (begun 10:00:00 UTC)
store() {
	python3 - "$T/base.json" "$T/$1.json" "$2" "$3" <<'PY'
import json, sys, uuid
d = json.load(open(sys.argv[1]))
d["id"] = str(uuid.uuid4())
d["labels"] = {"lab": "20261201-100000-abcd", "study": "pace", "experiment": "a",
               "study_run": "pace-20261201-100000"}
d["lab_config"] = "host"
d["settings"]["quick"] = False
d["started"], d["ended"] = sys.argv[3], sys.argv[4]
json.dump(d, open(sys.argv[2], "w"))
PY
	"$VMB" import --keep-lab-labels "$T/$1.json" --db "$T/$1.db" >/dev/null
}

# each: NAME|STARTED|ENDED|what the plan says of a round ("-": nothing)|why
for c in "future|2026-12-01T10:00:00Z|9999-12-31T23:59:59Z|-|a document that ends in the future is no pace" \
	"early|2000-01-01T00:00:00Z|2026-12-01T10:30:00Z|-|nor one that began before its run did" \
	"offset|2026-12-01T12:30:00+02:00|2026-12-01T11:00:00Z|90 min|a numeric offset is the time's own: 30 min" \
	"lower|2026-12-01t10:00:00.5z|2026-12-01T10:01:00.5Z|3 min|a lowercase t and z, a fraction: 60 s"; do
	IFS='|' read -r name started ended said why <<EOF
$c
EOF
	check "$why: stored" store "$name" "$started" "$ended"
	expect 0 "$why: planned" "$VMB" lab study "$T/pace.study" --plan --experiment a --db "$T/$name.db"
	if [ "$said" = - ]; then
		lacks "$T/out" "measured here before" "$why: no round measured here said"
		check "$why: the estimate as with no earlier run" grep -q "^  estimated: .* (its rounds by power" "$T/out"
	else
		has "$T/out" "  measured here before: $said a round (study_run=pace-20261201-100000, 0.333 rounds)" \
			"$why: a third of a round (the host, of three a round)"
	fi
done

# a budget below the suites' estimate, with no earlier run: the study's
# rounds, not a pace that nothing measured
expect 0 "--budget-total 1, nothing stored" "$VMB" lab study "$T/pace.study" --plan --budget-total 1 \
	--db "$T/none.db"
has "$T/out" "(4 rounds, the study's, which run whatever the budget)" "the study's rounds, said"
lacks "$T/out" "pace measured here" "no pace said where none was measured"

# nothing to budget: a usage error, as lab run's --budget-total without --rounds auto
expect 2 "--budget-total with only an experiment of fixed rounds" "$VMB" lab study "$T/pace.study" --plan \
	--budget-total 600 --experiment b --db "$T/none.db"
has "$T/err" "no experiment of study pace among those of --experiment has rounds by power" "says why"
expect 2 "--budget-total on a study of lab contend's fixed rounds" "$VMB" lab study vcpu-scheduling --plan \
	--budget-total 600 --db "$T/none.db"
has "$T/err" "no experiment of study vcpu-scheduling has rounds by power to budget" "says so"
finish
