#!/usr/bin/env python3
"""Boot a vmbench guest image under QEMU TCG and talk to its agent.

usage: boot_agent.py IMAGE_DIR WORK_DIR
Checks: the agent says HELLO within the time limit with a fingerprint of an
x86_64 guest under QEMU TCG; a cpu.prime run returns a valid result; BYE
ends it, the guest powers off, QEMU exits 0 and no QEMU process remains.
"""
import json
import json
import os
import socket
import subprocess
import sys
import time

img, work = sys.argv[1], sys.argv[2]
sock, log = os.path.join(work, "agent.sock"), os.path.join(work, "console.log")
# the kernel the lab gives QEMU: the image's vmlinux (PVH) where it has one;
# the modules the lab would pass for a guest with no disk and no NIC
sets = json.load(open(f"{img}/manifest.json"))["module_sets"]
wanted = {m for w in ("virtio_pci", "virtio_console") for m in sets[w].split()}
modules = ",".join(m for m in json.load(open(f"{img}/manifest.json"))["modules"] if m in wanted)
kernel = f"{img}/vmlinux" if os.path.exists(f"{img}/vmlinux") else f"{img}/vmlinuz"
args = ["qemu-system-x86_64", "-machine", "q35", "-accel", "tcg,thread=multi", "-cpu", "max", "-smp", "1",
        "-m", "1G", "-nodefaults", "-display", "none", "-kernel", kernel, "-initrd", f"{img}/initrd.img",
        "-append", "console=ttyS0 panic=-1 vmbench.agent=/dev/hvc0 vmbench.modules=" + modules, "-serial", f"file:{log}", "-no-reboot",
        "-device", "virtio-serial-pci,id=vser", "-chardev", f"socket,id=agent,path={sock},server=on,wait=off",
        "-device", "virtconsole,chardev=agent,bus=vser.0"]
q = subprocess.Popen(args, stdin=subprocess.DEVNULL)


def fail(msg):
    q.kill()
    q.wait()
    tail = open(log, errors="replace").read()[-1500:] if os.path.exists(log) else "(no console output)"
    sys.exit(f"{msg}\n--- last console output ---\n{tail}")


try:
    # QEMU creates the socket at start-up; bounded wait for it
    for _ in range(200):
        if os.path.exists(sock) or q.poll() is not None:
            break
        time.sleep(0.05)
    if q.poll() is not None:
        fail(f"qemu exited at once: {q.returncode}")
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    s.settimeout(180)  # TCG boots in seconds; this is the bound, not the expectation
    f = s.makefile("rwb", buffering=0)
    t0 = time.time()
    line = f.readline().decode()
    if not line.startswith("HELLO 3 "):
        fail(f"expected HELLO, got {line[:100]!r}")
    fp = json.loads(line.split(" ", 2)[2])
    if fp["arch"] != "x86_64" or fp["hypervisor"]["name"] != "QEMU TCG":
        fail(f"unexpected fingerprint: {fp['arch']} {fp['hypervisor']}")
    f.write(b'RUN cpu.prime {"time":0.2,"warmup":0,"repeat":2,"threads":"1","cpu.max-prime":2000}\n')
    while True:
        line = f.readline().decode()
        if not line:
            fail("the agent closed the channel while running")
        if line.startswith("PROGRESS "):
            continue
        if not line.startswith("RESULT "):
            fail(f"expected RESULT, got {line[:100]!r}")
        n = int(line.split()[1])
        body = b""
        while len(body) < n + 1:
            chunk = f.read(n + 1 - len(body))
            if not chunk:
                fail("the result was cut short")
            body += chunk
        doc = json.loads(body)
        c = doc["suites"][0]["tests"][0]["cases"][0]
        rate = [m for m in c["metrics"] if m["name"] == "events_per_s"][0]["summary"]["mean"]
        if doc["fingerprint"]["hypervisor"]["name"] != "QEMU TCG" or c["repetitions"] != 2 or not rate > 0:
            fail("the guest's result is not what was asked")
        break
    f.write(b"BYE\n")
    if f.readline().decode().strip() != "BYE":
        fail("no BYE back")
    q.wait(timeout=60)
    if q.returncode != 0:
        fail(f"qemu exited {q.returncode}")
    console = open(log, errors="replace").read()
    if "Unknown symbol" in console:
        fail("a module failed to load")
    print(f"guest: HELLO {time.time() - t0:.1f} s after connecting; cpu.prime {rate:.0f} events/s under TCG; "
          "powered off")
except (OSError, ValueError, KeyError, IndexError, subprocess.TimeoutExpired) as e:
    fail(f"{type(e).__name__}: {e}")
