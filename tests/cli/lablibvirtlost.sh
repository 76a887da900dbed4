#!/bin/sh
# A libvirt host lost mid-matrix, and one that never answers (issue 46):
# 'lab run --connect' against a daemon that takes the connection and says
# nothing fails after --connect-timeout instead of hanging; against a
# private libvirtd of the test's own (tests/cli/libvirtd.sh: its own mount
# namespace, the machine's daemon untouched), one stopped (SIGSTOP) while
# its guest boots is found by libvirt's keepalive, and one killed (SIGKILL)
# while its guest boots, beside QEMU driven directly, fails its own host
# only: said with its URI, its domain's QEMU (which outlives the daemon)
# ended by vmbench, the other host's results stored and compared, the lost
# host's failures marked; and libvirt's remote transport (qemu+tcp:// on
# loopback, to a private daemon): a guest measured through it, and a kill
# -9 of vmbench whose domain the daemon destroys with the connection;
# vmops.saverestore and vmops.savevm through it; vmops.migrate from that
# daemon to a second one (--migrate-to).
# Plain build only (tests/meson.build).
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/cli/libvirtd.sh"

cache="$SRC/build-lab-cache"
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
# a socket that takes the connection and never answers
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(8)
print("ready", flush=True)
held = []
while True:
    held.append(s.accept()[0])
