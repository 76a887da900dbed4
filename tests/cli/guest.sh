#!/bin/sh
# The quick run of every suite inside the lab's own TCG guests: another CPU
# model, another kernel, a bare initramfs (no /dev/kvm, cgroups not mounted,
# no disk of a filesystem: the scratch disk is a block device), and on
# aarch64 another architecture. Each guest must finish with every test
# measured or skipped with a reason; the skips are listed below as TAP
# diagnostics. x86_64 always (x86_64 hosts), aarch64 where `make cross` put
# vmbench-aarch64 beside this vmbench. Plain build only (tests/meson.build):
# under TCG an ASan agent would double the longest test of `make test`.
. "$(dirname "$0")/lib.sh"

cache="$SRC/build-lab-cache"
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
if [ ! -x /bin/busybox ]; then
	skip "the quick run in TCG guests" "busybox-static is not installed (scripts/deps.sh test)"
	finish
	exit $?
fi
# every suite vmbench lists, in its order: no second list kept here; but the
# balloon, which needs a device (balloon=on) and is cli-labstore's, vmops,
# which moves the guest to other QEMUs and is cli-labops's, and contend,
# which boots several guests at once and is cli-labcontend's (lab contend's
# only). systemd is run: in this busybox guest it is skipped with the reason
suites=$("$VMB" list | sed -n 's/^\([a-z][a-z0-9_]*\) — .*/\1/p' | grep -vxE 'balloon|vmops|contend' | paste -sd, -)
check "vmbench list names the suites" test -n "$suites"

