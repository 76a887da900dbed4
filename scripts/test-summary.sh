#!/bin/sh
# Print the closing lines over the Meson test logs of the given build dirs:
# every skipped TAP check with its reason, a count of the checks inside the
# TAP tests (CLI scripts and fuzz targets), then
# "test: N passed, N failed, N skipped" over Meson's tests.
set -eu
logs=""
for d in "$@"; do
	[ -f "$d/meson-logs/testlog.json" ] && logs="$logs $d/meson-logs/testlog.json"
done
# shellcheck disable=SC2086
exec python3 - $logs <<'PY'
import json, re, sys

tests = {"pass": 0, "fail": 0, "skip": 0}
checks = {"ok": 0, "not ok": 0, "skip": 0}
skipped = []
for path in sys.argv[1:]:
    build = path.split("/meson-logs/")[0]
    for line in open(path):
        t = json.loads(line)
        r = t["result"]
        if r == "OK":
            tests["pass"] += 1
        elif r == "SKIP":
            tests["skip"] += 1
        else:
            tests["fail"] += 1
        for out in (t.get("stdout") or "").splitlines():
            m = re.match(r"(not ok|ok)\b\s*\d*\s*-?\s*(.*)", out)
            if not m:
                continue
            d = re.search(r"#\s*skip\S*\s*(.*)", m.group(2), re.I)
            if d:
                checks["skip"] += 1
                skipped.append("%s %s: %s" % (build, t["name"].split(" / ")[-1], m.group(2).strip()))
            else:
                checks[m.group(1)] += 1
for s in skipped:
    print("skipped check:", s)
print("checks in TAP tests: %d ok, %d not ok, %d skipped" % (checks["ok"], checks["not ok"], checks["skip"]))
print("test: %d passed, %d failed, %d skipped" % (tests["pass"], tests["fail"], tests["skip"]))
sys.exit(1 if tests["fail"] else 0)
PY