' "$T/mute.sock" >"$T/mute.out" &
mute=$!
i=0
while [ ! -s "$T/mute.out" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
expect 1 "--connect to a daemon that never answers" timeout 120 "$VMB" lab run \
	--connect "qemu+unix:///system?socket=$T/mute.sock" --connect-timeout 1 --matrix "accel=tcg" \
	--suites cpu.prime --baseline none --cache "$T/no-cache" --db "$T/none.db"
kill $mute 2>/dev/null
wait $mute 2>/dev/null
if grep -q "built without\|libvirt.so.0, which is not installed" "$T/err"; then
	skip "the lab through libvirt" "$(head -1 "$T/err")"
	finish
	exit $?
fi
has "$T/err" "--connect qemu+unix:///system: connecting to qemu+unix:///system: the daemon took the connection but did not answer within 1 s (--connect-timeout)" \
	"says it did not answer, and the bound"
check "nothing was fetched or stored for it" sh -c "test ! -e '$T/none.db' && test ! -e '$T/no-cache'"
expect 2 "--migrate-to without --connect" "$VMB" lab run --migrate-to qemu:///system --matrix "accel=tcg" \
	--suites vmops.migrate --baseline none --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "--migrate-to qemu:///system: it moves guests between libvirt hosts: give the first with --connect URI" \
	"says what it needs"
expect 2 "--migrate-to with two --connect" "$VMB" lab run --connect direct --connect test:///default \
	--migrate-to qemu:///system --matrix "accel=tcg" --suites vmops.migrate --baseline none --cache "$T/no-cache" \
	--db "$T/none.db"
has "$T/err" "--migrate-to moves one host's guests: give --connect once with it" "says why"
if [ "$(uname -m)" != x86_64 ] || [ ! -x /bin/busybox ] || ! command -v qemu-system-x86_64 >/dev/null 2>&1 ||
	! command -v libvirtd >/dev/null 2>&1 || ! command -v virsh >/dev/null 2>&1; then
	skip "a libvirt daemon lost mid-matrix" "x86_64, busybox-static, qemu-system-x86 and libvirt-daemon-system are needed"
	finish
	exit $?
fi
if [ "$(id -u)" -ne 0 ]; then
	skip "a libvirt daemon lost mid-matrix" "the test's own libvirtd is started as root"
	finish
	exit $?
fi
# the daemon's QEMU runs as another user (libvirt-qemu): it crosses the
# test's directories to the work directory's files
chmod 711 "$T" "$TMPDIR"
trap 'lvd_stop; lvd_kvm_restore; rm -rf "$T"' EXIT
lvd_kvm_open
if ! lvd_start "$T/lvd"; then
	skip "a libvirt daemon lost mid-matrix" "$lvd_why"
	finish
	exit $?
fi
shared_images x86_64
run="--suites cpu.prime --quick --time 0.1 --repeat 2 --warmup 0 --boots 1 --retries 0 --baseline none
	--cpu.max-prime 2000 --cache $cache --image-dir $T/imgs"
# a daemon that stops answering while its guest boots: libvirt's keepalive
# (--connect-timeout 3: 1 s x 3) finds it, its domain's QEMU is ended here
expect 1 "the daemon stopped (SIGSTOP) while its guest boots" timeout 300 python3 "$SRC/tests/cli/stop_at.py" \
	lab-libvirt-started "kill -STOP $lvd_pid" "$VMB" lab run --connect "$lvd_uri" --connect-timeout 3 \
	--matrix "accel=tcg" $run --db "$T/stop.db"
has "$T/err" "error: the libvirt daemon at qemu+unix:///system was lost: " "says the daemon was lost, with its URI"
grep "was lost" "$T/err" | sed 's/^/#   /'
has "$T/err" "error: its domain vmbench-vmbench-lab-" "names its domain"
has "$T/err" "was running here: ended (its QEMU, process" "and that its QEMU was ended here"
check "no QEMU of the stopped daemon's left" test -z "$(lvd_qemus)"
check "the failure marked in the store" python3 - "$T/stop.db" <<'PY'
import json, sqlite3, sys
docs = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("select doc from runs")]
assert [d["lab_config"] for d in docs if "lab_failure" in d] == ["accel=tcg"], docs
assert "the libvirt daemon at qemu+unix:///system was lost" in json.dumps(docs[0]["lab_failure"]), docs[0]["lab_failure"]
PY
# woken, the daemon sees the connection gone: nothing of its own left
kill -CONT "$lvd_pid"
i=0
while [ -n "$(virsh -c "$lvd_uri" list --all --name 2>/dev/null)" ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "the woken daemon answers, with no domain" sh -c "virsh -c '$lvd_uri' version >/dev/null &&
	test -z \"\$(virsh -c '$lvd_uri' list --all --name)\""
# two hosts on this machine, one after another: the private daemon killed
# (SIGKILL) while its first guest boots, then QEMU driven directly
VMBENCH_TEST_STOP_AT=lab-libvirt-started "$VMB" lab run --connect "$lvd_uri" --connect direct --connect-timeout 5 \
	--matrix "accel=tcg disk=virtio-blk,ahci" $run --db "$T/fleet.db" -o "$T/fleet.html" \
	>"$T/out" 2>"$T/err" </dev/null &
vmb=$!
stopped=""
i=0
while [ -z "$stopped" ] && kill -0 $vmb 2>/dev/null && [ $i -lt 3000 ]; do
	stopped=$(ps -o pid=,stat= --ppid $vmb | awk '$2 ~ /^T/ { print $1 }')
	[ -n "$stopped" ] || sleep 0.1
	i=$((i + 1))
done
if [ -n "$stopped" ]; then
	ok "the private daemon's host stopped with its domain started"
	kill -9 "$lvd_pid"
	kill -CONT "$stopped"
else
	not_ok "the private daemon's host stopped with its domain started"
fi
wait $vmb
rc=$?
grep "qemu+unix:///system\]" "$T/err" | sed 's/^/#   /'
check "the run fails (exit $rc, expected 1)" test $rc -eq 1
has "$T/err" "vmbench [qemu+unix:///system]: error: the libvirt daemon at qemu+unix:///system was lost: it closed the connection: it ended or was restarted" \
	"the lost host's error, tagged with its URI, in libvirt's terms"
has "$T/err" "was running here: ended (its QEMU, process" "its domain's QEMU ended here"
has "$T/err" "vmbench [qemu+unix:///system]: error: accel=tcg disk=ahci: " "its next configuration fails at once"
has "$T/err" "qemu+unix:///system: failed (exit 1); the other hosts' results are kept" "that host fails alone"
has "$T/err" "vmbench [direct]: accel=tcg disk=ahci: stored as run" "the other host runs its matrix"
check "no QEMU of the killed daemon's left" test -z "$(lvd_qemus)"
check "the other host's results stored, the lost host's failures marked" python3 - "$T/fleet.db" <<'PY'
import json, sqlite3, sys
docs = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("select doc from runs")]
marks = sorted(d["lab_config"] for d in docs if "lab_failure" in d)
assert marks == ["hv_uri=qemu+unix:///system accel=tcg disk=ahci",
                 "hv_uri=qemu+unix:///system accel=tcg disk=virtio-blk"], marks
for d in docs:
    if "lab_failure" in d:
        assert "the libvirt daemon at qemu+unix:///system was lost" in json.dumps(d["lab_failure"]), d["lab_failure"]
got = sorted(d["lab_config"] for d in docs if "lab_failure" not in d)
assert got == ["hv_uri=direct accel=tcg disk=ahci", "hv_uri=direct accel=tcg disk=virtio-blk"], got
PY
has "$T/out" "hv_uri=direct accel=tcg disk=ahci" "the session's comparison drawn"
check "the report written" test -s "$T/fleet.html"
# libvirt's remote transport: a private daemon taking connections over TCP
# on loopback (qemu+tcp://, the remote driver's RPC as over ssh), a guest
# booted and measured through it, then vmbench killed (-9) while its guest
# runs: the daemon destroys the domain when the TCP connection drops
lvd_stop
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
if ! lvd_start "$T/lvd-tcp" "$port"; then
	skip "libvirt's remote transport over TCP" "$lvd_why"
	finish
	exit $?
