#!/bin/sh
# The lab's guest image: built from Debian's kernel (downloaded once into a
# cache kept in the build tree), booted under QEMU TCG, and its agent asked
# to run a suite.
. "$(dirname "$0")/lib.sh"

cache="$SRC/build-lab-cache"
expect 2 "an unknown lab command" "$VMB" lab boot
has "$T/err" "'image' builds the guest image" "says what exists"
expect 2 "aarch64 is not built yet, and says so" "$VMB" lab image --arch aarch64 --cache "$cache" --out "$T/arm"
if [ ! -x /bin/busybox ] || ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	ok "guest image and boot # skip: busybox-static or qemu-system-x86 is not installed (scripts/deps.sh test)"
	finish
	exit $?
fi
expect 0 "lab image" "$VMB" lab image --cache "$cache" --out "$T/img"
has "$T/out" "built $T/img" "built"
check "the manifest lists the kernel and every driver, none missing" python3 - "$T/img/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["arch"] == "x86_64" and m["kernel_version"] and not m["modules_missing"], m
for k in ("virtio_blk.ko", "virtio_scsi.ko", "ahci.ko", "ata_piix.ko", "nvme.ko", "nvme-core.ko", "sym53c8xx.ko",
          "virtio_console.ko"):
    assert k in m["modules"], k
assert m["modules"].index("virtio.ko") < m["modules"].index("virtio_blk.ko")  # dependencies first
PY
expect 0 "a second build finds it up to date" "$VMB" lab image --cache "$cache" --out "$T/img"
has "$T/out" "up to date" "not rebuilt"
check "the guest boots under TCG, says HELLO, runs cpu.prime, says BYE" python3 "$SRC/tests/cli/boot_agent.py" \
	"$T/img" "$T"
check "no QEMU process is left" sh -c "! pgrep -f '[q]emu-system-x86_64.*$T' >/dev/null"
finish
