#!/bin/sh
# The lab through libvirt (issue 46): 'lab run --connect qemu:///system'
# against Debian's libvirt daemon, which this test starts when none runs
# (no systemd here: virtlogd -d and libvirtd -d) and stops again. Two
# configurations of the matrix end to end as transient domains (type qemu:
# TCG), their results labelled hv_backend=libvirt and hv_host, the disk
# model's driver checked in the guest as for QEMU driven directly, and no
# domain left; a NIC's net.tcp_rr over the lab's link (a tap by name
# joined to a namespace of the lab's own), nothing of it left after; a
# configuration it cannot carry is skipped with why; a
# connection that fails and a guest that never reaches its agent are clear
# errors, and a kill -9 of vmbench leaves no domain (the daemon destroys
# them with the connection) and of a NIC's link only its tap, which the
# next lab run removes. Plain build only (tests/meson.build).
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/cli/libvirtd.sh"

cache="$SRC/build-lab-cache"
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
expect 1 "--connect to a URI no daemon answers" "$VMB" lab run --connect "qemu+unix:///system?socket=$T/none.sock" \
	--matrix "accel=tcg" --suites cpu.prime --baseline none --cache "$T/no-cache" --db "$T/none.db"
if grep -q "built without\|libvirt.so.0, which is not installed" "$T/err"; then
	skip "the lab through libvirt" "$(head -1 "$T/err")"
	finish
	exit $?
fi
has "$T/err" "--connect qemu+unix:///system: connecting to" "says what it could not reach"
check "nothing was fetched or stored for it" sh -c "test ! -e '$T/none.db' && test ! -e '$T/no-cache'"
expect 2 "--connect with an empty URI (libvirt's own default)" "$VMB" lab run --plan --connect "" \
	--matrix "accel=tcg" --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "--connect needs a libvirt URI, e.g. qemu:///system" "says what it needs"
# several hosts: each --connect value checked before anything runs
expect 2 "one connection given twice" "$VMB" lab run --plan --connect qemu:///system --connect qemu:///system \
	--matrix "accel=tcg" --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "are one connection to the results (hv_uri=qemu:///system): give each host once" "says so"
expect 2 "a --connect value that is no URI, beside another" "$VMB" lab run --plan --connect direct --connect lab1 \
	--matrix "accel=tcg" --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "--connect lab1: neither a libvirt URI" "says what it takes"
expect 2 "--baseline naming a configuration, over several hosts" "$VMB" lab run --connect direct \
	--connect qemu:///system --matrix "accel=tcg disk=ide,ahci" --baseline disk=ide --cache "$T/no-cache" \
	--db "$T/none.db"
has "$T/err" "runs on each of the 2 hosts: give --baseline host" "says what to give"
check "nothing was fetched or stored for them" sh -c "test ! -e '$T/none.db' && test ! -e '$T/no-cache'"
if [ "$(uname -m)" != x86_64 ] || [ ! -x /bin/busybox ] || ! command -v qemu-system-x86_64 >/dev/null 2>&1 ||
	! command -v libvirtd >/dev/null 2>&1 || ! command -v virsh >/dev/null 2>&1; then
	skip "TCG guests through libvirt" "x86_64, busybox-static, qemu-system-x86 and libvirt-daemon-system are needed"
	finish
	exit $?
fi
# lab study --connect: the plan says what libvirt cannot carry, a study's
# lab contend experiment's rt policy among it; lab contend takes one host
export VMBENCH_STUDIES="$SRC/studies"
expect 0 "lab study --plan --connect: a shared folder is skipped with why" "$VMB" lab study vbox-storage --plan \
	--quick --experiment shared-folder --connect test:///default --cache "$T/no-cache" --db "$T/none.db"
has "$T/out" "share=9p (skipped here: through libvirt, a shared folder" "the configuration it cannot carry, with why"
has "$T/err" "the guests through libvirt at test:///default" "says where its guests go"
expect 0 "lab study --plan --connect of a study whose experiments are lab contend's" "$VMB" lab study \
	vcpu-scheduling --plan --quick --connect test:///default --cache "$T/no-cache" --db "$T/none.db"
