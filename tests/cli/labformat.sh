#!/bin/sh
# The files of 'lab image --format' (issue 46, from the review): SIGTERM
# while the ISO is made removes its staging tree and temporary file; a
# second signal removes them at once; what a vmbench killed (-9) left,
# named by its PID, is removed by the next one, and a live process's is
# not; two on one image directory take its lock (DIR/.lock) in turn, the
# second saying that it waits. Stopped at named points (stop_at.py), never
# by sleeping. Then one TCG guest (the plain build's, $3 = all) booted from
# that ISO with a comma in its work directory (TMPDIR) and in --image-dir:
# QEMU's options take the paths with their commas doubled.
. "$(dirname "$0")/lib.sh"

stop_at="$SRC/tests/cli/stop_at.py"
cache="$SRC/build-lab-cache"
img="$T/img"
if [ "$(uname -m)" != x86_64 ] || [ ! -x /bin/busybox ] || ! command -v grub-mkrescue >/dev/null 2>&1 ||
	! command -v xorriso >/dev/null 2>&1 || [ ! -e /usr/lib/grub/i386-pc/cdboot.img ] ||
	! command -v qemu-img >/dev/null 2>&1 || ! command -v flock >/dev/null 2>&1; then
	skip "lab image --format's files" "an x86_64 host with busybox-static, grub-mkrescue, xorriso, grub-pc-bin, \
qemu-img and flock is needed (scripts/deps.sh test installs them)"
	finish
	exit $?
fi
if ! "$VMB" lab image --cache "$cache" --image-dir "$img" >"$T/image.out" 2>&1; then
	skip "lab image --format's files" "no guest image could be built here: $(tail -1 "$T/image.out")"
	finish
	exit $?
fi
# what is beside the image: the ISO's and the disks' files, staged or made
made() { ls -A "$img" | grep -e stage -e '\.tmp\.' -e '^vmbench\.' | sort | tr '\n' ' '; }

# --- a signal while the ISO's tree is staged, before grub-mkrescue ---
expect 130 "SIGTERM while the ISO is staged ends lab image --format" python3 "$stop_at" iso-staged \
	"ls -R \"$img/iso-stage.\$VMB_PID\" >'$T/staged'; kill -TERM \$VMB_PID" \
	"$VMB" lab image --format iso,qcow2 --cache "$cache" --image-dir "$img"
has "$T/err" "lab image --format: interrupted before grub-mkrescue made the ISO" "says so"
has "$T/staged" "grub.cfg" "the staging tree was there when it was signalled"
check "its staging tree is gone, and no ISO or disk was made" test -z "$(made)"
python3 "$stop_at" iso-staged "kill -TERM \$VMB_PID; kill -HUP \$VMB_PID" \
	"$VMB" lab image --format iso,qcow2 --cache "$cache" --image-dir "$img" >"$T/out" 2>"$T/err" </dev/null
rc=$?
check "a second signal ends it at once (status $rc: killed by SIGTERM or SIGHUP)" test "$rc" -eq 129 -o "$rc" -eq 143
check "and its staging tree is gone too" test -z "$(made)"

# --- what a vmbench killed while staging left; a live process's files ---
python3 "$stop_at" iso-staged "echo \$VMB_PID >'$T/killed'; kill -KILL \$VMB_PID" \
	"$VMB" lab image --format iso,qcow2 --cache "$cache" --image-dir "$img" >"$T/out" 2>"$T/err" </dev/null
killed=$(cat "$T/killed")
check "kill -9 leaves the staging tree (the case to clean)" test -d "$img/iso-stage.$killed/boot/grub"
dead=$(sh -c 'echo $$') # a process that has ended
: >"$img/vmbench.iso.tmp.$dead"
: >"$img/vmbench.qcow2.tmp.$dead"
mkdir -p "$img/iso-stage.$$/boot" # this shell's: a live process
: >"$img/vmbench.vdi.tmp.$$"
expect 0 "the next lab image --format" "$VMB" lab image --format iso,qcow2 -v --cache "$cache" --image-dir "$img"
has "$T/err" "removed $img/iso-stage.$killed, left by process $killed, which is gone" "says what it removed"
check "removes what the dead left, keeps the live process's, and makes the ISO and the disk" test "$(made)" = \
	"iso-stage.$$ vmbench.iso vmbench.iso.stamp vmbench.qcow2 vmbench.vdi.tmp.$$ "
rm -r "$img/iso-stage.$$" "$img/vmbench.vdi.tmp.$$"

# --- two at once: the second waits for the first's lock ---
mkfifo "$T/locked" "$T/go"
exec 9<>"$T/go" # open both ways: writing to it never blocks, whoever reads
flock "$img/.lock" sh -c "echo locked >'$T/locked'; read -r x <'$T/go'" &
holder=$!
read -r x <"$T/locked"
expect 0 "lab image --format while another holds the image directory's lock" python3 "$stop_at" iso-lock-wait \
	"echo go >'$T/go'" \
	"$VMB" lab image --format iso,qcow2 --cache "$cache" --image-dir "$img"
echo go >&9 # the holder is let go in every case
wait "$holder"
exec 9>&-
has "$T/err" "another vmbench is making the ISO or disks of the image in $img (it holds $img/.lock): waiting for it" \
	"says that it waits, and for what"
has "$T/out" "up to date: $img/vmbench.iso" "then finds the ISO up to date"

# --- paths with a comma inside QEMU's KEY=VALUE,KEY=VALUE options: the
# scratch disk, QMP's and the agent's sockets (TMPDIR) and the ISO
# (--image-dir, whose x86_64 is this image); QEMU refused the line ---
if [ "${3:-all}" = none ] || ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	skip "a guest with commas in its paths" "the plain build boots it (the sanitizer's builds boot no guest), with \
qemu-system-x86"
	finish
	exit $?
fi
mkdir -p "$T/tm,p" "$T/im,g"
ln -s "$img" "$T/im,g/x86_64"
expect 0 "cpu.prime in a TCG guest booted from the ISO, TMPDIR and --image-dir with a comma" env TMPDIR="$T/tm,p" \
	"$VMB" lab run --matrix "accel=tcg boot=cdrom" --suites cpu.prime --quick --time 0.1 --repeat 2 --warmup 0 \
	--boots 1 --baseline none --cpu.max-prime 2000 --cache "$cache" --image-dir "$T/im,g" --db "$T/comma.db" \
	-o "$T/comma.html"
check "the guest's run is stored, its prime measured" python3 - "$T/comma.db" <<'PY'
import json, sqlite3, sys
rows = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("select doc from runs")]
guests = [d for d in rows if d.get("labels", {}).get("boot") == "cdrom"]
assert len(guests) == 1, [d.get("labels") for d in rows]
tests = {t["name"]: t for s in guests[0]["suites"] for t in s["tests"]}
assert tests["prime"]["status"] == "ok", tests["prime"]
PY
check "no QEMU process and no work file is left" sh -c "! pgrep -f '[q]emu-system-.*$T' >/dev/null &&
	test -z \"\$(ls -A '$T/tm,p')\""
finish
