#!/usr/bin/env python3
"""What failed in a meson test run, printed last: for each test that did
not pass, its name and result, its TAP checks that failed ("not ok") with
the diagnostics under each, or the last lines of its output when it has no
such check (a crash, a timeout, a unit test). A CI log is often read from
its tail; `make test` runs this after a failed `meson test`, so the tail
says what failed, not only which test.

usage: failed-checks.py BUILD_DIR [MAX_LINES]
"""
import re
import sys

build = sys.argv[1]
budget = int(sys.argv[2]) if len(sys.argv) > 2 else 60
try:
    text = open(build + "/meson-logs/testlog.txt", errors="replace").read()
except OSError as e:
    sys.exit("failed-checks: %s" % e)
out = []
for block in re.split(r"\n=+ \d+/\d+ =+\n", text)[1:]:
    name = re.search(r"^test:\s+(.*)$", block, re.M)
    result = re.search(r"^result:\s+(.*)$", block, re.M)
    if not name or not result or result.group(1) in ("exit status 0", "skipped") or \
            result.group(1).startswith("exit status 77"):
        continue
    out.append("FAILED %s: %s" % (name.group(1), result.group(1)))
    lines = block.split("\n")
    shown = False
    for i, l in enumerate(lines):
        if l.startswith("not ok"):
            shown = True
            out.append("  " + l)
            for d in lines[i + 1:i + 12]:
                if not d.startswith("#"):
                    break
                out.append("  " + d)
    if not shown:
        body = [l for l in lines if l.strip() and not l.startswith(("-----", "start time:", "command:"))]
        out += ["  " + l for l in body[-15:]]
if out:
    print("\n".join(["", "What failed (from %s/meson-logs/testlog.txt):" % build] + out[:budget]))
