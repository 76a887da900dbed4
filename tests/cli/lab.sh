#!/bin/sh
# The lab's guest images (x86_64, and aarch64 with the cross-built vmbench
# that `make cross` puts beside this one): built from Debian's kernels
# (downloaded once into a cache kept in the build tree), booted under QEMU
# TCG, their agents asked to run suites, a matrix over both run end to end.
. "$(dirname "$0")/lib.sh"

cache="$SRC/build-lab-cache"
# all: boot guests of both architectures; none: boot no guest (the ASan
# build: a guest's agent under TCG would double the longest test of `make
# test`, and the plain build's run boots them all; the checks that boot
# nothing still run)
guests=${3:-all}
# vmbench's work directories go to $TMPDIR: a private one, so that nothing
# else on the machine can make the "nothing left" checks pass or fail
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
# this machine's architecture in QEMU's words (qemu-system-ARCH), and one
# that is not this machine's (a guest KVM cannot run here)
case $(uname -m) in
arm64 | aarch64) arch=aarch64 other=x86_64 ;;
*) arch=$(uname -m) other=aarch64 ;;
esac
expect 2 "an unknown lab command" "$VMB" lab boot
has "$T/err" "the lab commands: image (build the guest image, or find it up to date), run (boot every configuration of a matrix" "says what exists"
expect 2 "a matrix key that does not exist" "$VMB" lab run --matrix "disk=ide colour=red"
has "$T/err" "unknown key 'colour'; valid keys: accel, arch, disk, fs, nic, smp, mem, pin, netdir" "lists the valid keys"
expect 2 "a controller that does not exist" "$VMB" lab run --matrix "disk=floppy"
has "$T/err" "valid values of disk: virtio-blk, virtio-scsi, ide, ahci, lsi, nvme" "lists the valid controllers"
# boot is a declared suite: listed, and outside the lab skipped with the reason
expect 0 "vmbench list shows the boot suite" "$VMB" list
has "$T/out" "boot.cold" "with its tests"
expect 1 "vmbench run boot: skipped, with why (nothing measured: exit 1)" "$VMB" run boot --no-store
has "$T/err" "boot: skipped: a boot is timed from outside the guest: 'vmbench lab run --suites boot' measures it" \
	"says where it runs"
expect 2 "lab run --suites with an unknown test" "$VMB" lab run --matrix accel=tcg --suites cpu,boot.hot \
	--db "$T/none.db"
has "$T/err" "--suites: unknown test 'hot' in suite boot; valid tests: cold, warm, reboot" "refused before any boot, with the valid tests"
expect 2 "lab run --suites with an empty item" "$VMB" lab run --matrix accel=tcg --suites cpu,,boot --db "$T/none.db"
has "$T/err" "--suites: 'cpu,,boot' has an empty item" "says so"
# an empty matrix or value was taken silently as the defaults
expect 2 "--rounds neither a number nor auto" "$VMB" lab run --matrix accel=tcg --rounds 0 --db "$T/none.db"
has "$T/err" "--rounds '0': give a number from 1 to 100, or auto" "the valid forms"
expect 2 "--mdd without --rounds auto" "$VMB" lab run --matrix accel=tcg --rounds 3 --mdd 5 --db "$T/none.db"
has "$T/err" "give --rounds auto" "says what --mdd needs"
expect 2 "--margin without --rounds auto" "$VMB" lab run --matrix accel=tcg --rounds 3 --margin 5 --db "$T/none.db"
has "$T/err" "--mdd, --margin and --budget-total say when --rounds auto stops; give --rounds auto" "says what --margin needs"
expect 2 "an empty matrix" "$VMB" lab run --matrix "" --db "$T/none.db"
has "$T/err" "matrix: empty; give KEY=VALUE,... words" "says what a matrix is"
has "$T/err" "valid keys: accel, arch, disk, fs, nic, smp, mem, pin, netdir" "with the keys"
expect 2 "an empty value: accel=," "$VMB" lab run --matrix "accel=," --db "$T/none.db"
has "$T/err" "accel has an empty value; give accel=V1,V2 with values among auto, kvm, tcg" "lists the values"
expect 2 "an empty value: smp=1,,1" "$VMB" lab run --matrix "smp=1,,1" --db "$T/none.db"
has "$T/err" "smp has an empty value" "says which key"
expect 2 "--rounds 0" "$VMB" lab run --matrix "accel=tcg" --rounds 0 --db "$T/none.db"
has "$T/err" "rounds" "names the option"
# run's options reach the guests: parsed and checked as run parses them, before anything is fetched or booted
expect 2 "lab run --foo: an option neither lab nor run has" "$VMB" lab run --matrix accel=tcg --foo \
	--cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "unknown option '--foo'" "says which"
