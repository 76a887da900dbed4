#!/bin/sh
# Print one closing line over the Meson test logs of the given build dirs:
# "test: N passed, N failed, N skipped".
set -eu
pass=0 fail=0 skip=0
for d in "$@"; do
	log="$d/meson-logs/testlog.json"
	[ -f "$log" ] || continue
	p=$(grep -c '"result": "OK"' "$log" || true)
	f=$(grep -cE '"result": "(FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)"' "$log" || true)
	s=$(grep -c '"result": "SKIP"' "$log" || true)
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
done
echo "test: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
