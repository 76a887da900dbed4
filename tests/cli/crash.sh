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
finish