expect 2 "lab run --cpu.max-prime 0: out of the suite option's range" "$VMB" lab run --matrix accel=tcg \
	--suites cpu.prime --cpu.max-prime 0 --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "--cpu.max-prime: '0' is out of range; expected a whole number from 3 to 10000000" \
	"with run's own message"
expect 2 "lab run --time 0: out of run's range" "$VMB" lab run --matrix accel=tcg --time 0 --cache "$T/no-cache" \
	--db "$T/none.db"
has "$T/err" "--time: '0' is out of range" "says so"
expect 2 "lab run --min-reps 5 --max-reps 3: run's check across options" "$VMB" lab run --matrix accel=tcg \
	--min-reps 5 --max-reps 3 --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "--min-reps 5 is larger than --max-reps 3" "says so"
expect 2 "lab run --cpus 1 with a guest of one vCPU" "$VMB" lab run --matrix "accel=tcg smp=2,1" --cpus 1 \
	--baseline none --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "--cpus: a guest of smp=1 has no CPU 1 (its CPUs are 0 to 0)" "names the configuration's vCPUs"
# options that would name the host's paths or the lab's plumbing: refused with why, never passed on
for opt in "--disk.dir $T" "--disk.device /dev/null" "--app.dir $T" "--net.server 127.0.0.1" "--json $T/x.json" \
	"--runs 2" "--destructive"; do
	expect 2 "lab run $opt: refused" "$VMB" lab run --matrix accel=tcg $opt --cache "$T/no-cache" --db "$T/none.db"
	has "$T/err" "${opt%% *} is not taken here: " "says why"
done
has "$T/err" "each guest overwrites a scratch disk of its own" "--destructive: the lab's scratch disk is the guest's"
expect 2 "lab run --disk.dir: refused" "$VMB" lab run --matrix accel=tcg --disk.dir "$T" --cache "$T/no-cache" \
	--db "$T/none.db"
has "$T/err" "each guest's disk suite tests the scratch disk behind the configuration's controller" \
	"and what the guest tests instead"
expect 0 "lab --help lists what it does not take, and why" "$VMB" lab --help
has "$T/out" "--disk.size                 not taken here: --disk-size SIZE sizes the scratch disk" "--disk.size"
check "nothing was stored for them" test ! -e "$T/none.db"
check "and nothing was fetched" test ! -e "$T/no-cache"
# the store's path was printed uninitialised when there is no HOME
expect 2 "lab report without HOME or a store" env -i "$VMB" lab report a=b
has "$T/err" "no result store: set --db, VMBENCH_DB or HOME" "says how to name one"
check "and prints no garbage" python3 -c "import sys; sys.stdin.buffer.read().decode('ascii')" <"$T/err"
# --out named the image directory while the report went elsewhere
expect 2 "lab run --out: refused" "$VMB" lab run --matrix accel=tcg --out "$T/x.html"
has "$T/err" "--image-dir DIR says where the guest images go, -o FILE where the HTML report goes" "names both"
expect 2 "lab image --out=DIR: refused" "$VMB" lab image "--out=$T/img"
has "$T/err" "--out is not taken here" "refused too"
expect 2 "lab image -o: no report there" "$VMB" lab image -o "$T/x.html"
has "$T/err" "-o belongs to lab run, lab contend, lab report and lab study; 'lab image' does not take it" "says whose it is"
check "no directory was made" test ! -e "$T/x.html"
# how guests measure is lab run's: image and report refuse it instead of ignoring it
expect 2 "lab image --time: refused" "$VMB" lab image --time 3 --image-dir "$T/img-time"
has "$T/err" "--time belongs to lab run and lab contend; 'lab image' does not take it" "says whose it is"
expect 2 "lab report --cpu.max-prime: refused" "$VMB" lab report --cpu.max-prime 100 --db "$T/none.db"
has "$T/err" "--cpu.max-prime belongs to lab run and lab contend" "a suite's option too"
# and how lab run boots and replicates
expect 2 "lab report --rounds: refused" "$VMB" lab report t=x --rounds 3 --db "$T/none.db"
has "$T/err" "--rounds belongs to lab run and lab contend; 'lab report' does not take it" "says whose it is"
expect 2 "lab image --baseline: refused" "$VMB" lab image --baseline none --image-dir "$T/img-base"
has "$T/err" "--baseline belongs to lab run and lab report; 'lab image' does not take it" "report's too, not image's"
: >"$T/exists.html"
expect 2 "lab run -o an existing file: refused before anything runs" "$VMB" lab run --matrix accel=tcg \
	-o "$T/exists.html" --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "-o: '$T/exists.html' exists" "says so"