has "$T/out" "rt: skipped here: through libvirt, a real-time scheduler is the domain's definition" \
	"the rt policy is said skipped, with why"
expect 2 "lab contend --connect given twice" "$VMB" lab contend --connect qemu:///system --connect direct \
	--matrix "accel=tcg" --guests 2 --cache "$T/no-cache" --db "$T/none.db"
has "$T/err" "lab contend's guests contend for one host's CPUs, give it once" "says why"
# a domain the hypervisor refuses to start: the daemon's words, not errno's
# (libvirt's in-process test driver, which boots nothing, takes no
# AUTODESTROY); nothing of qemu:///system is touched
shared_images x86_64
expect 1 "a domain the hypervisor refuses to start" "$VMB" lab run --connect test:///default --matrix "accel=tcg" \
	--suites cpu.prime --quick --boots 1 --retries 0 --baseline none --cache "$cache" --image-dir "$T/imgs" \
	--db "$T/refused.db"
has "$T/err" "starting the guest (libvirt): libvirt test:///default: unsupported flags" "says what libvirt said"
if [ "$(id -u)" -ne 0 ]; then
	skip "TCG guests through libvirt" "qemu:///system's daemon is started as root"
	finish
	exit $?
fi
lvd_kvm_open
started=""
if ! virsh -c qemu:///system version >/dev/null 2>&1; then
	# no daemon: the test's own, stopped at the end by its pid files (never
	# by name: a private daemon of another test, or a user's, may run)
	logd=""
	for p in $(pgrep -x virtlogd); do
		# this mount namespace's (a private daemon's virtlogd serves its own)
		[ "$(readlink "/proc/$p/ns/mnt")" = "$(readlink /proc/self/ns/mnt)" ] && logd=$p
	done
	[ -n "$logd" ] || { virtlogd -d -p "$T/virtlogd.pid" && started="$started $T/virtlogd.pid"; }
	libvirtd -d -p "$T/libvirtd.pid" && started="$started $T/libvirtd.pid"
	i=0
	while ! virsh -c qemu:///system version >/dev/null 2>&1 && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
fi
trap 'for f in $started; do [ -s "$f" ] && kill "$(cat "$f")"; done; lvd_kvm_restore
	rm -rf "$T"' EXIT
if ! virsh -c qemu:///system version >/dev/null 2>&1; then
	skip "TCG guests through libvirt" "libvirtd did not start here"
	finish
	exit $?
