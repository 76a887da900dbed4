#!/usr/bin/env python3
"""A QEMU for a machine whose /dev/kvm creates VMs but whose guests fail
(issue 41): put on PATH as qemu-system-x86_64 (and -aarch64), it stands in
for QEMU under the lab's command line.

Under -accel kvm it does what QEMU 7.2 does on such a host: it opens the
lab's channels (the console file, the agent's and QMP's sockets), the
guest's kernel gets as far as its "Memory:" line, then QEMU prints KVM's
error on stderr, as QEMU words it (kvm_handle_internal_error), and stops
the guest: QMP's STOP event, and query-status says "internal-error" from
then on. It answers QMP until it is killed, and the guest never says
HELLO.

Under -accel tcg, FAKE_QEMU_TCG says what it does: "real" runs the real
QEMU (the first other one on PATH) with the same arguments; anything else
exits 1 at once (a build that boots no guest).

Each start appends its accelerator (kvm or tcg) to the file FAKE_QEMU_BOOTS
names, so that a test counts the boots. Every wait is bounded but the one
for the lab's next QMP client; nothing sleeps."""
import json
import os
import socket
import sys

KVM_ERROR = """KVM internal error. Suberror: 1
extra data[0]: 0x0000000000000001
extra data[1]: 0x74204dc70f48f00f
emulation failure
RAX=ffff888004840040 RBX=0000000000000000 RCX=0000000080400040 RDX=0000000000400001
RIP=ffffffff8132ae50 RFL=00000006 [-----P-] CPL=0 II=0 A20=1 SMM=0 HLT=0
Code=24 5b 80 41 81 e3 00 00 00 40 48 8b 4c 24 58 74 31 48 89 f0 <f0> 48 0f c7 4d 20 74 66
"""
CONSOLE = """[    0.000000] Linux version 6.1.0 (fake) #1 SMP PREEMPT_DYNAMIC
[    0.000000] Command line: console=ttyS0 (the fake QEMU of tests/cli/fake_kvm_qemu.py)
[    0.912345] Memory: 207548K/523756K available (14343K kernel code, 2338K rwdata)
"""


def arg(args, flag):
    """The value after flag, or None."""
    return args[args.index(flag) + 1] if flag in args and args.index(flag) + 1 < len(args) else None


def socket_path(spec, prefix):
    """unix:PATH,server=on,wait=off or socket,id=agent,path=PATH,...: PATH."""
    if spec.startswith("unix:"):
        return spec[len("unix:"):].split(",")[0]
    for part in spec.split(","):
        if part.startswith(prefix):
            return part[len(prefix):]
    return None


def real_qemu(name):
    """The first qemu of this name on PATH that is not this one."""
    me = os.path.realpath(__file__)
    for d in os.environ.get("PATH", "").split(":"):
        p = os.path.join(d, name)
        if os.path.isfile(p) and os.access(p, os.X_OK) and os.path.realpath(p) != me:
            return p
    return None


def listen(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(4)
    return s


def send(c, obj):
    c.sendall((json.dumps(obj) + "\r\n").encode())


def serve_qmp(c):
    """One QMP client: the greeting, then each command; the guest is stopped."""
    send(c, {"QMP": {"version": {"qemu": {"major": 7, "minor": 2, "micro": 0}, "package": "fake"},
                     "capabilities": ["oob"]}})
    f = c.makefile("rb")
    for line in f:
        try:
            cmd = json.loads(line).get("execute")
        except ValueError:
            send(c, {"error": {"class": "GenericError", "desc": "JSON parse error"}})
            continue
        if cmd == "qmp_capabilities":
            send(c, {"return": {}})
            send(c, {"timestamp": {"seconds": 1, "microseconds": 0}, "event": "STOP"})
        elif cmd == "query-status":
            send(c, {"return": {"status": "internal-error", "singlestep": False, "running": False}})
        else:
            send(c, {"error": {"class": "CommandNotFound", "desc": f"The command {cmd} has not been found"}})


def main():
    args = sys.argv[1:]
    accel = arg(args, "-accel") or "tcg"
    boots = os.environ.get("FAKE_QEMU_BOOTS")
    if boots:
        with open(boots, "a") as f:
            f.write(("kvm" if accel == "kvm" else "tcg") + "\n")
    if accel != "kvm":
        real = real_qemu(os.path.basename(sys.argv[0]))
        if os.environ.get("FAKE_QEMU_TCG") == "real" and real:
            os.execv(real, [real] + args)
        print("fake qemu: TCG is not run here (FAKE_QEMU_TCG is not 'real', or no real QEMU)", file=sys.stderr)
        return 1
    qmp = listen(socket_path(arg(args, "-qmp"), "path="))
    agent_spec = next(a for a in args if a.startswith("socket,id=agent,"))
    agent = listen(socket_path(agent_spec, "path="))
    serial = arg(args, "-serial")
    with open(serial[len("file:"):], "w") as f:
        f.write(CONSOLE)
    sys.stderr.write(KVM_ERROR)
    sys.stderr.flush()
    held = []
    agent.setblocking(False)
    while True:
        # the agent's channel is accepted and never spoken on (the guest
        # stopped before its agent started); QMP clients one after another
        try:
            held.append(agent.accept()[0])
        except BlockingIOError:
            pass
        qmp.settimeout(1)
        try:
            c, _ = qmp.accept()
        except socket.timeout:
            continue
        with c:
            c.settimeout(60)
            try:
                serve_qmp(c)
            except OSError:
                pass


if __name__ == "__main__":
    sys.exit(main())
