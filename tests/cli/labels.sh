#!/bin/bash
# What a label is, one grammar for every place (issue 41): what run, import
# and lab take as --label, what a selector selects, the labels the lab sets
# itself (no user claims a lab session or a study), the JSON an import reads
# (no key twice, nothing after the document), and the suite lists of run
# and lab --suites (commas or separate words, both places).
. "$(dirname "$0")/lib.sh"

fx="$SRC/tests/fixtures/import"
RULE="a label is KEY=VALUE: a key of 1 to 127 letters, digits"

# --- the grammar: what no selector could select is refused where it is given ---
expect 2 "run --label a=b,c=d is refused (it was stored as {a: 'b,c=d'})" "$VMB" run cpu.prime --quick --no-store \
	--label a=b,c=d
has "$T/err" "a: the value has ','" "the message names the key and the character"
has "$T/err" "$RULE" "and says what a label is"
expect 2 "import --label a=b=c is refused" "$VMB" import "$fx/sysbench-cpu.txt" --label a=b=c
has "$T/err" "a: the value has '='" "the message names the '='"
expect 2 "import --label k= (an empty value) is refused" "$VMB" import "$fx/sysbench-cpu.txt" --label k=
has "$T/err" "the value is empty" "says so"
expect 2 "lab run --label a=x,y is refused" "$VMB" lab run --label a=x,y
has "$T/err" "a: the value has ','" "by the same words"
expect 0 "import with labels the grammar takes" "$VMB" import "$fx/sysbench-cpu.txt" --label a=b --label c=d \
	--label "note=two words"
expect 0 "and compare selects them by a=b,c=d" "$VMB" export "a=b,c=d" --format csv
has "$T/out" '"cpu","prime",' "the run is found"
expect 0 "a value with a space is selected too" "$VMB" export "note=two words" --format csv
has "$T/out" '"cpu","prime",' "the run is found"
expect 2 "a selector whose key has a space is refused, saying why" "$VMB" compare "a b=c" 1
has "$T/err" "the key has ' ' (character 2)" "the message names the character"
has "$T/err" "$RULE" "and says what a label is"
expect 2 "results --label with a key of '/' is refused" "$VMB" results --label "a/b=c"
has "$T/err" "letters, digits, '_', '-', '.'" "says what a key holds"

# --- the lab's own labels: set by the lab, never by a user ---
for k in lab study study_run experiment config net_backend hv_backend hv_host hv_uri policy guest load; do
	expect 2 "run --label $k=x is refused" "$VMB" run cpu.prime --quick --no-store --label "$k=x"
done
has "$T/err" "load is a label the lab sets itself" "the message names the key"
has "$T/err" "lab, study, study_run, experiment, config, net_backend, hv_backend, hv_host, hv_uri, policy, guest, load" "and lists the lab's labels"
expect 2 "import --label study=x is refused" "$VMB" import "$fx/sysbench-cpu.txt" --label study=fake
has "$T/err" "study is a label the lab sets itself" "says so"
expect 2 "lab run --label experiment=x is refused" "$VMB" lab run --label experiment=x
has "$T/err" "experiment is a label the lab sets itself" "says so"
expect 0 "but a selector may name them (results --label lab=x finds nothing)" "$VMB" results --label lab=x
expect 0 "and run --label disk=virtio (a matrix key, run's own example) is taken" "$VMB" run cpu.prime --quick \
	--label disk=virtio --json "$T/doc.json" --no-store
# a vmbench document that claims a lab session or a study, or has a label no selector selects
for case in "lab=20260101-000000-abcd" "study_run=s-1" "a,b=c" "k=x,y"; do
	python3 - "$T/doc.json" "$T/claim.json" "$case" <<'PY'
import json, sys, uuid
d = json.load(open(sys.argv[1]))
k, v = sys.argv[3].split("=", 1)
d["labels"][k] = v
d["id"] = str(uuid.uuid4())  # a run of its own: "already stored" is not the refusal tested
json.dump(d, open(sys.argv[2], "w"))
PY
	expect 2 "import of a document with the label $case is refused" "$VMB" import "$T/claim.json"
	has "$T/err" "claim.json: vmbench: label" "the message names the file and the label"
done
expect 0 "nothing of them was stored" "$VMB" results --label disk=virtio
lacks "$T/out" "virtio" "no run"
# a lab session's document, saved from another store: kept when the user says so
python3 - "$T/doc.json" "$T/session.json" <<'PY'
import json, sys, uuid
d = json.load(open(sys.argv[1]))
d["labels"].update(lab="20260101-000000-abcd", config="accel=tcg")
d["id"] = str(uuid.uuid4())
json.dump(d, open(sys.argv[2], "w"))
PY
expect 2 "a lab session's document is refused without --keep-lab-labels" "$VMB" import "$T/session.json"
has "$T/err" "import --keep-lab-labels" "and the refusal names the option"
expect 0 "and taken with it" "$VMB" import --keep-lab-labels "$T/session.json"
expect 0 "its session is selected" "$VMB" results --label lab=20260101-000000-abcd
has "$T/out" "lab=20260101-000000-abcd" "the run is listed"
expect 2 "--keep-lab-labels keeps the document's, never sets the user's" "$VMB" import --keep-lab-labels \
	"$fx/sysbench-cpu.txt" --label lab=x
has "$T/err" "lab is a label the lab sets itself" "says so"

