#!/bin/sh
# The lab's USB disks (issue 45, Study 0 0.12's stand-in): disk=usb-xhci
# (qemu-xhci) and disk=usb-ehci (ICH9's EHCI with its UHCI companions), a
# usb-storage on the scratch drive behind each. A matrix of them that an
# architecture lacks is refused before anything is fetched or booted, with
# why; then one TCG guest per row runs a short disk.randwrite on the raw
# device: every write arrived (bytes on the guest's disk, the test ok: no
# I/O error, no short transfer), the host controller's driver is the one
# the row names, the model is in the labels, and nothing is left behind.
# Plain build only (tests/meson.build): it boots two guests.
. "$(dirname "$0")/lib.sh"

cache="$SRC/build-lab-cache"
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
expect 1 "disk=usb-ehci on aarch64: nothing of the matrix can run" "$VMB" lab run \
	--matrix "accel=tcg arch=aarch64 disk=usb-ehci" --suites disk.randwrite --baseline none --cache "$T/no-cache" \
	--db "$T/none.db"
has "$T/err" "arch=aarch64 disk=usb-ehci: skipped: the lab has no disk=usb-ehci on aarch64: QEMU lacks the model there, or Debian's kernel its driver" \
	"skipped with why"
has "$T/err" "mptsas1068, usb-xhci)" "naming the models aarch64 has, usb-xhci among them"
check "nothing was fetched or booted for it" sh -c "test ! -e '$T/no-cache' && test -z \"\$(ls -A '$TMPDIR')\""
expect 0 "lab run --plan of usb-xhci and usb-ehci on aarch64" "$VMB" lab run --plan \
	--matrix "accel=tcg arch=aarch64 disk=usb-xhci,usb-ehci" --suites disk.randwrite --baseline none
has "$T/out" "accel=tcg arch=aarch64 disk=usb-xhci" "the plan has usb-xhci on aarch64"
has "$T/out" "accel=tcg arch=aarch64 disk=usb-ehci (skipped here: the lab has no disk=usb-ehci on aarch64" \
	"and says that usb-ehci is skipped there, and why"
if [ "$(uname -m)" != x86_64 ] || [ ! -x /bin/busybox ] || ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	skip "a TCG guest on each USB disk" "an x86_64 host with busybox-static and qemu-system-x86 is needed"
	finish
	exit $?
fi
shared_images x86_64
expect 0 "disk.randwrite in a TCG guest on usb-xhci and on usb-ehci" "$VMB" lab run \
	--matrix "accel=tcg fs=none disk=usb-xhci,usb-ehci" --suites disk.randwrite --quick --boots 1 --baseline none \
	--disk-size 64m --time 0.3 --warmup 0 --repeat 1 --disk.iodepth 1 --cache "$cache" --image-dir "$T/imgs" \
	--db "$T/usb.db" -o "$T/usb.html"
has "$T/out" "accel=tcg disk=usb-ehci" "the comparison has the EHCI configuration"
check "stored: each row's controller behind the disk, its writes arrived, no error" python3 - "$T/usb.db" <<'PY'
import json, sqlite3, sys
docs = {}
for (d,) in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs"):
    d = json.loads(d)
    docs[d["labels"]["disk"]] = d
assert set(docs) == {"usb-xhci", "usb-ehci"}, set(docs)
want = {"usb-xhci": "xhci_hcd", "usb-ehci": "ehci-pci"}
for disk, d in docs.items():
    assert d["lab_config"] == f"accel=tcg disk={disk} fs=none", d["lab_config"]
    (s,) = [s for s in d["suites"] if s["name"] == "disk"]
    dev = s["notes"]["device"]
    # a SCSI disk (usb-storage), behind the host controller the row names
    drivers = {b["name"]: b["driver"] for b in d["fingerprint"]["block_devices"]}
    assert dev.startswith("sd") and drivers.get(dev) == want[disk], (dev, drivers)
    (t,) = s["tests"]
    # an I/O error or a short write fails the test with its errno: ok is none of them
    assert t["name"] == "randwrite" and t["status"] == "ok" and t["reason"] is None, t
    m = {x["name"]: x for x in t["cases"][0]["metrics"]}
    assert m["iops"]["summary"]["mean"] > 0, m["iops"]
    # the bytes moved: what the guest's disk received, what the host's file got
    assert s["notes"]["device_write_bytes"] > 0 and s["notes"]["host_write_bytes"] > 0, s["notes"]
PY
check "no QEMU process and no work file is left" sh -c "! pgrep -f '[q]emu-system-.*$T' >/dev/null &&
	test -z \"\$(ls -A '$TMPDIR')\""
finish
