#!/bin/sh
# Shared folders as the storage target (matrix key share): a share with a
# filesystem of the scratch disk or the raw device is a usage error before
# any boot; x86_64 TCG guests with share=9p and share=virtiofs mount the
# lab's host directory and run disk.seqwrite on a file there, and their
# stored documents say so; no virtiofsd, socket, pid file or directory is
# left after success, nor after SIGTERM while a virtiofs guest runs. Plain
# build only (tests/meson.build): it boots three TCG guests.
. "$(dirname "$0")/lib.sh"

cache="$SRC/build-lab-cache"
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
expect 2 "share=9p with fs=none: a usage error" "$VMB" lab run --matrix "accel=tcg share=9p fs=none" \
	--cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "share=9p runs the file tests on the shared folder, with no filesystem of the scratch disk, so fs=none means nothing there (raw-device tests need a block device, which a share is not)" \
	"says why and what is right"
expect 2 "an unknown share: a usage error" "$VMB" lab run --matrix "accel=tcg share=nfs" --cache "$T/no-cache" \
	--db "$T/none.db"
has "$T/err" "matrix: share=nfs is not known; valid values of share: none, 9p, virtiofs" "lists the shares"
check "nothing was booted, fetched or stored for them" sh -c "test ! -e '$T/none.db' && test ! -e '$T/no-cache' &&
	test -z \"\$(ls -A '$TMPDIR')\""
if [ "$(uname -m)" != x86_64 ] || [ ! -x /bin/busybox ] || ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	skip "x86_64 TCG guests with share=9p,virtiofs" "an x86_64 host with busybox-static and qemu-system-x86 is needed"
	finish
	exit $?
fi
shared_images x86_64
expect 0 "disk.seqwrite in TCG guests with share=9p and share=virtiofs" "$VMB" lab run \
	--matrix "accel=tcg share=9p,virtiofs" --suites disk.seqwrite --quick --boots 1 --baseline none \
	--disk-size 16m --cache "$cache" --image-dir "$T/imgs" --db "$T/share.db" -o "$T/share.html"
if [ -x /usr/lib/qemu/virtiofsd ]; then
	shares="9p virtiofs"
else
	shares="9p"
	has "$T/err" "share=virtiofs: skipped: share=virtiofs needs /usr/lib/qemu/virtiofsd" "no virtiofsd: skipped with why"
fi
check "the guests mounted the lab's directory by its tag and wrote their test file there ($shares)" \
	python3 - "$T/share.db" "$TMPDIR" $shares <<'PY'
import json, sqlite3, sys
db, tmpdir, want = sys.argv[1], sys.argv[2], sys.argv[3:]
docs = {json.loads(d)["labels"]["share"]: json.loads(d) for (d,) in sqlite3.connect(db).execute("SELECT doc FROM runs")}
assert sorted(docs) == sorted(want), sorted(docs)
driver = {"9p": "9pnet_virtio", "virtiofs": "virtiofs"}
for share, d in docs.items():
    fs = d["filesystem"]
    assert fs["type"] == share and fs["share"] == share and fs["device"] == "vmbench", fs
    assert fs["mountpoint"] == "/mnt/vmbench" and "rw" in fs["mount_options"].split(","), fs
    assert "mkfs" not in fs, fs  # nothing was made: the host's directory was mounted
    # the lab's own directory, in its work directory under $TMPDIR
    assert fs["host_directory"].startswith(tmpdir + "/vmbench-lab-") and fs["host_directory"].endswith("/share"), fs
    if share == "9p":
        assert "trans=virtio" in fs["mount_options"] and "msize=512000" in fs["mount_options"], fs
    (dev,) = d["fingerprint"]["shares"]
    assert dev["driver"] == driver[share], dev
    (s,) = [s for s in d["suites"] if s["name"] == "disk"]
    assert s["options"]["dir"] == "/mnt/vmbench", s["options"]
    assert s["notes"]["target"].startswith("/mnt/vmbench/vmbench-disk-"), s["notes"]
    (t,) = [t for t in s["tests"] if t["name"] == "seqwrite"]
    assert t["status"] == "ok" and t["cases"], (t["status"], t.get("reason"))
    assert all(c["params"]["size"] == 16 << 20 for c in t["cases"]), t["cases"]
PY
check "after success: no QEMU or virtiofsd of this test left" \
	sh -c "! pgrep -f '[q]emu-system-.*$TMPDIR' >/dev/null && ! pgrep -f '[v]irtiofsd.*$TMPDIR' >/dev/null"
check "after success: no work directory left" test -z "$(ls -A "$TMPDIR")"
# virtiofsd's lock: /run/virtiofsd/ and its socket's path, each / a .
check "after success: no virtiofsd pid file of this test left" \
	sh -c "! ls -A /run/virtiofsd/ 2>/dev/null | grep -qF '$(echo "$TMPDIR" | tr / .)'"
if [ ! -x /usr/lib/qemu/virtiofsd ]; then
	skip "SIGTERM while a virtiofs guest runs" "no /usr/lib/qemu/virtiofsd here (Debian's qemu-system-common)"
	finish
	exit $?
fi
check "SIGTERM while a virtiofs guest runs: exit 130, no QEMU, virtiofsd, socket, pid file or directory left" \
	python3 - "$VMB" "$cache" "$T" <<'PY'
import os, signal, subprocess, sys
vmb, cache, t = sys.argv[1:4]
tmpdir = os.environ["TMPDIR"]
env = dict(os.environ, VMBENCH_TEST_STOP_AT="lab-booted")
p = subprocess.Popen([vmb, "lab", "run", "--matrix", "accel=tcg share=virtiofs", "--suites", "disk.seqwrite",
                      "--quick", "--boots", "1", "--baseline", "none", "--disk-size", "16m", "--cache", cache,
                      "--image-dir", f"{t}/imgs", "--db", f"{t}/int.db", "-o", f"{t}/int.html"],
                     env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
pid, status = os.waitpid(p.pid, os.WUNTRACED)  # it stops itself once the guest has said HELLO
assert os.WIFSTOPPED(status), status
def ours(pattern):
    return subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()
qemu, vfsd = ours(f"[q]emu-system-.*{tmpdir}"), ours(f"[v]irtiofsd.*{tmpdir}")
assert qemu and vfsd, ("QEMU and virtiofsd run while the guest is up", qemu, vfsd)
(work,) = os.listdir(tmpdir)
assert os.path.exists(f"{tmpdir}/{work}/virtiofsd.sock"), os.listdir(f"{tmpdir}/{work}")
pidfile = "/run/virtiofsd/" + f"{tmpdir}/{work}/virtiofsd.sock".replace("/", ".") + ".pid"
os.kill(p.pid, signal.SIGTERM)
os.kill(p.pid, signal.SIGCONT)
err = p.communicate(timeout=120)[1].decode()
assert p.returncode == 130, (p.returncode, err)
def alive(q):
    # virtiofsd's sandbox child is killed with its process group but is not
    # vmbench's child: dead, it stays a zombie until init reaps it, which on
    # a busy machine may come after vmbench's exit (a zombie runs nothing)
    try:
        return open(f"/proc/{q}/stat").read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False
left = [q for q in qemu + vfsd if alive(q)]
assert not left, f"processes left: {left}"
assert not os.listdir(tmpdir), f"work files left: {os.listdir(tmpdir)}"
assert not os.path.exists(pidfile), f"virtiofsd's pid file left: {pidfile}"
PY
finish