fi
# the test's domains: the lab's (vmbench-WORKDIR, its work directory
# vmbench-lab-XXXXXX) that were not there before it, whose files are in
# its TMPDIR (other tests and runs may use the same daemon meanwhile)
virsh -c qemu:///system list --all --name | grep '^vmbench-vmbench-lab-' > "$T/before" || true
cat > "$T/domains" <<EOF
#!/bin/sh
for d in \$(virsh -c qemu:///system list --all --name | grep '^vmbench-vmbench-lab-' | grep -v -x -F -f '$T/before'); do
	virsh -c qemu:///system dumpxml "\$d" 2>/dev/null | grep -q -F '$TMPDIR/' && echo "\$d"
done
true
EOF
chmod +x "$T/domains"
domains() { "$T/domains"; }
# the daemon's QEMU runs as another user (libvirt-qemu): it crosses the
# test's directories to the work directory's files
chmod 711 "$T" "$TMPDIR"
shared_images x86_64
expect 0 "lab run --plan --connect: a NIC is planned, two of them skipped with why" "$VMB" lab run --plan \
	--connect qemu:///system --matrix "accel=tcg nic=e1000 nics=1,2" --suites net.tcp_rr --baseline none
has "$T/out" "    accel=tcg nic=e1000 nics=1
" "one NIC is planned, not skipped"
has "$T/out" "accel=tcg nic=e1000 nics=2 (skipped here: through libvirt, several NICs or queues on one:" \
	"two NICs are skipped, with why"
# a NIC through libvirt: the domain's tap, made by the lab in the root
# namespace, joined to a namespace of its own where the host's serve is;
# looked at while the guest runs (its devices, their addresses, the
# domain's interface, the namespaces of vmbench's children)
root_ns=$(readlink /proc/self/ns/net)
expect 0 "a NIC through libvirt, net.tcp_rr measured over it" python3 "$SRC/tests/cli/stop_at.py" lab-net-up \
	"ip -o link > '$T/links'; ip -o addr > '$T/addrs'; for p in \$(pgrep -P \$VMB_PID); do readlink /proc/\$p/ns/net; \
	done | grep -v -x -F '$root_ns' > '$T/netns'; virsh -c qemu:///system dumpxml \$('$T/domains') > '$T/domain.xml'" \
	"$VMB" lab run \
	--connect qemu:///system --matrix "accel=tcg nic=e1000" --suites net.tcp_rr --quick --repeat 2 --warmup 0 \
	--boots 1 --baseline none --cache "$cache" --image-dir "$T/imgs" --db "$T/nic.db" -o "$T/nic.html"
check "the domain's e1000 on the lab's tap, which has no address in the root namespace, nor its veth" python3 - \
	"$T/domain.xml" "$T/links" "$T/addrs" "$T/linknames" <<'PY'
import re, sys
import xml.etree.ElementTree as ET
ifs = ET.parse(sys.argv[1]).getroot().findall("devices/interface")
assert len(ifs) == 1 and ifs[0].get("type") == "ethernet", [i.attrib for i in ifs]
tap = ifs[0].find("target").get("dev")
assert ifs[0].find("model").get("type") == "e1000", ET.tostring(ifs[0])
assert re.fullmatch(r"vmbt\d+-\d+", tap), tap
links = open(sys.argv[2]).read()
veth = "vmbv" + tap[4:]
open(sys.argv[4], "w").write(f"{tap}\n{veth}\n")
assert f" {tap}:" in links and f" {veth}@" in links, links
# no IPv4 or IPv6 address (not even a link-local one) on either
addrs = [l for l in open(sys.argv[3]) if l.split()[1].split("@")[0] in (tap, veth)]
assert not addrs, addrs
PY
check "vmbench's serve in a network namespace of its own, not the root one" test -s "$T/netns"
check "stored with the nic label, the guest's e1000 driver on the link's address, tcp_rr measured" python3 - \
	"$T/nic.db" <<'PY'
import json, sqlite3, sys
d = json.loads(sqlite3.connect(sys.argv[1]).execute("select doc from runs").fetchone()[0])
lab = d["labels"]
assert (lab["hv_backend"], lab["nic"], lab["net_backend"]) == ("libvirt", "e1000", "tap"), lab
nics = d["fingerprint"]["network"]
assert [(n["driver"], n["state"], n["ipv4"]) for n in nics] == [("e1000", "up", ["10.251.0.2/30"])], nics
t = d["suites"][0]["tests"][0]
assert (d["suites"][0]["name"], t["name"], t["status"]) == ("net", "tcp_rr", "ok"), (t["name"], t.get("reason"))
m = {x["name"]: x["samples"] for x in t["cases"][0]["metrics"]}
assert m["transactions_per_s"] and min(m["transactions_per_s"]) > 0, m
PY
check "no domain, no link device of the lab's left" sh -c "test -z \"\$('$T/domains')\" && test -s '$T/linknames' && \
	! ip -o link | grep -w -F -f '$T/linknames'"
check "nor its namespace: no process in it" sh -c "! for p in /proc/[0-9]*; do readlink \$p/ns/net; done 2>/dev/null | \
	grep -q -x -F -f '$T/netns'"
expect 0 "two configurations through libvirt" "$VMB" lab run --connect qemu:///system \
	--matrix "accel=tcg disk=virtio-blk,ahci" --suites cpu.prime,disk.randread --quick --time 0.1 --repeat 2 \
	--warmup 0 --boots 1 --baseline none --disk.iodepth 1 --cpu.max-prime 2000 --cache "$cache" \
	--image-dir "$T/imgs" --db "$T/lv.db" -o "$T/lv.html"
check "both stored, labelled hv_backend=libvirt and the daemon's host, each disk's driver the guest's" python3 - \
	"$T/lv.db" "$(virsh -c qemu:///system hostname)" <<'PY'
import json, sqlite3, sys
docs = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("select doc from runs")]
assert len(docs) == 2, len(docs)
drivers = {"virtio-blk": "virtio_blk", "ahci": "ahci"}
for d in docs:
    lab = d["labels"]
    assert lab["hv_backend"] == "libvirt" and lab["hv_host"] == sys.argv[2], lab
    disks = json.dumps(d["fingerprint"]["block_devices"])
    assert drivers[lab["disk"]] in disks, (lab["disk"], disks[:300])
    tests = {t["name"]: t["status"] for s in d["suites"] for t in s["tests"]}
    assert tests == {"prime": "ok", "randread": "ok"}, tests
