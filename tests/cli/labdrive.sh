#!/bin/sh
# The scratch disk's host side in the lab (issue 26): bad backend= and
# cache= values are usage errors before any boot; a raw host block device
# (backend=block, a loop device the lab binds to its own file) carries two
# TCG guests, without and with a qcow2 overlay (snapshot=on), whose stored
# labels and host_disk record say so; 4k random writes to the overlay's fresh
# clusters cost the host more bytes than the guest wrote (qcow2 allocates and
# copies whole 64 KiB clusters: a property of the format, not a speed); no
# loop device naming the lab's files is left after success, a failed boot
# and SIGTERM; cache=none on a file system without O_DIRECT is skipped with
# why. Plain build only (tests/meson.build): it boots three guests.
. "$(dirname "$0")/lib.sh"

cache="$SRC/build-lab-cache"
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
# loop devices bound to a file of this test's TMPDIR (the lab's scratch files)
ours() {
	for f in /sys/block/loop*/loop/backing_file; do
		[ -r "$f" ] && grep -F "$TMPDIR/" "$f"
	done
	return 0
}
expect 2 "backend=vmdk: a usage error" "$VMB" lab run --matrix "accel=tcg backend=vmdk" --cache "$T/no-cache" \
	--db "$T/none.db"
has "$T/err" "backend" "names the key"
has "$T/err" "file, block" "lists its values"
expect 2 "--disk-cache of no mode: a usage error" "$VMB" lab run --matrix "accel=tcg" --disk-cache fast \
	--cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "none|writeback|writethrough|directsync|unsafe" "lists the cache modes"
expect 2 "--disk-format where every configuration is backend=block: a usage error" "$VMB" lab run \
	--matrix "accel=tcg backend=block" --disk-format qcow2 --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "no configuration of the matrix has one" "says it would be ignored"
check "nothing was booted, fetched or stored for them" sh -c "test ! -e '$T/none.db' && test ! -e '$T/no-cache' &&
	test -z \"\$(ls -A '$TMPDIR')\""
if [ "$(uname -m)" != x86_64 ] || [ ! -x /bin/busybox ] || ! command -v qemu-system-x86_64 >/dev/null 2>&1 ||
	! command -v qemu-img >/dev/null 2>&1; then
	skip "TCG guests on a loop device, with and without a snapshot" \
		"an x86_64 host with busybox-static, qemu-system-x86 and qemu-utils is needed"
	finish
	exit $?
fi
shared_images x86_64
"$VMB" lab run --matrix "accel=tcg fs=none backend=block snapshot=off,on cache=writeback" --suites disk.randwrite \
	--quick --boots 1 --baseline none --disk-size 256m --time 0.3 --warmup 0 --repeat 1 --disk.iodepth 1 \
	--cache "$cache" --image-dir "$T/imgs" --db "$T/drive.db" -o "$T/drive.html" >"$T/out" 2>"$T/err" </dev/null
rc=$?
if grep -qF "skipped: backend=block" "$T/err"; then
	# the reason, as the lab said it: no loop device for this process here
	skip "TCG guests on a loop device, with and without a snapshot" \
		"$(grep -F "skipped: backend=block" "$T/err" | head -1 | sed 's/.*skipped: //')"
	finish
	exit $?
fi
if [ "$rc" -eq 0 ]; then ok "disk.randwrite in TCG guests on a loop device, snapshot=off and on (exit 0)"; else
	not_ok "disk.randwrite on a loop device: exit $rc"; sed 's/^/#   stderr: /' "$T/err" | head -5; fi