# guest ARCH SUITES: a lab run of one TCG guest of ARCH, --quick, stored in $T/ARCH.db
guest() {
	arch=$1 what=$2 keys=${3:-}
	if ! command -v "qemu-system-$arch" >/dev/null 2>&1; then
		skip "the quick run in an $arch TCG guest" "qemu-system-$arch is not installed"
		return
	fi
	shared_images "$arch"
	# with run's options, which reach the guest; on a terminal (script(1) makes one) the guest's
	# progress is drawn as run draws its own. The sizes are small (every test still runs): under
	# TCG a 128 MiB latency chain, a 64 MiB TLB walk and a 64 MiB iozone file cost tens of seconds;
	# one queue depth and two STREAM passes are every code path too
	run="'$VMB' lab run --matrix 'accel=tcg arch=$arch${keys:+ $keys}' --suites '$what' --quick --boots 1 --baseline none \
		--cpu.max-prime 2000 --threads 1 --time 0.1 --repeat 2 --warmup 0 --mem.sizes 16,512 --mem.tlb-size 8m \
		--mem.pagefault-size 4m --mem.ntimes 2 --disk.file-size 8m --disk.iodepth 1 --app.table-size 1000 \
		--cache '$cache' --image-dir '$T/imgs' --db '$T/$arch.db' -o '$T/$arch.html'"
	if command -v script >/dev/null 2>&1; then
		expect 0 "lab run --quick of $what in an $arch TCG guest, on a terminal" script -qec "$run" /dev/null
		has "$T/out" "[case 1/" "$arch: the guest's progress is drawn: the case of how many"
		has "$T/out" " left] " "$arch: and the time left"
	else
		expect 0 "lab run --quick of $what in an $arch TCG guest" sh -c "$run"
		skip "$arch: the guest's progress on a terminal" "no script(1) here to give the run a terminal"
	fi
	# the first item's run (cpu, the first suite) is the document's command line
	check "$arch: the guest measured with the lab run's options, and its document says so" python3 - \
		"$T/$arch.db" <<'PY'
import json, sqlite3, sys
# a try that failed and was booted again (--retries, on a busy machine) is
# stored as a marker beside the run that then succeeded: not the guest's run
(d,) = [x for x in (json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs"))
        if "lab_failure" not in x]
cpu = [s for s in d["suites"] if s["name"] == "cpu"][0]
assert cpu["options"]["max-prime"] == 2000, cpu["options"]
prime = [t for t in cpu["tests"] if t["name"] == "prime"][0]
assert [c["params"] for c in prime["cases"]] == [{"threads": 1, "max-prime": 2000}], prime["cases"]
assert d["settings"]["quick"] is True, d["settings"]
assert "--cpu.max-prime=2000" in d["command_line"] and "--threads=1" in d["command_line"], d["command_line"]
PY
	check "$arch: every suite ran in the guest; nothing failed, nothing skipped without a reason" python3 - \
		"$T/$arch.db" "$arch" "$what" "$(stat -f -c %T "$TMPDIR")" "$keys" <<'PY'
import json, sqlite3, sys
db, arch, what, tmpfs, keys = sys.argv[1:6]
docs = [json.loads(r[0]) for r in sqlite3.connect(db).execute("SELECT doc FROM runs")]
for f in (x for x in docs if "lab_failure" in x):
    print(f"# {arch}: a failed try, retried:", json.dumps(f["lab_failure"])[:300])
docs = [x for x in docs if "lab_failure" not in x]
assert len(docs) == 1, len(docs)
d = docs[0]
assert d["labels"]["arch"] == arch and d["fingerprint"]["arch"] == arch, (d["labels"], d["fingerprint"]["arch"])
# the guest tells TCG by what QEMU's "max" CPU shows; a named model (cpu=cortex-a72) is
# the real part's identity, and the guest sees QEMU only (its device tree), not how it runs
named = "cpu=" in keys
assert d["fingerprint"]["hypervisor"]["name"] in (("QEMU TCG", "QEMU") if named else ("QEMU TCG",)), \
    d["fingerprint"]["hypervisor"]
got = [s["name"] for s in d["suites"]]
# the guest's suites in their order, the host-measured boot among them where the host measured it
assert sorted(got) == sorted(what.split(",")), (got, what)
for s in d["suites"]:
    assert s["status"] in ("ok", "skipped") and (s["status"] == "ok" or s["reason"]), (s["name"], s["status"], s["reason"])
    for t in s["tests"]:
        assert t["status"] in ("ok", "skipped"), (s["name"], t["name"], t["status"], t["reason"])
        assert t["status"] == "ok" or t["reason"], ("skipped without a reason", s["name"], t["name"])
    # the scratch disk's image is in $TMPDIR: on tmpfs the disk figures are the host's memory, and say so
    if s["name"] == "disk":
        assert ("scratch_disk_host" in s["notes"]) == (tmpfs == "tmpfs"), (tmpfs, s["notes"])
PY
	if [ -n "$keys" ]; then
		# a named CPU model and a topology: the guest shows them (the host checked the model's
		# part number against the lab's table before any suite ran)
		check "$arch: $keys: the guest's fingerprint shows the model and the topology" python3 - "$T/$arch.db" \
			"$keys" <<'PY'
import json, sqlite3, sys
(d,) = [x for x in (json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs"))
        if "lab_failure" not in x]
keys = dict(kv.split("=") for kv in sys.argv[2].split())
for k, v in keys.items():
    assert d["labels"][k] == v, (k, d["labels"])
s, c, t = (int(x) for x in keys["topology"].split("x"))
cpu = d["fingerprint"]["cpu"]
assert (cpu["logical"], cpu["sockets"], cpu["cores"], cpu["threads_per_core"]) == (s * c * t, s, c, t), cpu
print(f"# {keys['cpu']}: the guest says {cpu['model']}")
PY
	fi
	python3 - "$T/$arch.db" "$arch" <<'PY' || true
import json, sqlite3, sys
for (doc,) in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs"):
    d = json.loads(doc)
    if "lab_failure" in d:
        continue
    for s in d["suites"]:
        if s["status"] != "ok":
            print(f"# {sys.argv[2]}: {s['name']}: {s['status']}: {s['reason']}")
        for t in s["tests"]:
            if t["status"] != "ok":
                print(f"# {sys.argv[2]}: {s['name']}.{t['name']}: {t['status']}: {t['reason']}")
        for k, v in s["notes"].items():
            if "fallback" in k or str(v).startswith(("not ", "none", "no ")):
                print(f"# {sys.argv[2]}: {s['name']} note {k}: {v}")
PY
}

case $(uname -m) in
x86_64)
	guest x86_64 "$suites"
	if [ -x "$(dirname "$VMB")/vmbench-aarch64" ]; then
		# as the ARM-emulation study tuned its guest: a named model, two cores
		guest aarch64 "$suites" "smp=2 cpu=cortex-a72 topology=1x2x1"
	else
		skip "the quick run in an aarch64 TCG guest" "no vmbench-aarch64 beside $VMB (make cross)"
	fi
	;;
aarch64 | arm64)
	guest aarch64 "$suites" "smp=2 cpu=cortex-a72 topology=1x2x1"
	skip "the quick run in an x86_64 TCG guest" "no x86_64 vmbench is built on aarch64 hosts"
	;;
*)
	skip "the quick run in TCG guests" "the lab's guests are x86_64 and aarch64"
	;;
esac
check "no QEMU process of this test is left" sh -c "! pgrep -f '[q]emu-system-.*$TMPDIR' >/dev/null"
check "no work directory is left" test -z "$(ls -A "$TMPDIR")"
finish
