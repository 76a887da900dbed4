#!/bin/sh
# The lab's network path in TCG guests: each guest's NIC on a tap device in
# a network namespace of QEMU's own (the lab's link, 10.251.0.0/30), the net
# suite over it in both directions (netdir: the guest as client of the
# host's serve, the guest as server of the host's client), for two NIC
# models; the drivers checked, the figures measured, the back end and the
# host's cost (QEMU's CPU) recorded; and nothing left behind after success,
# after QEMU is killed mid-run and after Ctrl-C. Plain build only
# (tests/meson.build): TCG guests.
. "$(dirname "$0")/lib.sh"

cache="$SRC/build-lab-cache"
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
if [ ! -x /bin/busybox ] || ! command -v qemu-system-x86_64 >/dev/null 2>&1 || [ "$(uname -m)" != x86_64 ]; then
	skip "the network path in TCG guests" "an x86_64 host with busybox-static and qemu-system-x86 (scripts/deps.sh test)"
	finish
	exit $?
fi
tap_or_skip "the network path in TCG guests"
shared_images x86_64
expect 0 "lab image" "$VMB" lab image --cache "$cache" --image-dir "$T/imgs/x86_64"

# What is ours on this machine while a guest runs: its QEMU (its work
# directory is in our TMPDIR) and the lab's processes in QEMU's namespace
# (a serve on the link, or the host's client against the guest's serve),
# told from another test's by the TMPDIR they inherited: every lab
# namespace has the same link, and cli-labcontend's host clients run beside
# this test (CI once saw one here, "after Ctrl-C: left: PID").
ours_in_ns() {
	for p in $(pgrep -f "[v]mbench (serve --bind 10\.251\.0\.|run .*--net\.server=10\.251\.0\.)"); do
		tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qxF "TMPDIR=$TMPDIR" && echo "$p"
	done
}
ours() {
	pgrep -f "[q]emu-system-.*$TMPDIR"
	ours_in_ns
}
nothing_left() {
	left=$(ours; ls -A "$TMPDIR")
	if [ -z "$left" ]; then
		ok "$1: no QEMU, no process in a lab namespace, no work directory"
	else
		not_ok "$1: left: $(echo $left)"
	fi
}

# the options of `run` reach the guest: a three-point client sweep
sweep="--net.connections 1,2,4 --net.time 0.2"
expect 0 "nic=e1000,virtio-net in both directions: tcp_stream, tcp_rr, http" "$VMB" lab run \
	--matrix "accel=tcg nic=e1000,virtio-net netdir=guest-client,guest-server" \
	--suites net.tcp_stream,net.tcp_rr,net.http --quick $sweep --boots 1 --baseline none --cache "$cache" \
	--image-dir "$T/imgs" --db "$T/net.db" -o "$T/net.html"
check "four configurations: the drivers bound, the link up with the guest's address, tap carried the traffic, figures measured" \
	python3 - "$T/net.db" "$sweep" <<'PY'
import json, math, sqlite3, sys
docs = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs ORDER BY id")]
# a try that failed and was booted again (--retries, on a busy machine) is
# stored as a marker beside the run that then succeeded: said, not counted
for f in (d for d in docs if "lab_failure" in d):
    print("# a failed try, retried:", json.dumps(f["lab_failure"])[:300])
