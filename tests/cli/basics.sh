#!/bin/sh
# version, help, list, info, and a quick cpu run checked value by value.
. "$(dirname "$0")/lib.sh"

expect 0 "--version" "$VMB" --version
has "$T/out" "vmbench 0." "version printed"
expect 0 "help" "$VMB" help
has "$T/out" "run " "help lists run"
for c in run list info results show help; do
	expect 0 "$c --help" "$VMB" "$c" --help
	has "$T/out" "usage: vmbench $c" "$c --help shows usage"
done
expect 0 "run --help lists options from the table" "$VMB" run --help
has "$T/out" "--precision PCT" "run --help has --precision"
has "$T/out" "default 1,all" "run --help shows the --threads default"

expect 0 "list" "$VMB" list
has "$T/out" "cpu.prime" "list has cpu.prime"
has "$T/out" "--cpu.max-prime N" "list has the suite option"
has "$T/out" "default 10000" "list shows the sysbench default max-prime"

expect 0 "info" "$VMB" info
has "$T/out" "hypervisor" "info names the hypervisor"
expect 0 "info --json" "$VMB" info --json
check "info --json has hypervisor.name, cpu.logical > 0" python3 -c '
import json, sys
fp = json.load(open(sys.argv[1]))
assert isinstance(fp["hypervisor"]["name"], str) and fp["hypervisor"]["name"]
assert fp["cpu"]["logical"] > 0 and fp["memory"]["total_bytes"] > 0
assert isinstance(fp["block_devices"], list) and isinstance(fp["network"], list)' "$T/out"
expect 0 "info --root on a recorded VMware tree" "$VMB" info --json --root "$SRC/tests/fixtures/probe/vmware"
has "$T/out" '"name": "VMware"' "fixture hypervisor is VMware"
has "$T/out" '"driver": "vmw_pvscsi"' "fixture disk driver is vmw_pvscsi"

# The quick cpu run, as JSON on stdout: stdout must be the document alone.
expect 0 "run cpu --quick --json -" "$VMB" run cpu --quick --json - --threads 1,2 --label hv=test
cp "$T/out" "$T/cpu.json"
check "the document is valid and every value is sane" python3 "$SRC/tests/cli/check_result.py" "$T/cpu.json" \
	--suite cpu --labels hv=test
check "vmbench itself accepts the document" "$VMB" show "$T/cpu.json" --json
check "prime, matrix and zlib at 1 and 2 threads" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
tests = {t["name"]: t for t in d["suites"][0]["tests"]}
assert set(tests) == {"prime", "matrix", "zlib"}, tests.keys()
for t in tests.values():
    assert [c["params"]["threads"] for c in t["cases"]] == [1, 2]
assert d["suites"][0]["options"]["max-prime"] == 10000' "$T/cpu.json"
has "$T/err" "stored as run 1" "the run was stored (message on stderr with --json -)"
# The result model has its own header: outside src/core, a file includes
# the runner's only when it uses the runner (runs, estimates, reads settings)
check "core/runner.h only where the runner is used" sh -c '
	cd "$1" && for f in $(grep -rl "core/runner\.h" src --include=*.c | grep -v "^src/core/"); do
		grep -q "runner_run\|runner_estimate\|rs->" "$f" || { echo "$f: include core/result.h"; exit 1; }
	done' sh "$SRC"
finish