fi
tcp="qemu+tcp://127.0.0.1:$port/system"
expect 0 "a guest through $tcp" "$VMB" lab run --connect "$tcp" --matrix "accel=tcg" $run --db "$T/tcp.db"
has "$T/err" "the guests through libvirt at $tcp" "connected over TCP"
check "its result labelled with the remote URI, measured" python3 - "$T/tcp.db" "$tcp" <<'PY'
import json, sqlite3, sys
d = json.loads(sqlite3.connect(sys.argv[1]).execute("select doc from runs").fetchone()[0])
assert d["labels"]["hv_backend"] == "libvirt" and d["labels"]["hv_uri"] == sys.argv[2], d["labels"]
assert d["lab_config"] == "accel=tcg", d["lab_config"]
t = d["suites"][0]["tests"][0]
assert t["status"] == "ok" and t["cases"][0]["metrics"][0]["samples"][0] > 0, t
PY
check "no QEMU of its left" test -z "$(lvd_qemus)"
expect 137 "kill -9 of vmbench while its guest runs, over TCP" python3 "$SRC/tests/cli/stop_at.py" lab-booted \
	'kill -9 $VMB_PID' "$VMB" lab run --connect "$tcp" --matrix "accel=tcg" $run --db "$T/tcp9.db"
i=0
while [ -n "$(lvd_qemus)" ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "the daemon destroyed its domain when the TCP connection dropped" test -z "$(lvd_qemus)"
check "and lists none" test -z "$(virsh -c "$tcp" list --all --name)"
# vmops.saverestore and vmops.savevm through libvirt's own calls, on the
# TCP daemon: saved into a file and restored, and the whole VM saved inside
# its qcow2 disk and reverted to
expect 0 "vmops.saverestore and vmops.savevm through libvirt" "$VMB" lab run --connect "$tcp" --matrix "accel=tcg" \
	--suites vmops.saverestore,vmops.savevm --disk-format qcow2 --quick --boots 1 --baseline none \
	--cache "$cache" --image-dir "$T/imgs" --db "$T/sr.db"
check "saved and restored, saved inside its disk and reverted to, the agent answering after each" python3 - \
	"$T/sr.db" <<'PY'
import json, sqlite3, sys
d = json.loads(sqlite3.connect(sys.argv[1]).execute("select doc from runs").fetchone()[0])
tests = {t["name"]: t for s in d["suites"] if s["name"] == "vmops" for t in s["tests"]}
for name in ("saverestore", "savevm"):
    assert tests[name]["status"] == "ok", (name, tests[name]["status"], tests[name].get("reason"))
m = {x["name"]: x["samples"][0] for x in tests["saverestore"]["cases"][0]["metrics"]}
assert m["save_s"] > 0 and m["restore_s"] > 0 and m["state_bytes"] > 0, m
m = {x["name"]: x["samples"][0] for x in tests["savevm"]["cases"][0]["metrics"]}
assert m["savevm_s"] > 0 and m["loadvm_s"] > 0, m
PY
check "no QEMU of its left" test -z "$(lvd_qemus)"
check "nor its state file, nor its work directory" test -z "$(ls -A "$TMPDIR")"
# vmops.migrate from one libvirt host to another (--migrate-to): from the
# TCP daemon to a second private daemon, live and pre-copy over loopback
src_dir=$lvd_dir
if lvd_start "$T/lvd-b"; then
	dst_dir=$lvd_dir
	trap 'lvd_stop; lvd_dir=$src_dir; lvd_stop; lvd_kvm_restore; rm -rf "$T"' EXIT
	expect 0 "vmops.migrate to another libvirt host" "$VMB" lab run --connect "$tcp" --migrate-to "$lvd_uri" \
		--matrix "accel=tcg" --suites vmops.migrate --quick --boots 1 --baseline none --cache "$cache" \
		--image-dir "$T/imgs" --db "$T/mig.db"
	has "$T/err" "vmops.migrate moves the guests to qemu+unix:///system" "says where the guests move"
	check "the migration's figures from libvirt's job, the agent answering on the destination" python3 - \
		"$T/mig.db" <<'PY'
import json, sqlite3, sys
d = json.loads(sqlite3.connect(sys.argv[1]).execute("select doc from runs").fetchone()[0])
t = [t for s in d["suites"] if s["name"] == "vmops" for t in s["tests"] if t["name"] == "migrate"][0]
assert t["status"] == "ok", (t["status"], t.get("reason"))
m = {x["name"]: x["samples"][0] for x in t["cases"][0]["metrics"]}
assert m["total_s"] > 0 and 0 <= m["downtime_s"] <= m["total_s"], m
assert m["ram_transferred_bytes"] > 0 and m["passes"] >= 1 and m["agent_answer_s"] > 0, m
PY
	check "no QEMU of the destination's left" test -z "$(lvd_qemus)"
	lvd_stop
	lvd_dir=$src_dir
	check "nor of the source's" test -z "$(lvd_qemus)"
	trap 'lvd_stop; lvd_kvm_restore; rm -rf "$T"' EXIT
else
	lvd_dir=$src_dir
	skip "vmops.migrate to another libvirt host" "$lvd_why"
fi
finish
