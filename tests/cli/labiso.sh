#!/bin/sh
# The lab's image as a disk any hypervisor boots (issue 46): 'lab image
# --format iso,qcow2,vmdk,vdi' makes a GRUB ISO of the image's kernel and
# initramfs and converts it; the matrix key boot=cdrom boots that ISO from a
# CD-ROM through the firmware, where the lab reaches the agent and stores the
# run; outside the lab, the ISO boots under OVMF (UEFI) and the qcow2 as a
# plain disk with no virtio console, whose init then gives the agent the
# second serial port (what VirtualBox and VMware connect to a pipe).
# Every combination boot=cdrom cannot carry is refused before anything is
# fetched or booted. Plain build only (tests/meson.build): it boots three
# TCG guests.
. "$(dirname "$0")/lib.sh"

cache="$SRC/build-lab-cache"
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
for bad in "nic=virtio-net|nic=none, not nic=virtio-net: the guest's address is a word of the kernel's command line" \
	"arch=aarch64|arch=x86_64, not arch=aarch64: the ISO is made for x86_64's BIOS" \
	"firmware=uefi|firmware=default, not firmware=uefi: under UEFI, GRUB starts the kernel without the line" \
	"thp=never|thp=default, not thp=never: transparent_hugepage= is a word of the kernel's command line"; do
	expect 2 "boot=cdrom ${bad%%|*}: a usage error" "$VMB" lab run --matrix "accel=tcg boot=cdrom ${bad%%|*}" \
		--cache "$T/no-cache" --db "$T/none.db"
	has "$T/err" "boot=cdrom needs ${bad#*|}" "says what boot=cdrom needs, and why"
done
expect 2 "--format of an unknown format" "$VMB" lab image --format iso,ova --cache "$T/no-cache" \
	--image-dir "$T/none"
has "$T/err" "--format: 'ova' is no format of the image's; formats: iso, qcow2, vmdk, vdi" "lists the formats"
expect 2 "--format iso twice" "$VMB" lab image --format iso,qcow2,iso --cache "$T/no-cache" --image-dir "$T/none"
has "$T/err" "--format: iso is given twice" "says so"
expect 2 "--format ending in a comma" "$VMB" lab image --format iso, --cache "$T/no-cache" --image-dir "$T/none"
expect 2 "--format for aarch64" "$VMB" lab image --format iso --arch aarch64 --cache "$T/no-cache" \
	--image-dir "$T/none"
has "$T/err" "--format makes x86_64 images only" "says so"
expect 2 "--format with --distro" "$VMB" lab image --format qcow2 --distro debian --cache "$T/no-cache" \
	--image-dir "$T/none"
has "$T/err" "--distro's image is a disk already (root.qcow2)" "says so"
check "nothing was fetched, built or booted for them" sh -c "test ! -e '$T/none.db' && test ! -e '$T/no-cache' &&
	test ! -e '$T/none' && test -z \"\$(ls -A '$TMPDIR')\""
if [ "$(uname -m)" != x86_64 ] || [ ! -x /bin/busybox ] || ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	skip "the ISO made and booted" "an x86_64 host with busybox-static and qemu-system-x86 is needed"
	finish
	exit $?
fi
if ! command -v grub-mkrescue >/dev/null 2>&1 || ! command -v xorriso >/dev/null 2>&1 ||
	[ ! -e /usr/lib/grub/i386-pc/cdboot.img ]; then
	skip "the ISO made and booted" "grub-mkrescue, xorriso and grub-pc-bin are needed (scripts/deps.sh test installs them)"
	finish
	exit $?
fi

# The image of its own, with every format
expect 0 "lab image --format iso,qcow2,vmdk,vdi" "$VMB" lab image --format iso,qcow2,vmdk,vdi --cache "$cache" \
	--image-dir "$T/img"
has "$T/out" "built $T/img/vmbench.iso (GRUB: BIOS" "the ISO, with GRUB's BIOS platform"
check "each format is what qemu-img says it is, and the ISO boots BIOS and UEFI when GRUB has both" python3 - \
	"$T/img" <<'PY'
import json, os, subprocess, sys
d = sys.argv[1]
for f in ("qcow2", "vmdk", "vdi"):
    info = json.loads(subprocess.run(["qemu-img", "info", "--output=json", f"{d}/vmbench.{f}"], check=True,
                                     capture_output=True, text=True).stdout)
    assert info["format"] == f, info
    # converted from the ISO: the same size of disk
    assert info["virtual-size"] >= os.path.getsize(f"{d}/vmbench.iso"), info
cat = subprocess.run(["xorriso", "-indev", f"{d}/vmbench.iso", "-report_el_torito", "plain"], capture_output=True,
                     text=True).stdout
assert " BIOS " in cat, cat
assert (" UEFI " in cat) == os.path.exists("/usr/lib/grub/x86_64-efi/kernel.img"), cat
ls = subprocess.run(["xorriso", "-indev", f"{d}/vmbench.iso", "-find", "/boot", "-type", "f"], capture_output=True,
                    text=True).stdout
for f in ("/boot/vmlinuz", "/boot/initrd.img", "/boot/grub/grub.cfg"):
    assert f"'{f}'" in ls, (f, ls)