check "nothing was fetched for it" test ! -e "$T/no-cache"
expect 1 "a matrix of which nothing can run here" "$VMB" lab run --matrix "accel=tcg arch=aarch64 disk=ide" \
	--suites boot --baseline none --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "arch=aarch64 disk=ide: skipped: the lab has no disk=ide on aarch64: QEMU lacks the model there, or Debian's kernel its driver (disk models on aarch64: virtio-blk," \
	"IDE on arm: why, from the device table"
has "$T/err" "no configuration of the matrix can run here" "and that nothing ran"
# products joined by |: one after the other, each configuration said
expect 1 "a matrix of two products, neither of which can run here" "$VMB" lab run \
	--matrix "accel=tcg arch=aarch64 disk=ide | accel=kvm arch=$other nic=e1000" --suites boot --baseline none \
	--cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "arch=aarch64 disk=ide nic=none: skipped:" "the first product's configuration, named by every key given"
has "$T/err" "arch=$other disk=virtio-blk nic=e1000: skipped: KVM runs guests" "and the second's"
expect 2 "a configuration in two products: a usage error" "$VMB" lab run --matrix "disk=ide,nvme | disk=nvme" \
	--db "$T/none.db"
has "$T/err" "matrix: part 2 repeats disk=nvme of an earlier part" "says which"
expect 1 "KVM for another architecture" "$VMB" lab run --matrix "accel=kvm arch=$other disk=nvme" \
	--suites boot --baseline none --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "arch=$other disk=nvme: skipped: KVM runs guests of this machine's architecture ($arch) only" \
	"KVM for another architecture: why"
check "and nothing was downloaded for it" test ! -e "$T/no-cache"
# --rounds auto: --budget-total holds from the first round (a round of at
# least 0.8 s: a second would end after 1 s), not only from the second on
expect 1 "--rounds auto --budget-total 1: one round (only the host can run)" "$VMB" lab run \
	--matrix "accel=kvm arch=$other" --suites cpu.prime --quick --time 0.4 --repeat 2 --cpu.max-prime 2000 \
	--rounds auto --budget-total 1 --cache "$T/no-cache" --db "$T/auto.db"
has "$T/err" "--rounds auto: stopped after 1 round: another would end after --budget-total 1s; no case is judged before \
two rounds" "the budget stopped it after the first round, and no made-up mdd"
check "one round was measured" python3 - "$T/auto.db" <<'PY2'
import sqlite3, sys
n = sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM runs").fetchone()[0]
assert n == 1, n
PY2
# --rounds auto with nothing to judge: refused when that is known before a
# boot, else stopped after the second round instead of running to the budget
expect 2 "--rounds auto, one configuration, no baseline: a usage error" "$VMB" lab run --matrix accel=tcg \
	--rounds auto --baseline none --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "one configuration without a baseline has none" "says why"
expect 1 "--rounds auto, only the host measured: stopped after two rounds" "$VMB" lab run \
	--matrix "accel=kvm arch=$other" --suites cpu.prime --quick --time 0.2 --repeat 2 --cpu.max-prime 2000 \
	--rounds auto --cache "$T/no-cache" --db "$T/auto2.db"
has "$T/err" "--rounds auto: stopped after 2 rounds: no verdict between the operands to judge" "says why it stopped"
check "two rounds were measured" python3 - "$T/auto2.db" <<'PY2'
import sqlite3, sys
n = sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM runs").fetchone()[0]
assert n == 2, n
PY2
# the host baseline kept four items of --suites and dropped the rest silently
mkdir -p "$T/w"
expect 1 "the host baseline runs every item of --suites (no guest ran: exit 1)" sh -c 'cd "$1/w" && shift && exec "$@"' sh "$T" "$VMB" lab run \
	--matrix "accel=kvm arch=$other" --suites cpu.prime,cpu.matrix,cpu.zlib,disk.fsync,disk.seqread,boot --quick --time 0.1 \
	--cache "$T/no-cache" --db "$T/host.db"
