#!/bin/sh
# Several NICs bonded over shaped links in a TCG guest (the nics and
# linkrate keys): two vmxnet3 NICs (whose bond needs promiscuous slaves:
# src/guest/bond.c), each on a tap of its own in QEMU's
# network namespace, bridged there, each link shaped to 20 Mbit/s both
# ways; the guest's agent bonds them (balance-rr) with the link's address.
# While the guest is up: the namespace holds the bridge with both taps and
# a token bucket on each tap and each ifb. After the run: the guest showed
# its bond up with both slaves, the record says how the links were made,
# a TCP stream the guest sent measured no more than the sum of the links
# (the rate from the run's own labels), and nothing is left: no QEMU, no
# process or device of the lab's namespace, which went with QEMU. Plain
# build only (tests/meson.build): a TCG guest.
. "$(dirname "$0")/lib.sh"

cache="$SRC/build-lab-cache"
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
if [ ! -x /bin/busybox ] || ! command -v qemu-system-x86_64 >/dev/null 2>&1 || [ "$(uname -m)" != x86_64 ] ||
	! command -v tc >/dev/null 2>&1 || ! command -v nsenter >/dev/null 2>&1; then
	skip "bonded NICs over shaped links" "an x86_64 host with busybox-static, qemu-system-x86, iproute2's tc and nsenter"
	finish
	exit $?
fi
tap_or_skip "bonded NICs over shaped links"
# the devices the links need, in a namespace of a child's own (gone with it)
if ! unshare -n sh -c 'ip link add vmbtestbr type bridge && ip link add vmbtestifb type ifb' 2>"$T/devs"; then
	skip "bonded NICs over shaped links" "this kernel makes no bridge or ifb device: $(cat "$T/devs")"
	finish
	exit $?
fi
shared_images x86_64
expect 0 "lab image" "$VMB" lab image --cache "$cache" --image-dir "$T/imgs/x86_64"

# The guest sends (the host's client receives: --net.reverse against the
# guest's serve), so that balance-rr spreads the stream over both links
# and the figure is what arrived.
check "nics=2 linkrate=20mbit: the namespace's bridge and shaping while the guest runs, then the stream" \
	python3 - "$VMB" "$cache" "$T" <<'PY'
import os, re, signal, subprocess, sys
vmb, cache, t = sys.argv[1:4]
tmpdir = os.environ["TMPDIR"]
env = dict(os.environ, VMBENCH_TEST_STOP_AT="lab-net-up")
p = subprocess.Popen([vmb, "lab", "run", "--matrix", "accel=tcg nic=vmxnet3 nics=2 linkrate=20mbit netdir=guest-server",
                      "--suites", "net.tcp_stream", "--net.reverse", "--net.time", "2", "--quick", "--boots", "1",
                      "--baseline", "none", "--cache", cache, "--image-dir", f"{t}/imgs", "--db", f"{t}/bond.db",
                      "-o", f"{t}/bond.html"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
pid, status = os.waitpid(p.pid, os.WUNTRACED)  # stopped once the guest is up and the net path started
assert os.WIFSTOPPED(status), status
qemu = subprocess.run(["pgrep", "-f", f"[q]emu-system-.*{tmpdir}"], capture_output=True, text=True).stdout.split()
assert len(qemu) == 1, qemu
ns = os.readlink(f"/proc/{qemu[0]}/ns/net")
assert ns != os.readlink("/proc/self/ns/net"), ns
with open(f"{t}/ns", "w") as f:
    f.write(ns)
def inside(*argv):
    return subprocess.run(["nsenter", "-t", qemu[0], "-n", *argv], capture_output=True, text=True, check=True).stdout
qd = inside("tc", "qdisc", "show")
for dev in ("vmbtap0", "vmbtap1", "vmbifb0", "vmbifb1"):
    assert re.search(rf"qdisc tbf \S+ dev {dev} root .*rate 20Mbit", qd), (dev, qd)
for dev in ("vmbtap0", "vmbtap1"):
    assert re.search(rf"qdisc ingress ffff: dev {dev} ", qd), (dev, qd)
ports = inside("ip", "-o", "link", "show", "master", "vmbbr0")
assert "vmbtap0" in ports and "vmbtap1" in ports, ports
assert "10.251.0.1/30" in inside("ip", "-o", "addr", "show", "dev", "vmbbr0")
os.kill(p.pid, signal.SIGCONT)
err = p.communicate(timeout=300)[1].decode()
assert p.returncode == 0, (p.returncode, err[-2000:])
PY

check "the guest's bond up with both slaves, the links recorded, the stream no more than the sum of the links" \
	python3 - "$T/bond.db" <<'PY'
import json, re, sqlite3, sys
docs = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs ORDER BY id")]
docs = [d for d in docs if "lab_failure" not in d]
assert len(docs) == 1, len(docs)
d = docs[0]
lab = d["labels"]
assert lab["nics"] == "2" and lab["linkrate"] == "20mbit" and lab["net_backend"] in ("tap", "tap+vhost"), lab
net = {n["name"]: n for n in d["fingerprint"]["network"]}
slaves = [n for n in net.values() if n.get("master") == "bond0"]
assert sorted(n["driver"] for n in slaves) == ["vmxnet3", "vmxnet3"], net
assert all(n["state"] == "up" and n["speed_mbps"] for n in slaves), slaves
bond = net["bond0"]
assert bond["bond_mode"] == "balance-rr" and bond["state"] == "up" and bond["ipv4"] == ["10.251.0.2/30"], bond
s = d["suites"][0]
assert "2 NICs of nic=vmxnet3, bonded balance-rr" in s["notes"]["net_links"], s["notes"]
assert "shaped to 20 Mbit/s each way" in s["notes"]["net_links"], s["notes"]
t = s["tests"][0]
assert t["status"] == "ok", t.get("reason")
m = {x["name"]: x for x in t["cases"][0]["metrics"]}
# the sum of the links, from the record: the label's rate times the NICs;
# a token bucket lets 10 ms of each link through at once, and a
# repetition is 2 s: within 1%, 5% allowed
rate = int(re.fullmatch(r"(\d+)mbit", lab["linkrate"]).group(1)) * int(lab["nics"])
got = m["mbit_per_s"]["samples"]
assert got and all(0 < v <= rate * 1.05 for v in got), (got, rate)
print("# measured", ["%.1f" % v for v in got], "Mbit/s over links summing to", rate)
PY

check "nothing left: no QEMU, no process or device of the lab's namespace, no work directory" sh -c '
	ns=$(cat "$1/ns") && [ -n "$ns" ] || { echo "the namespace of the run was not seen"; exit 1; }
	left=$(pgrep -f "[q]emu-system-.*$TMPDIR"; ls -A "$TMPDIR")
	for p in /proc/[0-9]*; do [ "$(readlink "$p/ns/net" 2>/dev/null)" = "$ns" ] && left="$left ${p#/proc/}"; done
	left="$left$(ip -o link show | grep -o "vmb\(tap\|br\|ifb\)[0-9]*")"
	[ -z "$left" ] || { echo "left: $left"; exit 1; }' sh "$T"
finish