PY
check "no domain of the test's left" test -z "$(domains)"
check "and no work file" test -z "$(ls -A "$TMPDIR")"
# several hosts: two connections that reach this machine (the daemon, and
# QEMU driven directly) one after another, a third whose daemon is not
# there, and a fourth that connects and then refuses every domain (as a
# host lost mid-matrix fails its boots); one session, compared host x
# configuration
expect 1 "the matrix over four hosts, two of them failing" "$VMB" lab run --connect qemu:///system \
	--connect direct --connect "qemu+unix:///system?socket=$T/none.sock" --connect test:///default --retries 0 \
	--matrix "accel=tcg disk=virtio-blk,ahci" \
	--suites cpu.prime --quick --repeat 2 --warmup 0 --boots 1 --baseline none --cpu.max-prime 2000 \
	--cache "$cache" --image-dir "$T/imgs" --db "$T/fleet.db" -o "$T/fleet.html"
has "$T/err" "vmbench [qemu+unix:///system]: error: --connect qemu+unix:///system: connecting to" \
	"the unreachable host's error, tagged with its URI"
has "$T/err" "failed (exit 1); the other hosts' results are kept" "says the others' results are kept"
has "$T/err" "vmbench [test:///default]: error: accel=tcg disk=ahci: " "the refusing host's boots fail, tagged"
has "$T/err" "test:///default: failed (exit 1)" "and that host fails alone"
has "$T/err" "vmbench [direct]: accel=tcg disk=ahci: stored as run" "each host's messages tagged with its URI"
check "both reachable hosts' configurations stored in one session, labelled hv_uri, named with it" python3 - \
	"$T/fleet.db" <<'PY'
import json, sqlite3, sys
docs = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("select doc from runs")]
# the refusing host's two failed boots are stored as markers, named with it
marks = sorted(d["lab_config"] for d in docs if "lab_failure" in d)
assert marks == ["hv_uri=test:///default accel=tcg disk=ahci", "hv_uri=test:///default accel=tcg disk=virtio-blk"], marks
assert all(d["labels"]["hv_uri"] == "test:///default" for d in docs if "lab_failure" in d)
docs = [d for d in docs if "lab_failure" not in d]
assert len(docs) == 4, len(docs)
assert len({d["labels"]["lab"] for d in docs}) == 1, [d["labels"]["lab"] for d in docs]
got = sorted((d["labels"]["hv_uri"], d["labels"]["hv_backend"], d["labels"]["disk"], d["lab_config"]) for d in docs)
assert got == [("direct", "qemu", "ahci", "hv_uri=direct accel=tcg disk=ahci"),
               ("direct", "qemu", "virtio-blk", "hv_uri=direct accel=tcg disk=virtio-blk"),
               ("qemu:///system", "libvirt", "ahci", "hv_uri=qemu:///system accel=tcg disk=ahci"),
               ("qemu:///system", "libvirt", "virtio-blk", "hv_uri=qemu:///system accel=tcg disk=virtio-blk")], got
PY
has "$T/out" "#4 hv_uri=direct accel=tcg disk=ahci, 1 run" "one comparison of host x configuration"
check "the report written" test -s "$T/fleet.html"
session=$(python3 -c 'import json,sqlite3,sys; print(json.loads(sqlite3.connect(sys.argv[1]).execute("select doc from runs").fetchone()[0])["labels"]["lab"])' "$T/fleet.db")
expect 0 "lab report redraws it from the store" "$VMB" lab report "lab=$session" --baseline none --db "$T/fleet.db" \
	-o "$T/fleet2.html"
