#!/bin/sh
# The storage side of the lab's matrix (issue 26, the disk rows, profiles
# and the balloon): a profile contradicted by a key of the same matrix, the
# balloon suite with no balloon in the matrix and a balloon larger than the
# guest are usage errors before any boot; lab --help says what each profile
# is, and that it is QEMU's emulation. Then ONE lab run of x86_64 TCG guests
# behind pvscsi and megasas, each with balloon=on (mptsas1068 is a skip,
# below, with why): each guest
# shows the controller's driver behind its disk and the balloon's driver,
# and its balloon inflates and deflates with times, idle and beside
# mem.bandwidth's figures (no time is judged). Plain build only
# (tests/meson.build): it boots two TCG guests.
. "$(dirname "$0")/lib.sh"

cache="$SRC/build-lab-cache"
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
expect 2 "a profile contradicted by a key of the matrix: a usage error" "$VMB" lab run \
	--matrix "accel=tcg profile=vmware disk=ide" --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "profile=vmware sets disk=pvscsi, and the matrix gives disk=ide; give the profile alone (it sets disk), or disk= without the profile" \
	"names the profile's value and the given one"
expect 2 "one configuration that contradicts refuses the matrix" "$VMB" lab run \
	--matrix "accel=tcg profile=none,vbox nic=virtio-net" --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "profile=vbox sets nic=e1000, and the matrix gives nic=virtio-net" "names the contradiction"
expect 2 "--suites balloon with no balloon=on: a usage error" "$VMB" lab run --matrix "accel=tcg disk=megasas" \
	--suites balloon --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "--suites names balloon, and no configuration of the matrix has a balloon: give the matrix key balloon=on" \
	"says what is right"
expect 2 "a balloon that leaves the guest too little: a usage error" "$VMB" lab run \
	--matrix "accel=tcg balloon=on mem=128M" --suites balloon.idle --balloon.size 100m --cache "$T/no-cache" \
	--db "$T/none.db"
has "$T/err" "--balloon.size 100 MiB does not fit in a guest of mem=128 MiB" "says the sizes"
check "nothing was booted, fetched or stored for them" sh -c "test ! -e '$T/none.db' && test ! -e '$T/no-cache' &&
	test -z \"\$(ls -A '$TMPDIR')\""
expect 0 "lab --help" "$VMB" lab --help
has "$T/out" "profile = none vmware vbox kvm (QEMU's emulations of the devices a hypervisor gives a Linux guest by default, not the hypervisors: vmware is disk=pvscsi nic=vmxnet3 machine=pc; vbox is disk=ahci nic=e1000 machine=pc; kvm is disk=virtio-blk nic=virtio-net machine=q35;" \
	"lab --help says which disk, NIC and machine each profile is, and that they are QEMU's emulations"
has "$T/out" "balloon = off on" "lab --help lists the balloon key"
if [ "$(uname -m)" != x86_64 ] || [ ! -x /bin/busybox ] || ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	skip "x86_64 TCG guests behind pvscsi and megasas with a balloon" "an x86_64 host with busybox-static and qemu-system-x86 is needed"
	finish
	exit $?
fi
for dev in pvscsi megasas virtio-balloon-pci; do
	if ! qemu-system-x86_64 -device help 2>/dev/null | grep -q "name \"$dev\""; then
		skip "x86_64 TCG guests behind pvscsi and megasas with a balloon" "this QEMU has no $dev device"
		finish
		exit $?
	fi
done
shared_images x86_64
# QEMU 7.2's mptsas1068 and the mptsas driver of Debian's 6.1 kernel: the
# controller comes up in the guest ("scsi host0: ioc0: LSISAS1068 A0") but
# the driver finds no SAS end device behind it, hence no disk, and the lab
# refuses the boot (the driver check): not booted here, said as a skip
skip "a TCG guest behind mptsas1068" "QEMU 7.2's mptsas1068 shows Debian 6.1's mptsas driver no disk (its controller comes up, no SAS end device): the lab's driver check fails it (docs/methodology.md)"
expect 0 "TCG guests behind pvscsi and megasas, balloon=on, the balloon suite" "$VMB" lab run \
	--matrix "accel=tcg disk=pvscsi,megasas fs=none balloon=on mem=256M" --suites balloon --quick \
	--boots 1 --baseline none --balloon.size 64m --cache "$cache" \
	--image-dir "$T/imgs" --db "$T/store.db" -o "$T/store.html"
check "each guest shows its controller's driver behind its disk, and the balloon's" python3 - "$T/store.db" <<'PY'
import json, sqlite3, sys
docs = {json.loads(d)["labels"]["disk"]: json.loads(d) for (d,) in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs")}
want = {"pvscsi": "vmw_pvscsi", "megasas": "megaraid_sas"}
assert set(docs) == set(want), set(docs)
for disk, d in docs.items():
    drivers = [b["driver"] for b in d["fingerprint"]["block_devices"]]
    assert want[disk] in drivers, (disk, drivers)
    assert d["fingerprint"]["balloon"] == {"present": True, "driver": "virtio_balloon"}, d["fingerprint"]["balloon"]
    assert d["labels"]["balloon"] == "on" and d["labels"]["profile"] == "none", d["labels"]
PY
check "each balloon inflated by 64 MiB and deflated, idle and under mem.bandwidth, with times in seconds" python3 - "$T/store.db" <<'PY'
import json, sqlite3, sys
for (d,) in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs"):
    d = json.loads(d)
    (s,) = [s for s in d["suites"] if s["name"] == "balloon"]
    assert s["status"] == "ok", s
    tests = {t["name"]: t for t in s["tests"]}
    assert set(tests) == {"idle", "loaded"}, tests.keys()
    for t in tests.values():
        assert t["status"] == "ok", t
        (c,) = t["cases"]
        assert c["params"]["size"] in (64 << 20, str(64 << 20)), c["params"]
        m = {m["name"]: m for m in c["metrics"]}
        for k in ("inflate_s", "deflate_s"):
            assert m[k]["unit"] == "s" and m[k]["headline"] and len(m[k]["samples"]) == 1, m[k]
            assert 0 < m[k]["samples"][0] < 60, m[k]
    m = {m["name"]: m for m in tests["loaded"]["cases"][0]["metrics"]}
    # the bandwidth of the run the balloon moved under, beside the times
    assert m["mem_triad_mb_per_s"]["unit"] == "MB/s" and m["mem_triad_mb_per_s"]["samples"], m.keys()
    assert all(v > 0 for v in m["mem_triad_mb_per_s"]["samples"]), m["mem_triad_mb_per_s"]
    assert float(s["notes"]["loaded_run_s"]) > 0 and "-" in s["notes"]["loaded_window_s"], s["notes"]
PY
check "no QEMU process of this test is left" sh -c "! pgrep -f '[q]emu-system-.*$TMPDIR' >/dev/null"
check "no work directory is left" test -z "$(ls -A "$TMPDIR")"
finish