check "the labels and the host_disk record: a loop device, the overlay over it for snapshot=on" python3 - "$T/drive.db" "$TMPDIR" <<'PY'
import json, sqlite3, sys
docs = {json.loads(d)["labels"]["snapshot"]: json.loads(d) for (d,) in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs")}
assert set(docs) == {"off", "on"}, set(docs)
for snap, d in docs.items():
    assert (d["labels"]["backend"], d["labels"]["cache"]) == ("block", "writeback"), d["labels"]
    h = d["filesystem"]["host_disk"]
    assert h["backend"] == "block" and h["file"].startswith("/dev/loop") and h["format"] == "raw", h
    assert h["cache"] == "writeback", h
    assert h["loop_direct_io"] is False, h  # writeback: the loop driver's buffered I/O is wanted
    assert (h["overlay"] is None) == (snap == "off"), h
    assert snap == "off" or h["overlay"].startswith(sys.argv[2] + "/") and h["overlay"].endswith("/overlay.qcow2"), h
PY
check "snapshot=on: the host wrote more bytes than the guest's disk received (fresh qcow2 clusters)" python3 - "$T/drive.db" <<'PY'
import json, math, sqlite3, sys
for (d,) in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs"):
    d = json.loads(d)
    (s,) = [s for s in d["suites"] if s["name"] == "disk"]
    n = s["notes"]
    guest, host, amp = n["device_write_bytes"], n["host_write_bytes"], n["host_write_amplification"]
    assert guest > 0 and host > 0 and math.isclose(amp, host / guest), n
    if d["labels"]["snapshot"] == "on":
        assert amp > 1, n
PY
has "$T/out" "wr.amp" "the host cost table shows the write amplification"
check "no loop device left bound to the lab's files" sh -c "test -z \"\$(ours)\" && test -z \"\$(ls -A '$TMPDIR')\""

# a boot that fails once the device is bound: the guest cannot say HELLO within 1 s
expect 1 "a failed boot on a loop device" "$VMB" lab run --matrix "accel=tcg fs=none backend=block" --suites disk.randwrite \
	--quick --boots 1 --baseline none --retries 0 --hello-timeout 1 --disk-size 64m --cache "$cache" \
	--image-dir "$T/imgs" --db "$T/fail.db" -o "$T/fail.html"
has "$T/err" "did not say HELLO within 1 s" "it failed after the set-up"
check "no loop device left after the failure" sh -c "test -z \"\$(ours)\" && test -z \"\$(ls -A '$TMPDIR')\""

check "SIGTERM while a guest runs on a loop device: exit 130, the device unbound, no file left" python3 - "$VMB" "$cache" "$T" <<'PY'
import glob, os, signal, subprocess, sys
vmb, cache, t = sys.argv[1:4]
tmpdir = os.environ["TMPDIR"]
def ours():
    out = []
    for f in glob.glob("/sys/block/loop*/loop/backing_file"):
        try:
            if open(f).read().startswith(tmpdir + "/"):
                out.append(f)
        except OSError:
            pass
    return out
env = dict(os.environ, VMBENCH_TEST_STOP_AT="lab-booted")
p = subprocess.Popen([vmb, "lab", "run", "--matrix", "accel=tcg fs=none backend=block", "--suites", "boot",
                      "--baseline", "none", "--disk-size", "64m", "--cache", cache, "--image-dir", f"{t}/imgs",
                      "--db", f"{t}/int.db", "-o", f"{t}/int.html"], env=env, stdout=subprocess.DEVNULL,
                     stderr=subprocess.PIPE)
pid, status = os.waitpid(p.pid, os.WUNTRACED)  # it stops itself once the guest has said HELLO
assert os.WIFSTOPPED(status), status
assert ours(), "no loop device bound to the lab's file while the guest is up"
os.kill(p.pid, signal.SIGTERM)
os.kill(p.pid, signal.SIGCONT)
err = p.communicate(timeout=120)[1].decode()
assert p.returncode == 130, (p.returncode, err)
assert not ours(), f"loop devices left: {ours()}"
assert not os.listdir(tmpdir), f"work files left: {os.listdir(tmpdir)}"
PY

# cache=none needs O_DIRECT, which ramfs does not take: skipped with why, QEMU never started
if unshare -m true 2>/dev/null; then
	mkdir -p "$T/ram"
	expect 1 "cache=none with the scratch disk on ramfs: skipped, and nothing else to run" unshare -m sh -c "mount -t ramfs none '$T/ram' &&
		TMPDIR='$T/ram' exec '$VMB' lab run --matrix 'accel=tcg fs=none cache=none' --suites disk.randwrite --quick \
		--boots 1 --baseline none --disk-size 64m --cache '$cache' --image-dir '$T/imgs' --db '$T/ram.db' -o '$T/ram.html'"
	has "$T/err" "skipped: cache=none opens the scratch disk" "says the mode needs O_DIRECT"
	has "$T/err" "with O_DIRECT, which its file system does not take" "and that the file system lacks it"
	lacks "$T/err" "failed" "no boot was tried in another mode"
else
	skip "cache=none on a file system without O_DIRECT" "no mount namespace of this test's own for a ramfs (unshare -m)"
fi
finish