has "$T/out" "#2 hv_uri=qemu:///system accel=tcg disk=ahci, 1 run" "host x configuration again"
expect 0 "compare selects one host's configuration against another's" "$VMB" compare \
	"hv_uri=qemu:///system,disk=ahci" "hv_uri=direct,disk=ahci" --db "$T/fleet.db"
check "no domain of the test's left" test -z "$(domains)"
check "and no work file, nor a table's file" test -z "$(ls -A "$TMPDIR")"
# the balloon through libvirt's own calls (virDomainSetMemoryFlags, the
# actual balloon of virDomainMemoryStats)
expect 0 "the balloon suite through libvirt" "$VMB" lab run --connect qemu:///system --matrix "accel=tcg balloon=on" \
	--suites balloon --quick --boots 1 --baseline none --cache "$cache" --image-dir "$T/imgs" --db "$T/bl.db" \
	-o "$T/bl.html"
check "its inflate and deflate measured, idle and loaded" python3 - "$T/bl.db" <<'PY'
import json, sqlite3, sys
d = json.loads(sqlite3.connect(sys.argv[1]).execute("select doc from runs").fetchone()[0])
assert d["labels"]["hv_backend"] == "libvirt", d["labels"]
tests = {t["name"]: t for s in d["suites"] for t in s["tests"]}
assert sorted(tests) == ["idle", "loaded"], sorted(tests)
for t in tests.values():
    assert t["status"] == "ok", (t["name"], t.get("reason"))
    m = {x["name"]: x["samples"] for x in t["cases"][0]["metrics"]}
    assert all(v > 0 for v in m["inflate_s"] + m["deflate_s"]), m
PY
check "no domain left" test -z "$(domains)"
# boot.warm (virDomainReset) and boot.reboot (the guest's own reboot,
# timed from libvirt's reboot event) through libvirt
expect 0 "boot.warm and boot.reboot through libvirt" "$VMB" lab run --connect qemu:///system --matrix "accel=tcg" \
	--suites boot.warm,boot.reboot --quick --boots 1 --baseline none --cache "$cache" --image-dir "$T/imgs" \
	--db "$T/bw.db" -o "$T/bw.html"
check "each measured in the first boot's domain, the reboot's shutdown from REBOOT to the reset event" python3 - \
	"$T/bw.db" <<'PY'
import json, sqlite3, sys
d = json.loads(sqlite3.connect(sys.argv[1]).execute("select doc from runs").fetchone()[0])
assert d["labels"]["hv_backend"] == "libvirt", d["labels"]
tests = {t["name"]: t for s in d["suites"] if s["name"] == "boot" for t in s["tests"]}
for name in ("cold", "warm", "reboot"):
    t = tests[name]
    assert t["status"] == "ok", (name, t["status"], t.get("reason"))
    m = {x["name"]: x["samples"][0] for x in t["cases"][0]["metrics"]}
    phases = sum(v for k, v in m.items() if k.startswith("phase_"))
    assert m["boot_total"] > 0 and abs(phases - m["boot_total"]) <= 1e-6 * m["boot_total"] + 1, (name, m)
m = {x["name"]: x["samples"][0] for x in tests["reboot"]["cases"][0]["metrics"]}
assert m["shutdown"] > 0, m
PY
check "no domain left" test -z "$(domains)"
# vmops' snapshot by libvirt's own calls: an external disk-only snapshot
# of the scratch disk, its active block commit and pivot; the guest's
# writes checked by the suite across both
expect 0 "vmops.snapshot through libvirt" "$VMB" lab run --connect qemu:///system --matrix "accel=tcg" \
	--suites vmops.snapshot --quick --boots 1 --baseline none --cache "$cache" --image-dir "$T/imgs" \
	--db "$T/snap.db" -o "$T/snap.html"