check "all five tests were measured on the host" python3 - "$T/host.db" <<'PY'
import json, sqlite3, sys
docs = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs")]
assert [d["lab_config"] for d in docs] == ["host"], [d.get("lab_config") for d in docs]
assert set(docs[0]["labels"]) == {"lab"}, docs[0]["labels"]  # the session; a host has no matrix keys
tests = sorted(s["name"] + "." + t["name"] for s in docs[0]["suites"] for t in s["tests"])
assert tests == ["cpu.matrix", "cpu.prime", "cpu.zlib", "disk.fsync", "disk.seqread"], tests
# its files went to a directory on a disk when the host has one, and it says what that is, as a guest does
fs = docs[0]["filesystem"]
disk = [s for s in docs[0]["suites"] if s["name"] == "disk"][0]
assert fs["type"] and fs["mountpoint"].startswith("/") and fs["mount_options"] and fs["size_bytes"] > 0, fs
assert disk["options"]["dir"].startswith(fs["mountpoint"]), (disk["options"]["dir"], fs)
assert ("note" in fs) == (fs["type"] in ("tmpfs", "ramfs")), fs
PY
has "$T/err" "no configuration of the matrix can run here" "a host alone is no lab run"
if [ ! -x /bin/busybox ] || ! command -v "qemu-system-$arch" >/dev/null 2>&1; then
	skip "guest image and boot" "busybox-static or qemu-system-$arch is not installed (scripts/deps.sh test)"
	finish
	exit $?
fi
expect 0 "lab image" "$VMB" lab image --cache "$cache" --image-dir "$T/img"
has "$T/out" "built $T/img" "built"
check "the manifest lists the kernel and every driver, none missing" python3 - "$T/img/manifest.json" "$arch" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["arch"] == sys.argv[2] and m["kernel_version"] and not m["modules_missing"], m
drivers = {"x86_64": ("virtio_blk.ko", "virtio_scsi.ko", "ahci.ko", "ata_piix.ko", "nvme.ko", "nvme-core.ko",
                      "sym53c8xx.ko", "virtio_console.ko"),
           "aarch64": ("virtio_blk.ko", "virtio_pci.ko", "ahci.ko", "nvme.ko", "virtio_console.ko")}
for k in drivers[sys.argv[2]]:
    assert k in m["modules"], k
assert m["modules"].index("virtio.ko") < m["modules"].index("virtio_blk.ko")  # dependencies first
PY
expect 0 "a second build finds it up to date" "$VMB" lab image --cache "$cache" --image-dir "$T/img"
has "$T/out" "up to date" "not rebuilt"
expect 0 "a bare --kernel: an image without modules" "$VMB" lab image --kernel "$T/img/vmlinuz" --cache "$cache" \
	--image-dir "$T/bare"
check "its manifest says that the kernel's drivers must be built in" python3 - "$T/bare/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["modules"] == [] and "virtio_blk" in m["modules_missing"] and "built in" in m["modules_note"], m
PY
expect 0 "a relative --kernel and --image-dir" sh -c 'cd "$1" && shift && exec "$@"' sh "$T" "$VMB" lab image \
	--kernel img/vmlinuz --cache "$cache" --image-dir rel
