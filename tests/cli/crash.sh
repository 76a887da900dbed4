#!/bin/sh
# Ctrl-C and kill -9 at exact moments (the process stops itself at a named
# point, see vmb_test_stop_point; the harness waits for that stop, no sleeps).
. "$(dirname "$0")/lib.sh"

check "Ctrl-C during a repetition: exit 130, nothing stored" \
	python3 "$SRC/tests/cli/interrupt.py" "$VMB" "$T/results.db" sigint
for point in store-begin store-run-row store-commit; do
	check "kill -9 at $point: the store has the whole run or none, and stays usable" \
		python3 "$SRC/tests/cli/interrupt.py" "$VMB" "$T/results.db" "$point"
done
expect 0 "a run after the kills stores normally" "$VMB" run cpu.prime --time 0.05 --warmup 0 --repeat 2 \
	--threads 1 --cpu.max-prime 1000
has "$T/out" "stored as run" "stored"

# Ctrl-C after the first case finished: that case is stored, marked
# interrupted, exit 130; selectors leave the run out unless asked.
fast="--time 0.05 --warmup 0 --repeat 2 --threads 1,2 --cpu.max-prime 1000"
expect 130 "Ctrl-C after the first case: exit 130" python3 "$SRC/tests/cli/stop_at.py" case-finished \
	'kill -INT $VMB_PID' "$VMB" run cpu.prime $fast --label part=yes --json "$T/part.json"
has "$T/err" "interrupted: the 1 case finished before it is kept, marked interrupted" "says what was kept"
has "$T/out" "stored as run" "the finished case is stored"
has "$T/out" "cpu.prime  threads=1 max-prime=1000" "run's table lists the case the interrupted test finished"
check "the document: status interrupted, the finished case whole, the cut one left out" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "interrupted", d["status"]
s = d["suites"][0]
assert s["status"] == "interrupted" and s["tests"][0]["status"] == "interrupted"
cases = s["tests"][0]["cases"]
assert len(cases) == 1 and cases[0]["params"]["threads"] == 1 and cases[0]["repetitions"] == 2, cases' "$T/part.json"
run=$(sed -n 's/^stored as run \([0-9]*\) .*/\1/p' "$T/out")
expect 0 "results lists it" "$VMB" results --label part=yes
has "$T/out" "cpu (interrupted)" "results marks it interrupted"
expect 0 "show it" "$VMB" show "$run"
has "$T/out" "interrupted: this run holds only the cases finished before it was stopped" "show marks it interrupted"
has "$T/out" "cpu.prime  threads=1 max-prime=1000" "show lists the case the interrupted test finished"
has "$T/out" "cpu              interrupted" "and the suite's status after its tests"
expect 2 "a selector leaves interrupted runs out" "$VMB" compare part=yes "$T/part.json"
has "$T/err" "1 interrupted left out; add interrupted=any to include them" "and says how to include them"
expect 0 "interrupted=any includes it" "$VMB" compare part=yes,interrupted=any "$T/part.json"
expect 0 "interrupted=yes selects it" "$VMB" compare interrupted=yes "$T/part.json"
expect 2 "interrupted= takes no, yes or any" "$VMB" compare part=yes,interrupted=maybe "$T/part.json"
finish