check "the snapshot made and committed back, the test ok" python3 - "$T/snap.db" <<'PY'
import json, sqlite3, sys
d = json.loads(sqlite3.connect(sys.argv[1]).execute("select doc from runs").fetchone()[0])
t = d["suites"][0]["tests"][0]
assert t["name"] == "snapshot" and t["status"] == "ok", (t["name"], t["status"], t.get("reason"))
m = {x["name"]: x["samples"] for x in t["cases"][0]["metrics"]}
assert m["create_s"][0] > 0 and m["commit_s"][0] > 0, m
PY
check "no domain left, nor an overlay" sh -c "test -z \"\$('$T/domains')\" && test -z \"\$(ls -A '$TMPDIR')\""
# pin=on by libvirt's own call, seen from outside by virsh: vCPU i on
# host CPU i, round robin over this host's CPUs
ncpu=$(nproc)
expect 0 "pin=on through libvirt" python3 "$SRC/tests/cli/stop_at.py" lab-pinned \
	"virsh -c qemu:///system vcpupin \$('$T/domains') > '$T/pins'" "$VMB" lab run --connect qemu:///system --matrix "accel=tcg pin=on smp=2" --suites cpu.prime \
	--quick --boots 1 --baseline none --cpu.max-prime 2000 --cache "$cache" --image-dir "$T/imgs" \
	--db "$T/pin.db" -o "$T/pin.html"
check "virsh sees vCPU 0 on CPU 0 and vCPU 1 on CPU $((1 % ncpu))" python3 - "$T/pins" "$ncpu" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and l.split()[0].isdigit()]
n = int(sys.argv[2])
assert [(int(v), c) for v, c in rows] == [(0, "0"), (1, str(1 % n))], rows
PY
# lab contend through libvirt: two domains on host CPU 0 (each with a NIC
# for net.udp_rr, measured by the host's client), the policies by
# libvirt's own calls (cpu_shares; global_quota per global_period), seen
# from outside by virsh at the first cell; the host's figures from
# libvirt's vCPU statistics; rt skipped with why. Its two domains are
# named after their work directories in $TMPDIR (vmbench-WORKDIR).
expect 0 "lab contend --connect: fair, weights 1:3 and a reservation of 70%" python3 "$SRC/tests/cli/stop_at.py" \
	contend-cell "for w in \$(ls '$TMPDIR' | grep '^vmbench-lab-'); do d=vmbench-\$w; \
	virsh -c qemu:///system schedinfo \$d; \
	virsh -c qemu:///system vcpupin \$d; virsh -c qemu:///system emulatorpin \$d; done > '$T/tune'" \
	"$VMB" lab contend --connect qemu:///system --matrix "accel=tcg" --guests 2 --host-cpus 0 \
	--policy fair,weights,reservation,rt --shares 1,3 --reserve 70 --suites cpu.prime,net.udp_rr --threads 1 \
	--time 0.5 --repeat 2 --warmup 0 --cpu.max-prime 2000 --net.time 0.3 --cache "$cache" --image-dir "$T/imgs" \
	--db "$T/ct.db" \
	-o "$T/ct.html"
has "$T/err" "rt: skipped: through libvirt, a real-time scheduler is the domain's definition" "rt is skipped, with why"
check "each policy's guests labelled libvirt, their promises and the host's figures from libvirt" python3 - \
	"$T/ct.db" "$T/tune" <<'PY'
import json, math, re, sqlite3, sys
docs = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("select doc from runs")]
promised = {("fair", "1"): 50, ("fair", "2"): 50, ("weights", "1"): 25, ("weights", "2"): 75,
            ("reservation", "1"): 70, ("reservation", "2"): 30}