# --- a label value's length: at most 1024 bytes. One over 65536 was stored
# (the document's string bound, doc_validate) and could not be read back ---
big=$(python3 -c 'print("x" * 70000)')
expect 2 "run --label of a 70000-byte value is refused" "$VMB" run cpu.prime --quick --label "long=$big"
has "$T/err" "long: the value is 70000 bytes long; a label value has at most 1024 bytes" "says the limit"
expect 2 "run --label of a 1025-byte value too" "$VMB" run cpu.prime --quick --no-store \
	--label "long=$(python3 -c 'print("x" * 1025)')"
expect 2 "and results --label (a selector) of one" "$VMB" results --label "long=$big"
expect 0 "nothing was stored in the SQLite store" "$VMB" results
lacks "$T/out" "long=" "no run with the label"
edge=$(python3 -c 'print("y" * 1024)')
expect 0 "import --label of a value of 1024 bytes (the limit) is stored" "$VMB" import "$fx/sysbench-cpu.txt" \
	--label "long=$edge"
expect 0 "its run is selected by it" "$VMB" results --label "long=$edge"
has "$T/out" "long=yyyy" "listed"
expect 0 "and read back" "$VMB" show "$(awk '/long=/ { print $2 }' "$T/out")"
has "$T/out" "$edge" "with the label whole"

# --- the JSON an import reads: a key twice, or data after the document ---
python3 - "$T/doc.json" "$T" <<'PY'
import json, sys, uuid
d = json.load(open(sys.argv[1]))
d["id"] = str(uuid.uuid4())  # not stored yet: "already stored" is not the refusal tested
t = json.dumps(d, indent=2)
i = t.index("{")
open(sys.argv[2] + "/dup.json", "w").write(t[:i + 1] + '"schema_version": 999,' + t[i + 1:])
open(sys.argv[2] + "/two.json", "w").write(t + '\n{"schema_version": 3}\n')
open(sys.argv[2] + "/text.json", "w").write(t + "\nwritten by hand\n")
PY
expect 2 "import: a key given twice is refused" "$VMB" import "$T/dup.json"
has "$T/err" "duplicate object key" "says so, at its place"
has "$T/err" "line 3, column 18" "the place of the second (the document's own, after the one put first)"
expect 2 "import: a second JSON document after the first is refused" "$VMB" import "$T/two.json"
has "$T/err" "data after the vmbench JSON document (a second JSON value)" "says so"
expect 2 "import: text after a vmbench document is refused" "$VMB" import "$T/text.json"
has "$T/err" "data after the vmbench JSON document (text)" "says so"
expect 2 "show refuses the key given twice too" "$VMB" show "$T/dup.json"
expect 2 "compare refuses the data after it too" "$VMB" compare "$T/two.json" "$T/doc.json"
expect 0 "fio's own lines after its JSON are still skipped, and counted" "$VMB" import "$fx/fio-warning.json"
# a tool's output is read as the tool writes it: iperf3 -P 2 repeats sock_bufsize in "start"
expect 0 "iperf3 -P 2's repeated keys are a tool's, read" "$VMB" import "$fx/iperf3-tcp-P2.json"
python3 - "$fx/fio-randread.json" "$T/fio2.json" <<'PY'
import sys
t = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(t + t)
PY
expect 2 "but two fio JSON documents in one file are refused" "$VMB" import "$T/fio2.json"
has "$T/err" "data after the fio JSON document (a second JSON value)" "says so"
expect 0 "nothing of them was stored" "$VMB" results --label disk=virtio
check "only the lab session's document has disk=virtio" test "$(grep -c "disk=virtio" "$T/out")" -eq 1

# --- suite lists: commas or separate words, in run and in lab --suites ---
for form in "cpu.prime,mem.bandwidth" "cpu.prime mem.bandwidth"; do
	# shellcheck disable=SC2086 # the words split on purpose
	expect 0 "run $form" "$VMB" run $form --quick --no-store --json "$T/items.json"
	check "run $form measured cpu.prime and mem.bandwidth" python3 - "$T/items.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = [(s["name"], t["name"]) for s in d["suites"] for t in s["tests"]]
assert got == [("cpu", "prime"), ("mem", "bandwidth")], got
PY
	rm -f "$T/items.json"
done
expect 2 "run cpu,,mem: an empty item is refused" "$VMB" run cpu,,mem --no-store
has "$T/err" "has an empty item" "says so"
expect 2 "run cpu,nosuch: the unknown suite is named" "$VMB" run cpu,nosuch --no-store
has "$T/err" "unknown suite 'nosuch'; valid suites: cpu" "with the valid ones"
# lab run --suites in both forms: past the suites' check, lab run stops at the
# next (a baseline no configuration has), before any boot
for form in "cpu,mem" "cpu mem" "cpu, mem"; do
	expect 2 "lab run --suites '$form' is taken" "$VMB" lab run --suites "$form" --matrix disk=ide --baseline disk=sata
	lacks "$T/err" "--suites" "no complaint about --suites '$form'"
done
expect 2 "lab run --suites 'cpu balloon': the balloon item is read from the space form" "$VMB" lab run \
	--suites "cpu balloon" --matrix disk=ide
has "$T/err" "--suites names balloon" "the balloon item was found"
expect 2 "lab run --suites 'cpu,,mem': an empty item is refused" "$VMB" lab run --suites "cpu,,mem"
has "$T/err" "--suites: 'cpu,,mem' has an empty item" "by run's words"
expect 2 "lab run --suites 'cpu nosuch'" "$VMB" lab run --suites "cpu nosuch"
has "$T/err" "unknown suite 'nosuch'" "names it"
finish