docs = [d for d in docs if "lab_failure" not in d]
assert len(docs) == 4, [d.get("lab_config") for d in docs]
drivers = {"e1000": "e1000", "virtio-net": "virtio_net"}
seen = set()
for d in docs:
    lab = d["labels"]
    seen.add((lab["nic"], lab["netdir"]))
    assert lab["net_backend"] in ("tap", "tap+vhost"), lab
    nics = [n for n in d["fingerprint"]["network"] if n["driver"] == drivers[lab["nic"]]]
    assert nics and nics[0]["state"] == "up" and "10.251.0.2/30" in nics[0]["ipv4"], d["fingerprint"]["network"]
    suites = d["suites"]
    assert [s["name"] + "." + s["tests"][0]["name"] for s in suites] == ["net.tcp_stream", "net.tcp_rr", "net.http"]
    peer = "10.251.0.1:5280" if lab["netdir"] == "guest-client" else "10.251.0.2:5280"
    for s in suites:
        assert s["notes"]["server"] == peer, (lab["config"], s["notes"])
        assert s["notes"]["qemu_wall_s"] > 0 and s["notes"]["qemu_cpu_user_s"] + s["notes"]["qemu_cpu_system_s"] > 0, s["notes"]
        t = s["tests"][0]
        assert t["status"] == "ok", (lab["config"], t["name"], t["reason"])
        head = {"tcp_stream": "mbit_per_s", "tcp_rr": "transactions_per_s", "http": "requests_per_s"}[t["name"]]
        for c in t["cases"]:
            m = {x["name"]: x for x in c["metrics"]}
            v = m[head]["summary"]["mean"]
            assert math.isfinite(v) and v > 0, (lab["config"], t["name"], v)
        # the guest's client counts its NIC's interrupts per round trip
        # (e1000: its legacy line; virtio-net: its MSI-X vectors); the
        # host's client, in the namespace, sends over a tap, which has none
        if t["name"] == "tcp_rr":
            irq = {x["name"]: x["summary"]["mean"] for x in t["cases"][0]["metrics"]}.get("irqs_per_transaction")
            if lab["netdir"] == "guest-client":
                kind = "legacy line" if lab["nic"] == "e1000" else "MSI/MSI-X vectors"
                assert irq is not None and irq > 0, (lab["config"], irq)
                assert s["notes"]["nic_irqs"].startswith("eth0: " + kind), s["notes"]
            else:
                assert irq is None and "nic_irqs" not in s["notes"], (lab["config"], irq, s["notes"])
        if t["name"] == "http" and sys.argv[2]:
            assert sorted(c["params"]["connections"] for c in t["cases"]) == [1, 2, 4], [c["params"] for c in t["cases"]]
assert seen == {(n, d) for n in drivers for d in ("guest-client", "guest-server")}, seen
PY
has "$T/out" "host cost: QEMU's CPU-seconds per second" "the host's cost is shown beside the comparison"
has "$T/out" "accel=tcg nic=virtio-net netdir=guest-server" "per configuration"
nothing_left "after success"

# boot.start: 3 boots, the first one's link taken down in QEMU's namespace
# as the lab checks its start: it is counted as not started (no answer to
# the host's echo), the next two start, the first of them runs the items
down='for p in $(pgrep -P $VMB_PID); do case "$(cat /proc/$p/comm)" in qemu-system*) nsenter --net=/proc/$p/ns/net sh -c '"'"'for l in $(ip -o link show | awk -F": " "{print \$2}" | sed "s/@.*//"); do [ "$l" = lo ] || ip link set dev "$l" down; done'"'"';; esac; done'
if command -v nsenter >/dev/null 2>&1 && command -v ip >/dev/null 2>&1; then
	expect 0 "boot.start over 3 boots, the first one's link down: counted, not retried" python3 \
		"$SRC/tests/cli/stop_at.py" lab-start-check "$down" "$VMB" lab run --matrix "accel=tcg nic=e1000" \
		--suites boot.start,net.udp_rr --quick --boots 3 --retries 0 --baseline none --cache "$cache" \
		--image-dir "$T/imgs" --db "$T/start.db" -o "$T/start.html"
	check "2 of 3 started, 66.7% and its Wilson interval, why the first did not, the items measured" \
		python3 - "$T/start.db" <<'PY'