share = {}
for d in docs:
    lab = d["labels"]
    key = (lab["policy"], lab["guest"])
    assert lab["hv_backend"] == "libvirt" and lab["hv_uri"] == "qemu:///system", lab
    s = [s for s in d["suites"] if s["name"] == "contend"][0]
    assert s["notes"]["tuned_by"] == "libvirt" and "global_quota" in s["notes"]["policy"] or key[0] != "reservation", s["notes"]
    m = {x["name"]: x["samples"][0] for x in s["tests"][0]["cases"][0]["metrics"]}
    assert m["promised_share"] == promised[key], (key, m)
    assert math.isfinite(m["cpu_share"]) and 0 < m["cpu_share"] <= 100, (key, m)
    assert math.isfinite(m["run_delay"]) and m["run_delay"] >= 0, (key, m)
    share[key] = m["cpu_share"]
    # net.udp_rr from the host's client over each guest's NIC through libvirt
    rr = [t for s in d["suites"] if s["name"] == "net" for t in s["tests"] if t["name"] == "udp_rr"]
    assert rr and rr[0]["status"] == "ok" and rr[0]["cases"][0]["metrics"][0]["samples"][0] > 0, (key, rr)
assert sorted(share) == sorted(promised), sorted(share)
# both domains confined to one host CPU: their shares of it add up to at
# most all of it (libvirt's CPU time in the kernel's 10 ms ticks: 2 points)
for p in ("fair", "weights", "reservation"):
    assert share[(p, "1")] + share[(p, "2")] <= 102, (p, share)
# virsh at the first cell: the first cell's knobs on the two domains,
# every vCPU and the emulator on CPU 0
order = docs[0]["run_group"]["order"][0]
first = re.match(r"policy=(\w+)", order).group(1)
text = open(sys.argv[2]).read()
shares = sorted(int(v) for v in re.findall(r"^cpu_shares\s*:\s*(\d+)", text, re.M))
quotas = sorted(int(v) for v in re.findall(r"^global_quota\s*:\s*(-?\d+)", text, re.M))
want = {"fair": ([1024, 1024], [-1, -1]), "weights": ([1024, 3072], [-1, -1]),
        "reservation": ([1024, 1024], [-1, 30000])}[first]
assert (shares, [q if q >= 0 else -1 for q in quotas]) == want, (first, shares, quotas)
pins = re.findall(r"^\s*(\d+|\*)\s*:?\s+(\S+)\s*$", text, re.M)
assert len(pins) >= 4 and all(c == "0" for _, c in pins), pins
PY
check "no domain left" test -z "$(domains)"
expect 1 "a guest that does not reach its agent in time" "$VMB" lab run --connect qemu:///system \
	--matrix "accel=tcg" --suites cpu.prime --quick --boots 1 --retries 0 --baseline none --hello-timeout 1 \
	--cache "$cache" --image-dir "$T/imgs" --db "$T/lv2.db"
has "$T/err" "HELLO" "says the agent did not answer in time"
check "its domain destroyed" test -z "$(domains)"
# with a NIC: the lab's namespace goes with its holder (killed with
# vmbench), the veth with it; the persistent tap is left, for the next
# lab run to remove
expect 137 "kill -9 of vmbench while its guest runs" python3 "$SRC/tests/cli/stop_at.py" lab-booted \
	"echo \$VMB_PID > '$T/pid9'; kill -9 \$VMB_PID" "$VMB" lab run --connect qemu:///system \
	--matrix "accel=tcg nic=e1000" --suites cpu.prime --quick --boots 1 --baseline none --cache "$cache" \
	--image-dir "$T/imgs" --db "$T/lv3.db"
pid9=$(cat "$T/pid9")
i=0
while { [ -n "$(domains)" ] || ip link show "vmbv$pid9-0" >/dev/null 2>&1; } && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "the daemon destroyed its domain with the connection" test -z "$(domains)"
check "the lab's veth went with its namespace" sh -c "! ip link show vmbv$pid9-0 2>/dev/null"
check "its tap is left" ip link show "vmbt$pid9-0"
expect 1 "the next lab run" "$VMB" lab run --connect test:///default --matrix "accel=tcg" --suites cpu.prime --quick \
	--boots 1 --retries 0 --baseline none --cache "$cache" --image-dir "$T/imgs" --db "$T/refused2.db"
has "$T/err" "removed vmbt$pid9-0, a link device of the lab's that vmbench $pid9 left when it was killed" \
	"removes the tap a killed vmbench left, and says so"
check "the tap is gone" sh -c "! ip link show vmbt$pid9-0 2>/dev/null"
finish