PY
check "no staging tree or temporary file is left beside the image" sh -c "! ls '$T/img' | grep -q -e stage -e tmp"
expect 0 "the same again" "$VMB" lab image --format iso,qcow2 --cache "$cache" --image-dir "$T/img"
has "$T/out" "up to date: $T/img/vmbench.iso" "the ISO is up to date"
has "$T/out" "up to date: $T/img/vmbench.qcow2" "and its conversion"

# boot=cdrom in the lab: the shared images' ISO is made under their lock, so
# that no lab run writes it while another test boots them
shared_images x86_64
imgs="$(dirname "$VMB")/test-images"
expect 0 "the shared image's ISO" flock "$imgs.lock" "$VMB" lab image --format iso --cache "$cache" \
	--image-dir "$imgs/x86_64"
expect 0 "cpu.prime in a TCG guest booted from the ISO (boot=cdrom)" "$VMB" lab run --matrix "accel=tcg boot=cdrom" \
	--suites cpu.prime --quick --time 0.1 --repeat 2 --warmup 0 --boots 1 --baseline none --cpu.max-prime 2000 \
	--cache "$cache" --image-dir "$T/imgs" --db "$T/iso.db" -o "$T/iso.html"
check "the stored guest was started by GRUB from the ISO, labelled boot=cdrom" python3 - \
	"$T/iso.db" <<'PY'
import json, sqlite3, sys
rows = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("select doc from runs")]
guests = [d for d in rows if d.get("labels", {}).get("boot") == "cdrom"]
assert len(guests) == 1, [d.get("labels") for d in rows]
g = guests[0]
text = json.dumps(g)
# GRUB's linux command names the file it loaded; QEMU's -kernel gives no BOOT_IMAGE
assert "BOOT_IMAGE=/boot/vmlinuz" in text, "no BOOT_IMAGE in the guest's command line"
assert "vmbench.agent=" not in text.split("BOOT_IMAGE=")[1].split('"')[0]
tests = {t["name"]: t for s in g["suites"] for t in s["tests"]}
assert tests["prime"]["status"] == "ok", tests["prime"]
PY
check "no QEMU process and no work file is left" sh -c "! pgrep -f '[q]emu-system-.*$T' >/dev/null &&
	test -z \"\$(ls -A '$TMPDIR')\""

# Outside the lab, as another hypervisor would: the ISO under OVMF, and the
# qcow2 as an IDE disk with no virtio console (its agent on ttyS1). Each
# console is read until the init says where its agent listens, at most
# 240 s under TCG, then QEMU is stopped.
boot_alone() { # NAME QEMU-ARGS...: QEMU in the background, its console $T/NAME.log
	name=$1
	shift
	qemu-system-x86_64 -machine q35 -accel tcg -m 512 -nodefaults -display none -serial "file:$T/$name.log" \
		"$@" >"$T/$name.qemu" 2>&1 &
	echo $! >"$T/$name.pid"
}
wait_agent() { # NAME: the init's line naming the agent's port, or a timeout
	i=0
	while [ $i -lt 480 ] && ! grep -aq "vmbench-init: agent on" "$T/$1.log" 2>/dev/null &&
		kill -0 "$(cat "$T/$1.pid")" 2>/dev/null; do
		sleep 0.5
		i=$((i + 1))
	done
	kill "$(cat "$T/$1.pid")" 2>/dev/null
	wait "$(cat "$T/$1.pid")" 2>/dev/null
	grep -a "vmbench-init: agent on" "$T/$1.log"
}
uefi=
if [ -r /usr/share/OVMF/OVMF_CODE.fd ] && [ -e /usr/lib/grub/x86_64-efi/kernel.img ]; then
	cp /usr/share/OVMF/OVMF_VARS.fd "$T/vars.fd"
	boot_alone uefi -drive "if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/OVMF/OVMF_CODE.fd" \
		-drive "if=pflash,format=raw,unit=1,file=$T/vars.fd" \
		-drive "if=none,id=cd,media=cdrom,readonly=on,file=$T/img/vmbench.iso" -device ide-cd,drive=cd,bus=ide.1 \
		-device virtio-serial-pci,id=vser -chardev "socket,id=agent,path=$T/uefi.sock,server=on,wait=off" \
		-device virtconsole,chardev=agent,bus=vser.0
	uefi=1
fi
boot_alone disk -serial "file:$T/ttyS1.log" \
	-drive "if=none,id=hd,file=$T/img/vmbench.qcow2,format=qcow2,snapshot=on" -device ide-hd,drive=hd,bus=ide.0
if [ -n "$uefi" ]; then
	wait_agent uefi >"$T/uefi.agent"
	check "the ISO boots under OVMF (UEFI) to its agent on the virtio console" grep -q "agent on /dev/hvc0" \
		"$T/uefi.agent"
else
	skip "the ISO under OVMF (UEFI)" "OVMF (Debian's ovmf) or GRUB's x86_64-efi platform (grub-efi-amd64-bin) is missing"
fi
wait_agent disk >"$T/disk.agent"
check "the qcow2 boots as a plain disk, its agent on the second serial port" grep -q "agent on /dev/ttyS1" \
	"$T/disk.agent"
check "those QEMUs are gone" sh -c "! pgrep -f '[q]emu-system-.*$T' >/dev/null"
finish