import json, math, sqlite3, sys
docs = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("SELECT doc FROM runs ORDER BY id")]
assert not [d for d in docs if "lab_failure" in d], "a counted boot is no failed try"
assert len(docs) == 1, len(docs)
s = {x["name"]: x for x in docs[0]["suites"]}
t = {x["name"]: x for x in s["boot"]["tests"]}
m = {x["name"]: x["summary"]["mean"] for x in t["start"]["cases"][0]["metrics"]}
assert m["boots_attempted"] == 3 and m["boots_started"] == 2, m
assert abs(m["start_pct"] - 200 / 3) < 1e-9, m
z, n, p = 1.959964, 3, 2 / 3
c, h = (p + z * z / (2 * n)) / (1 + z * z / n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
assert abs(m["start_pct_low"] - 100 * (c - h)) < 1e-6 and abs(m["start_pct_high"] - 100 * (c + h)) < 1e-6, m
assert s["boot"]["notes"]["start_failures"] == \
    "boot 1: the guest did not answer an ICMP echo to 10.251.0.2 within 5000 ms", s["boot"]["notes"]
# the two boots that started are the cold series; the items ran in one of them
assert [len(x["samples"]) for x in t["cold"]["cases"][0]["metrics"] if x["name"] == "boot_total"] == [2], t["cold"]
assert s["net"]["tests"][0]["status"] == "ok", s["net"]["tests"][0]
PY
	nothing_left "after boot.start"
else
	skip "boot.start over 3 boots, the first one's link down" "no nsenter or ip here"
fi

# QEMU killed while the net path is up: the run fails, saying so, and the
# namespace's processes go with it
check "QEMU killed mid-run: exit 1 with the reason" python3 - "$VMB" "$cache" "$T" <<'PY'
import os, signal, subprocess, sys
vmb, cache, t = sys.argv[1:4]
tmpdir = os.environ["TMPDIR"]
env = dict(os.environ, VMBENCH_TEST_STOP_AT="lab-net-up")
p = subprocess.Popen([vmb, "lab", "run", "--matrix", "accel=tcg nic=virtio-net netdir=guest-client", "--suites",
                      "net.tcp_rr", "--quick", "--boots", "1", "--retries", "0", "--baseline", "none", "--cache", cache,
                      "--image-dir", f"{t}/imgs", "--db", f"{t}/kill.db", "-o", f"{t}/kill.html"], env=env,
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
pid, status = os.waitpid(p.pid, os.WUNTRACED)  # it stops itself once the serve in the namespace is up
assert os.WIFSTOPPED(status), status
qemu = subprocess.run(["pgrep", "-f", f"[q]emu-system-.*{tmpdir}"], capture_output=True, text=True).stdout.split()
def ours(pid):  # this test's, not another lab test's (the same link in every namespace)
    try:
        return f"TMPDIR={tmpdir}".encode() in open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
    except OSError:
        return False
serve = [x for x in subprocess.run(["pgrep", "-f", "[v]mbench serve --bind 10.251.0.1"], capture_output=True,
                                   text=True).stdout.split() if ours(x)]
assert len(qemu) == 1 and len(serve) == 1, (qemu, serve)
ns = os.readlink(f"/proc/{qemu[0]}/ns/net")
assert ns != os.readlink("/proc/self/ns/net") and os.readlink(f"/proc/{serve[0]}/ns/net") == ns, ns
os.kill(int(qemu[0]), signal.SIGKILL)
os.kill(p.pid, signal.SIGCONT)
err = p.communicate(timeout=300)[1].decode()
assert p.returncode == 1, (p.returncode, err)
assert "accel=tcg nic=virtio-net netdir=guest-client: run net.tcp_rr failed (round 1, try 1 of 1): the guest closed " \
    "the channel while running" in err, err
PY
nothing_left "after QEMU was killed"

# (stopped where the host's client has just started in QEMU's namespace
# against the guest's serve: it goes too, killed with its group)
check "Ctrl-C while the host's client runs on the net path: exit 130" python3 - "$VMB" "$cache" "$T" <<'PY'
import os, signal, subprocess, sys
vmb, cache, t = sys.argv[1:4]
env = dict(os.environ, VMBENCH_TEST_STOP_AT="lab-net-client")
p = subprocess.Popen([vmb, "lab", "run", "--matrix", "accel=tcg nic=virtio-net netdir=guest-server", "--suites",
                      "net.tcp_rr", "--quick", "--boots", "1", "--baseline", "none", "--cache", cache, "--image-dir",
                      f"{t}/imgs", "--db", f"{t}/int.db", "-o", f"{t}/int.html"], env=env,
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
pid, status = os.waitpid(p.pid, os.WUNTRACED)
assert os.WIFSTOPPED(status), status
os.kill(p.pid, signal.SIGINT)
os.kill(p.pid, signal.SIGCONT)
err = p.communicate(timeout=300)[1].decode()
assert p.returncode == 130, (p.returncode, err)
PY
nothing_left "after Ctrl-C"
finish
