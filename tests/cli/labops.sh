#!/bin/sh
# What a hypervisor does to a running VM (issue 31): the vmops suite, which
# the host drives through QMP. A mode that does not exist is a usage
# error before any boot. Then ONE x86_64 TCG guest of 256 MiB is
# migrated live to a second QEMU four times (pre-copy and post-copy, idle
# and under mem.bandwidth), then saved to a file and restored into a third:
# each migration completed with QEMU's figures (total time, downtime, RAM
# moved), its agent answered in the QEMU it ended in, the post-copy ones
# moved RAM after the switch, the loaded pre-copy moved more RAM than the
# idle one; the save and restore have times and a state file's size; the
# scratch disk's snapshot and commit have times, its overlay a size, and
# disk.randwrite's figures before and after are beside; the whole VM's
# savevm into its qcow2 disk and loadvm have times. No time is judged. Nothing is left: no QEMU, no socket, no state file.
# Plain build only (tests/meson.build): it boots a TCG guest.
. "$(dirname "$0")/lib.sh"

cache="$SRC/build-lab-cache"
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
expect 2 "a migration mode that does not exist: a usage error" "$VMB" lab run --matrix "accel=tcg" \
	--suites vmops --vmops.mode live --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "precopy|postcopy|both" "names the modes"
check "nothing was booted, fetched or stored for it" sh -c "test ! -e '$T/none.db' && test ! -e '$T/no-cache' &&
	test -z \"\$(ls -A '$TMPDIR')\""
if [ "$(uname -m)" != x86_64 ] || [ ! -x /bin/busybox ] || ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	skip "an x86_64 TCG guest migrated, saved and restored" "an x86_64 host with busybox-static and qemu-system-x86 is needed"
	finish
	exit $?
fi
shared_images x86_64
# post-copy at once (--vmops.postcopy-after 0): an idle guest's pre-copy
# converges before a switch after its first pass; mem.bandwidth's arrays
# are RAM that an idle guest does not have; pin=on: each QEMU the guest
# moves to has its vCPUs pinned too (a failed pinning would fail the boot)
expect 0 "a TCG guest migrated (pre-copy, post-copy; idle, under mem.bandwidth), saved, restored, snapshotted" \
	"$VMB" lab run --matrix "accel=tcg fs=none mem=256M pin=on" --disk-format qcow2 --suites vmops --vmops.mode both --vmops.load both \
	--vmops.postcopy-after 0 --mem.array-size 16m --mem.ntimes 2 --min-reps 2 --max-reps 2 --warmup 0 \
	--disk-size 16m --quick --time 0.1 --boots 1 --baseline none \
	--cache "$cache" --image-dir "$T/imgs" --db "$T/store.db" -o "$T/ops.html"
check "each migration completed with QEMU's figures, and the agent answered in the destination" python3 - "$T/store.db" <<'PY'
import json, sqlite3, sys
((d,),) = sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs").fetchall()
(s,) = [s for s in json.loads(d)["suites"] if s["name"] == "vmops"]
assert s["status"] == "ok", s
t = {t["name"]: t for t in s["tests"]}
assert set(t) == {"migrate", "saverestore", "snapshot", "savevm"} and all(x["status"] == "ok" for x in t.values()), t
cases = {(c["params"]["mode"], c["params"]["load"]): {m["name"]: m for m in c["metrics"]} for c in t["migrate"]["cases"]}
assert set(cases) == {(m, l) for m in ("precopy", "postcopy") for l in ("idle", "mem")}, cases.keys()
for (mode, load), m in cases.items():
    v = {k: x["samples"][0] for k, x in m.items() if len(x["samples"]) == 1}
    assert m["total_s"]["unit"] == "s" and m["total_s"]["headline"] and m["downtime_s"]["headline"], m.keys()
    assert 0 < v["total_s"] < 60 and 0 <= v["downtime_s"] <= v["total_s"], (mode, load, v)
    assert v["ram_transferred_bytes"] > 1 << 20 and v["passes"] >= 1, (mode, load, v)
    # post-copy at once: RAM sent after the switch
    assert (mode == "postcopy") == ("postcopy_bytes" in v), (mode, load, v)
    assert mode == "precopy" or v["postcopy_bytes"] > 0, (mode, load, v)
    # idle: the agent's answer timed; loaded: the load's RESULT came from the destination
    assert load == "mem" or 0 < v["agent_answer_s"] < 10, (mode, load, v)
    assert load == "idle" or all(x > 0 for x in m["mem_triad_mb_per_s"]["samples"]), (mode, load, m.keys())
# a guest writing its arrays has more RAM to move (and the idle one came first)
assert cases["precopy", "mem"]["ram_transferred_bytes"]["samples"][0] > \
    cases["precopy", "idle"]["ram_transferred_bytes"]["samples"][0], cases
PY
check "the save and restore have their times, the state its size, and the agent answered after" python3 - "$T/store.db" <<'PY'
import json, sqlite3, sys
((d,),) = sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs").fetchall()
(s,) = [s for s in json.loads(d)["suites"] if s["name"] == "vmops"]
(t,) = [t for t in s["tests"] if t["name"] == "saverestore"]
(c,) = t["cases"]
v = {m["name"]: m["samples"][0] for m in c["metrics"]}
assert set(v) == {"save_s", "state_bytes", "restore_s", "resume_s"}, v
assert all(0 < v[k] < 60 for k in ("save_s", "restore_s", "resume_s")) and v["state_bytes"] > 1 << 20, v
PY
check "the snapshot and the commit have their times, the overlay its size, the writes before and after theirs" python3 - "$T/store.db" <<'PY'
import json, sqlite3, sys
((d,),) = sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs").fetchall()
(s,) = [s for s in json.loads(d)["suites"] if s["name"] == "vmops"]
(t,) = [t for t in s["tests"] if t["name"] == "snapshot"]
(c,) = t["cases"]
m = {m["name"]: m for m in c["metrics"]}
assert m["create_s"]["headline"] and m["commit_s"]["headline"], m.keys()
assert 0 < m["create_s"]["samples"][0] < 60 and 0 < m["commit_s"]["samples"][0] < 60, m
# the writes after the snapshot went into the overlay
assert m["overlay_bytes"]["samples"][0] > 1 << 20, m["overlay_bytes"]
for k in ("before_iops", "after_iops"):
    assert m[k]["unit"] == "1/s" and m[k]["samples"] and all(v > 0 for v in m[k]["samples"]), m.get(k)
PY
check "savevm and loadvm have their times" python3 - "$T/store.db" <<'PY'
import json, sqlite3, sys
((d,),) = sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs").fetchall()
(s,) = [s for s in json.loads(d)["suites"] if s["name"] == "vmops"]
(t,) = [t for t in s["tests"] if t["name"] == "savevm"]
(c,) = t["cases"]
v = {m["name"]: m["samples"][0] for m in c["metrics"] if m["headline"]}
assert set(v) == {"savevm_s", "loadvm_s"} and all(0 < x < 60 for x in v.values()), v
PY
has "$T/ops.html" "vmops" "the report shows the suite"
check "no QEMU process of this test is left" sh -c "! pgrep -f '[q]emu-system-.*$TMPDIR' >/dev/null"
check "no work directory, socket or state file is left" test -z "$(ls -A "$TMPDIR")"
finish