check "its vmlinuz link resolves from anywhere (an absolute target)" sh -c 'cd / && test -f "$1/rel/vmlinuz" &&
	case $(readlink "$1/rel/vmlinuz") in /*) ;; *) exit 1 ;; esac' sh "$T"
expect 1 "a --kernel that does not exist" "$VMB" lab image --kernel "$T/nothing.deb" --cache "$cache" --image-dir "$T/bare2"
has "$T/err" "--kernel $T/nothing.deb: No such file or directory" "names it"
expect 2 "a --busybox that is not a static program" "$VMB" lab image --busybox "$VMB" --cache "$cache" --image-dir "$T/bare3"
has "$T/err" "is not static" "says so"

# aarch64: an emulated guest, with the vmbench cross-built for it
if [ "$guests" != all ]; then
	skip "aarch64 guests" "this build boots no guest (the ASan build; the plain build's run boots them)"
elif [ "$arch" != aarch64 ] && [ -x "$(dirname "$VMB")/vmbench-aarch64" ] && command -v qemu-system-aarch64 >/dev/null 2>&1; then
	expect 2 "an $arch vmbench for an aarch64 image" "$VMB" lab image --arch aarch64 --agent "aarch64=$VMB" \
		--cache "$cache" --image-dir "$T/arm-bad"
	has "$T/err" "is for $arch, the image is for aarch64" "names both architectures"
	expect 0 "lab image --arch aarch64" "$VMB" lab image --arch aarch64 --cache "$cache" --image-dir "$T/arm"
	check "the aarch64 manifest: Debian's arm64 kernel, every driver, the arm64 loader and libraries" python3 - \
		"$T/arm/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["arch"] == "aarch64" and m["kernel_version"].endswith("-arm64") and not m["modules_missing"], m
for k in ("virtio_blk.ko", "virtio_pci.ko", "ahci.ko", "nvme.ko", "virtio_console.ko"):
    assert k in m["modules"], k
libs = m["libraries"]
assert libs[0] == "/lib/ld-linux-aarch64.so.1", libs
assert "/lib/aarch64-linux-gnu/libc.so.6" in libs and "/lib/aarch64-linux-gnu/libjansson.so.4" in libs, libs
assert m["busybox"].endswith("busybox-arm64/root/bin/busybox"), m["busybox"]
PY
else
	skip "aarch64 guests" "an aarch64 host, or no vmbench-aarch64 beside $VMB (make cross) or no qemu-system-aarch64"
fi

if [ "$guests" != all ]; then
	skip "booted guests: the agent driven by hand, a matrix end to end and its report, accel=auto, SIGTERM" \
		"this build boots no guest (the ASan build; the plain build's run boots them)"
else
if [ "$arch" = x86_64 ]; then
	check "the guest boots under TCG, says HELLO, runs cpu.prime, says BYE" python3 "$SRC/tests/cli/boot_agent.py" \
		"$T/img" "$T"
else
	skip "the agent driven by hand in a booted guest" "boot_agent.py drives a q35 machine (x86_64 hosts)"
fi
check "no QEMU process is left" sh -c "! pgrep -f '[q]emu-system-.*$T' >/dev/null"

shared_images "$arch"
# A two-controller matrix end to end, against the host (aarch64 guests
# boot in cli-guest and cli-labcpu; its IDE is refused above, with why).
expect 0 "lab run: ide and virtio-blk under TCG, cpu.prime, disk.randread, boot" "$VMB" lab run \
	--matrix "accel=tcg arch=$arch disk=ide,virtio-blk" --suites cpu.prime,disk.randread,boot \
	--quick --time 0.1 --boots 1 --label t=lab --cache "$cache" --image-dir "$T/imgs" --db "$T/lab.db" -o "$T/lab.html"
has "$T/out" "accel=tcg arch=$arch disk=ide" "the comparison has the IDE configuration"
has "$T/out" "accel=tcg arch=$arch disk=virtio-blk" "and the virtio-blk one"
has "$T/out" "host (baseline)" "against the host"
check "the report was written" test -s "$T/lab.html"
has "$T/err" "wrote $T/lab.html" "and named"
# the plan (lab run --plan's, tests/cli/labplan.sh), said as the run starts: on stderr, stdout keeps the tables
has "$T/err" "vmbench: plan: 2 configurations x 1 round x 1 boot = 2 boots, and the host measured each round; against the host" \
	"the run said its plan as it started"
has "$T/err" "vmbench:   estimated: " "with its estimate"
lacks "$T/out" "plan: " "on stderr, not in the tables"
check "stored: the host and every configuration, with their labels, drivers and boot phases" python3 - "$T/lab.db" \
	"$arch" <<'PY'
import json, sqlite3, sys
docs = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs ORDER BY id")]
arch = sys.argv[2]
configs = ["host", f"accel=tcg arch={arch} disk=ide", f"accel=tcg arch={arch} disk=virtio-blk"]
assert [d["lab_config"] for d in docs] == configs, [d.get("lab_config") for d in docs]
# one session, its id a label of every result; the configuration selectable by its matrix keys alone
assert len({d["labels"]["lab"] for d in docs}) == 1 and all("config" not in d["labels"] for d in docs), docs[0]["labels"]
# the host's test file and every guest's scratch disk have one size, recorded as such: they pair
sz = [c["params"]["size"] for d in docs for s in d["suites"] if s["name"] == "disk" for t in s["tests"]
      for c in t["cases"]]
assert len(sz) >= len(docs) and len(set(sz)) == 1, sz
want = {"ide": "ata_piix", "virtio-blk": "virtio_blk"}
for d in docs[1:]:
    lab = d["labels"]
    assert lab["t"] == "lab" and lab["accel"] == "tcg" and lab["arch"] == arch, lab
    fp = d["fingerprint"]
    assert fp["arch"] == lab["arch"], (fp["arch"], lab)  # the guest's own word, checked by the host too
    assert fp["hypervisor"]["name"] == "QEMU TCG", fp["hypervisor"]
    assert want[lab["disk"]] in [b["driver"] for b in fp["block_devices"]], fp["block_devices"]
    suites = {s["name"]: s for s in d["suites"]}
    assert set(suites) == {"cpu", "disk", "boot"}, set(suites)
    # fs=ext4, the default: the test file on the filesystem the guest made on the device under test
    assert suites["disk"]["notes"]["target"].startswith("/mnt/vmbench/"), suites["disk"]["notes"]
    assert d["filesystem"]["type"] == "ext4" and d["filesystem"]["device"].startswith("/dev/"), d["filesystem"]
    # the phases are declared in the document, in order: the report stacks what it names
    assert suites["boot"]["notes"]["phases"] == "phase_firmware,phase_kernel,phase_agent", suites["boot"]["notes"]
    tests = {t["name"]: t for t in suites["boot"]["tests"]}
    assert set(tests) == {"cold", "warm"}, set(tests)  # new QEMU process; reset in the same one
    for t in tests.values():
        m = {x["name"]: x for x in t["cases"][0]["metrics"]}
        # qemu start (or reset) < first output < init < agent ready: every phase took time
        for p in ("phase_firmware", "phase_kernel", "phase_agent"):
            assert m[p]["summary"]["n"] == 1 and min(m[p]["samples"]) > 0, (p, m[p]["samples"])  # --boots 1
        total = sum(m[p]["summary"]["mean"] for p in ("phase_firmware", "phase_kernel", "phase_agent"))
        assert abs(m["boot_total"]["summary"]["mean"] - total) < 1e-3 * total
PY
expect 0 "lab report redraws it from the store" "$VMB" lab report t=lab --db "$T/lab.db" -o "$T/again.html"
has "$T/out" "host (baseline)" "host first, as the baseline"
has "$T/out" "accel=tcg arch=$arch disk=virtio-blk" "every configuration"
check "the report is written again" test -s "$T/again.html"
# stdout and stderr to one file, as in a CI log: the messages on lines of their own, in the order they were said
cp "$T/out" "$T/again.out"
check "stdout and stderr to one file: no message inside a table line, 'wrote' after the table" sh -c \
	'"$1" lab report t=lab --db "$2/lab.db" -o "$2/both.html" >"$2/both" 2>&1 </dev/null && python3 - "$2/both" \
	"$2/again.out" "$2/both.html"' sh "$VMB" "$T" <<'PY'
import sys
both = open(sys.argv[1]).read().splitlines()
alone = open(sys.argv[2]).read().splitlines()
inside = [l for l in both if "vmbench: " in l and not l.startswith("vmbench: ")]
assert not inside, inside
# what is not a message is stdout, line for line as printed alone
table = [i for i, l in enumerate(both) if not l.startswith("vmbench: ")]
assert [both[i] for i in table] == alone, "\n".join(both)
wrote = [i for i, l in enumerate(both) if l.startswith("vmbench: wrote " + sys.argv[3])]
assert len(wrote) == 1 and wrote[0] > table[-1], "\n".join(both)
PY
expect 0 "lab report -o -: the report on stdout" "$VMB" lab report t=lab --db "$T/lab.db" -o -
check "HTML on stdout, and nothing else (the text table is left out)" sh -c \
	'test "$(head -c 15 "$1")" = "<!doctype html>" && tail -c 8 "$1" | grep -q "</html>"' sh "$T/out"
mkdir -p "$T/r"
expect 0 "lab report without -o: a report of a name of its own" sh -c 'cd "$1/r" && shift && exec "$@"' sh "$T" \
	"$VMB" lab report t=lab --db "$T/lab.db"
expect 0 "twice in the same second" sh -c 'cd "$1/r" && shift && "$@" && "$@"' sh "$T" "$VMB" lab report t=lab \
	--db "$T/lab.db"
check "three reports, each named when written" sh -c 'test "$(ls "$1/r" | grep -c "^vmbench-lab-.*\.html$")" = 3 &&
	grep -q "wrote vmbench-lab-" "$1/err"' sh "$T"
expect 2 "lab report of labels no run has" "$VMB" lab report t=nothing --db "$T/lab.db"
check "no QEMU process of this test is left" sh -c "! pgrep -f '[q]emu-system-.*$TMPDIR' >/dev/null"
check "no work directory is left" test -z "$(ls -A "$TMPDIR")"

# one boot (cpu.prime, not the boot suite's cold and warm boots): the choice of accelerator is what is checked
expect 0 "accel=auto: KVM when a guest boots under it, else TCG, and the result says which" "$VMB" lab run \
	--matrix "accel=auto" --suites cpu.prime --quick --time 0.1 --baseline none --cache "$cache" --image-dir "$T/imgs" \
	--disk-format qcow2 --db "$T/accel-auto.db" -o "$T/auto.html"
check "the accelerator used is recorded, with the reason for a fallback" python3 - "$T/accel-auto.db" <<'PY'
import json, os, sqlite3, sys
docs = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs")]
# a try that failed and was retried (--retries) is stored as its failure: say it, judge the run
for f in (d for d in docs if "lab_failure" in d):
    print("# a failed try, retried:", json.dumps(f["lab_failure"])[:300])
# every other document is the configuration's run (this store is the test's own)
assert all("lab_failure" in d or "accel" in d.get("labels", {}) for d in docs), \
    [(d.get("lab_config"), d.get("labels")) for d in docs]
ran = [d for d in docs if "lab_failure" not in d]
assert ran, "no run of the configuration was stored"
for d in ran:
    assert d["labels"]["accel"] in ("kvm", "tcg"), d["labels"]
d = ran[-1]  # the one the run ended with
accel = d["labels"]["accel"]
assert accel in ("kvm", "tcg"), accel
if accel == "tcg":
    assert "TCG used" in d.get("lab_note", ""), d.get("lab_note")
PY
check "the table names the accelerator that ran: accel=auto (ran kvm|tcg), as the document's name and its label" \
	python3 - "$T/accel-auto.db" "$T/out" <<'PY'
import json, sqlite3, sys
docs = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs")]
out = open(sys.argv[2]).read()
ran = [d for d in docs if "lab_failure" not in d]
for d in ran:
    name = "accel=auto (ran %s)" % d["labels"]["accel"]
    assert d["lab_config"] == name, (d["lab_config"], name)
    assert name in out, out
# no row of the table calls it accel=auto alone
assert not [l for l in out.splitlines() if l.startswith("accel=auto ") and not l.startswith("accel=auto (ran ")], out
PY
has "$T/auto.html" "accel=auto (ran " "and so does the HTML report"

check "SIGTERM while a guest runs: exit 130, no QEMU, no file left" python3 - "$VMB" "$cache" "$T" <<'PY'
import glob, os, signal, subprocess, sys
vmb, cache, t = sys.argv[1:4]
tmpdir = os.environ["TMPDIR"]
env = dict(os.environ, VMBENCH_TEST_STOP_AT="lab-booted")
p = subprocess.Popen([vmb, "lab", "run", "--matrix", "accel=tcg disk=ide,virtio-blk", "--suites", "boot",
                      "--baseline", "none", "--cache", cache, "--image-dir", f"{t}/imgs", "--db", f"{t}/int.db",
                      "-o", f"{t}/int.html"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
pid, status = os.waitpid(p.pid, os.WUNTRACED)  # it stops itself once the guest has said HELLO
assert os.WIFSTOPPED(status), status
# this test's QEMU: its work directory is in our private TMPDIR
qemu = subprocess.run(["pgrep", "-f", f"[q]emu-system-.*{tmpdir}"], capture_output=True, text=True).stdout.split()
assert qemu, "no QEMU running while the guest is up"
os.kill(p.pid, signal.SIGTERM)
os.kill(p.pid, signal.SIGCONT)
err = p.communicate(timeout=120)[1].decode()
assert p.returncode == 130, (p.returncode, err)
left = [q for q in qemu if os.path.exists(f"/proc/{q}")]
assert not left, f"QEMU left: {left}"
assert not os.listdir(tmpdir), f"work files left: {os.listdir(tmpdir)}"
PY
fi
finish
