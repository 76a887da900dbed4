#!/bin/sh
# make static's binary (vmbench-static: the same objects, no shared
# library): its ELF asks for no loader and no library (the aarch64 one's
# too, when make static or make cross built it); copied alone into an
# empty root (chroot: no /proc, no /etc, no libc) it runs a suite and writes
# its document, and again with /proc mounted there; the document, brought
# back, is imported with its labels and compared with a run of the ordinary
# binary, as the README's walk does; what it cannot do (a database client
# loaded at run time) it says, exit 2.
# Args: VMB_STATIC SRC VMB
. "$(dirname "$0")/lib.sh"
STATIC=$VMB
VMB=$3

check "no program interpreter, no shared library needed" sh -c \
	'! readelf -lW "$1" | grep -q "INTERP" && ! readelf -dW "$1" | grep -q "(NEEDED)"' sh "$STATIC"
a64="$(dirname "$VMB")/vmbench-static-aarch64"
if [ -e "$a64" ]; then
	check "the aarch64 one (make static): an AArch64 ELF, no interpreter, no shared library" sh -c \
		'readelf -hW "$1" | grep -q "Machine: *AArch64" && ! readelf -lW "$1" | grep -q INTERP &&
		 ! readelf -dW "$1" | grep -q "(NEEDED)"' sh "$a64"
else
	skip "the aarch64 one (make static): an AArch64 ELF, no interpreter, no shared library" \
		"not built here: make static (or make cross) builds it"
fi
expect 0 "--version says it is the static build" "$STATIC" --version
has "$T/out" "(static: no shared library)" "in its words"

# a database client is loaded at run time: the static build says it cannot
expect 2 "--app.db postgresql://...: refused, saying why" "$STATIC" run app.oltp_point_select --no-store \
	--app.db postgresql://u@127.0.0.1:1/db
has "$T/err" "which a static vmbench cannot load" "it says the static build cannot load the client"
# the test's reason holds 255 bytes: the message once lost its end there
has "$T/err" "use a vmbench built with shared libraries (make), or --app.db sqlite" "said whole, with what to use"
expect 2 "--app.db mysql://...: likewise" "$STATIC" run app.oltp_point_select --no-store \
	--app.db mysql://u:p@127.0.0.1:1/db
has "$T/err" "MariaDB/MySQL (libmariadb), which a static vmbench cannot load" "and names the library"

if [ "$(id -u)" -ne 0 ] || ! command -v chroot >/dev/null 2>&1; then
	for d in "the root holds nothing but the binary" "alone in an empty root" "the host's load said unknown" \
		"not said quiet" "its document" "with /proc" "with /proc/stat the host's load is sensed" \
		"the fingerprint reads /proc there" "nothing stays mounted" "imported" "a run here" "compared" \
		"the comparison lists cpu.prime"; do
		skip "$d" "chroot needs root (CI runs as root)"
	done
	finish
	exit $?
fi

root="$T/root"
mkdir -p "$root"
cp "$STATIC" "$root/vmbench"
check "the root holds nothing but the binary" test "$(ls -A "$root")" = vmbench
expect 0 "alone in an empty root: cpu.prime and mem.latency run" chroot "$root" /vmbench run cpu.prime mem.latency \
	--quick --no-store --label hv=elsewhere --label place=bare --json /bare.json
# no /proc/stat: other processes' CPU and steal are not sensed, and the
# run does not say the host was quiet ("busy during 0 of N")
has "$T/out" "host busy: not known (/proc/stat unreadable here" "the host's load said unknown"
lacks "$T/out" "host busy during" "not said quiet"
check "its document: both tests measured, labelled, the kernel and host named from uname(2)" \
	python3 - "$root/bare.json" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
assert d["fingerprint"]["cpu"]["model"] is None and d["fingerprint"]["memory"]["total_bytes"] is None  # no /proc
st = {(s["name"], t["name"]): t["status"] for s in d["suites"] for t in s["tests"]}
assert st == {("cpu", "prime"): "ok", ("mem", "latency"): "ok"}, st
assert d["labels"] == {"hv": "elsewhere", "place": "bare"}, d["labels"]
fp = d["fingerprint"]
u = os.uname()
assert fp["kernel"]["release"] == u.release and fp["hostname"] == u.nodename, (fp["kernel"], fp["hostname"])
PY
rm -f "$root/bare.json"
# a host name: resolved through the system's glibc modules, which a bare
# root lacks (and a guest's may not match): a usage error that says so
expect 2 "a host name in the empty root: refused" chroot "$root" /vmbench run net.tcp_rr --net.server localhost:5201 \
	--quick --no-store
has "$T/err" "(a static vmbench may not resolve names here: give an address)" "saying to give an address"

# with /proc, as in any VM: in a mount namespace of its own, so that nothing
# stays mounted when the test ends
if command -v unshare >/dev/null 2>&1 && unshare -m true 2>/dev/null; then
	mkdir -p "$root/proc"
	expect 0 "with /proc mounted in the root: cpu.prime" unshare -m sh -c \
		'mount -t proc proc "$1/proc" && exec chroot "$1" /vmbench run cpu.prime --quick --no-store --label hv=elsewhere --json /vm.json' \
		sh "$root"
	has "$T/out" "host busy during " "with /proc/stat the host's load is sensed"
	check "the fingerprint reads /proc there: the CPU's model and the memory (null in the bare root)" \
		python3 - "$root/vm.json" <<'PY'
import json, sys
fp = json.load(open(sys.argv[1]))["fingerprint"]
assert fp["cpu"]["model"] and fp["memory"]["total_bytes"], (fp["cpu"], fp["memory"])
PY
	check "nothing stays mounted" sh -c '! grep -qF " $1/proc " /proc/mounts' sh "$root"
else
	skip "with /proc mounted in the root" "no mount namespace here (unshare -m)"
	skip "with /proc/stat the host's load is sensed" "no mount namespace here (unshare -m)"
	skip "the fingerprint reads /proc there: the CPU's model and the memory (null in the bare root)" \
		"no mount namespace here (unshare -m)"
	skip "nothing stays mounted" "no mount namespace here (unshare -m)"
	chroot "$root" /vmbench run cpu.prime --quick --no-store --label hv=elsewhere --json /vm.json >/dev/null 2>&1
fi

# the README's walk: the document brought back, imported, compared
expect 0 "the document brought back is imported with its labels" "$VMB" import "$root/vm.json" --db "$T/db"
expect 0 "a run of the ordinary binary here" "$VMB" run cpu.prime --quick --label hv=here --db "$T/db"
expect 0 "compared by label" "$VMB" compare hv=here hv=elsewhere --db "$T/db"
has "$T/out" "cpu.prime" "the comparison lists cpu.prime"

finish
