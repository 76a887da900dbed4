#!/bin/sh
# The man page is generated from the tables and committed: it must match.
. "$(dirname "$0")/lib.sh"

expect 0 "help --man" "$VMB" help --man
check "docs/vmbench.1 is up to date (regenerate: build/vmbench help --man > docs/vmbench.1)" \
	cmp -s "$T/out" "$SRC/docs/vmbench.1"
for opt in quick time warmup budget threads cpus repeat precision min-reps max-reps label json db no-store; do
	has "$T/out" "\\-\\-$(echo "$opt" | sed 's/-/\\-/g')" "man page documents --$opt"
done
has "$T/out" "\\-\\-cpu.max\\-prime" "man page documents suite options"
has "$T/out" ".SH EXIT STATUS" "man page has exit status"
# what Ctrl-C and a run that measured nothing do now
has "$T/out" "the cases finished are stored, marked interrupted" "exit 130 says the finished cases are kept"
lacks "$T/out" "nothing was stored" "exit 130 no longer says nothing was stored"
has "$T/out" "nothing was measured (every selected test was skipped)" "exit 1 covers a run that measured nothing"
cp "$T/out" "$T/man"

# It claims only what exists: the NAME line names the suites there are
# (it named network and latency suites), every example parses with the
# real options (run with --help appended: parsed and validated, not run).
sed -n '/^\.SH NAME/{n;p;}' "$T/man" > "$T/name"
lacks "$T/name" "network" "NAME names no network suite"
lacks "$T/name" "latency" "NAME names no latency suite"
"$VMB" list | sed -n 's/^\([a-z0-9]*\) — .*/\1/p' > "$T/suites"
for s in $(cat "$T/suites"); do
	has "$T/name" "$s" "NAME names the $s suite"
done
has "$T/man" ".SH EXAMPLES" "man page has examples"
check "every example is a valid command line" python3 - "$VMB" "$T/man" <<'PY'
import re, shlex, subprocess, sys
vmb, man = sys.argv[1], open(sys.argv[2]).read()
section = man.split(".SH EXAMPLES\n")[1].split("\n.SH ")[0]
lines = [l[3:].replace("\\-", "-") for l in section.splitlines() if l.startswith(".B vmbench ")]
assert len(lines) >= 8, lines
for l in lines:
    argv = shlex.split(l)[1:] + ["--help"]
    p = subprocess.run([vmb] + argv, capture_output=True, text=True)
    assert p.returncode == 0 and "usage: vmbench " + argv[0] in p.stdout, (l, p.returncode, p.stderr)
PY
expect 0 "lab --help" "$VMB" lab --help
lacks "$T/out" "x86_64 guests only" "lab --help does not deny aarch64 guests"
has "$T/out" "x86_64 or aarch64" "lab --help names both guest architectures"
finish
