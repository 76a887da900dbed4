#!/bin/sh
# lab run over several hosts (--connect given once per host), what its
# first process does before and around the hosts' processes, without a
# guest: a user's mistake refused once (exit 2) before any host's process;
# this machine measured as the baseline by one host's process, not by each
# beside the others' guests; a signal to the parent alone, or to the whole
# group (a terminal's Ctrl-C), stops every host's process as one Ctrl-C
# stops a lab run (its results kept, exit 130), leaving no process behind.
# The signals at a named stop point (tests/cli/fleet_signal.py): the
# 'direct' host's process stops itself as it stores the host's baseline.
. "$(dirname "$0")/lib.sh"

export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
none="qemu+unix:///system?socket=$T/none.sock"
expect 2 "a matrix every host's process would refuse" "$VMB" lab run --connect direct --connect "$none" \
	--matrix "bogus=1" --cache "$T/no-cache" --db "$T/none.db"
check "said once, not once per host" test "$(grep -c "matrix: unknown key 'bogus'" "$T/err")" -eq 1
lacks "$T/err" "started (process" "no host's process started"
expect 2 "--rounds auto with one configuration and no baseline, over several hosts" "$VMB" lab run \
	--connect direct --connect "$none" --matrix "accel=tcg" --rounds auto --baseline none --cache "$T/no-cache" \
	--db "$T/none.db"
check "said once" test "$(grep -c "and one configuration without a baseline has none" "$T/err")" -eq 1
check "nothing was fetched or stored" sh -c "test ! -e '$T/none.db' && test ! -e '$T/no-cache'"
# what a URI holds that no message may show: a password, a control byte
expect 2 "a --connect value with an escape byte" "$VMB" lab run --plan --connect direct \
	--connect "$(printf 'qemu:///sys\033[31mtem')" --matrix "accel=tcg" --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "--connect: the URI has a control character (byte 12)" "says where, without echoing it"
check "no escape byte reaches the terminal" sh -c "! grep -q \"$(printf '\033')\" '$T/err'"
long=$(python3 -c 'print("qemu+ssh://h/" + "x" * 400)')
expect 2 "a --connect value of 413 bytes" "$VMB" lab run --plan --connect direct --connect "$long" \
	--matrix "accel=tcg" --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "--connect: a URI of 413 bytes; at most 400" "says the bound"
expect 1 "a host with a password in its URI that does not answer" "$VMB" lab run --plan --connect direct \
	--connect "qemu+unix://alice:s3cret@localhost/system?socket=$T/none.sock" --matrix "accel=tcg" \
	--cache "$T/no-cache" --db "$T/none.db"
if grep -q "built without\|libvirt.so.0, which is not installed" "$T/err"; then
	skip "its messages name it without the password" "$(grep -m1 "built without\|libvirt.so.0" "$T/err")"
else
	has "$T/err" "vmbench [qemu+unix://alice@localhost/system]: error: --connect qemu+unix://alice@localhost/system: connecting to" \
		"its messages name it by its label: no query, no password"
fi
lacks "$T/err" "s3cret" "the password is in no message"
lacks "$T/out" "s3cret" "nor in what it printed"

# the signals: the host measured (cpu.prime, tiny) by the 'direct' host's
# process, which stops as it stores that result; the other host waits for
# it (both reach this machine)
run() {
	python3 "$SRC/tests/cli/fleet_signal.py" store-begin "$1" "$2" "$VMB" lab run --connect direct \
		--connect "$none" --matrix "accel=tcg" --suites cpu.prime --time 0.1 --repeat 1 --warmup 0 \
		--cpu.max-prime 2000 --cache "$T/no-cache" --db "$3"
}
stored() { # stored DB: the configurations stored, one a line
	python3 -c 'import json,sqlite3,sys
for (d,) in sqlite3.connect(sys.argv[1]).execute("select doc from runs"): print(json.loads(d)["lab_config"])' "$1"
}
expect 130 "SIGTERM to the parent alone, a host's process running" run parent SIGTERM "$T/term.db"
has "$T/err" "vmbench [direct]: error: interrupted" "the host's process stopped as a lab run stops"
has "$T/err" "interrupted: what the hosts stored before is in lab session" "the parent says where its results are"
has "$T/err" "qemu+unix:///system: not started" "the host that had not started is named"
check "what the host's process measured before is stored" test "$(stored "$T/term.db")" = host
expect 130 "SIGINT to the whole group (a terminal's Ctrl-C)" run group SIGINT "$T/int.db"
lacks "$T/err" "ended by signal" "one Ctrl-C is one to each host's process, not a second that ends it at once"
has "$T/err" "vmbench [direct]: error: interrupted" "the host's process stopped as a lab run stops"
has "$T/err" "interrupted: what the hosts stored before is in lab session" "the parent says where its results are"
check "what the host's process measured before is stored" test "$(stored "$T/int.db")" = host
check "no file left in TMPDIR" test -z "$(ls -A "$TMPDIR")"

# two names of this machine, by address (no name lookup): one after the
# other, as the connections that reach one machine run (both fail at once)
for other in "qemu+tcp://127.0.0.2:1/system" "qemu+tcp://[::ffff:127.0.0.1]:1/system"; do
	expect 1 "$other beside a connection to this machine" "$VMB" lab run --connect "$none" --connect "$other" \
		--matrix "accel=tcg" --baseline none --cache "$T/no-cache" --db "$T/none.db"
	check "$other starts once the other has ended" python3 - "$T/err" "$none" "$other" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
def at(text):
    return next(i for i, l in enumerate(lines) if l.startswith("vmbench: " + text))
# each said by its label: the URI without its query
label = lambda u: u.split("?")[0]
assert at(label(sys.argv[3]) + ": started") > at(label(sys.argv[2]) + ": failed (exit"), lines
PY
done

# the plans of two connections to this machine (libvirt's test driver,
# which boots nothing, and QEMU here): the host measured in one of them
expect 0 "--plan over two hosts" "$VMB" lab run --plan --connect test:///default --connect direct \
	--matrix "accel=tcg disk=ide,ahci" --suites cpu.prime --cache "$T/no-cache" --db "$T/none.db"
if grep -q "built without\|libvirt.so.0, which is not installed" "$T/err"; then
	skip "the host measured by one host's process" "$(grep -m1 "built without\|libvirt.so.0" "$T/err")"
else
	check "the host measured by one host's process" test "$(grep -c "and the host measured each round" "$T/out")" -eq 1
	has "$T/out" "against the host (measured by test:///default's process)" "the other's plan says whose"
fi
finish
