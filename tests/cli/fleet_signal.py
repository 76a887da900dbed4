#!/usr/bin/env python3
"""A lab run over several hosts, signalled while one host's process waits at
a named stop point (VMBENCH_TEST_STOP_AT, see vmb_test_stop_point).

usage: fleet_signal.py POINT WHO SIGNAL VMBENCH ARGS...
WHO is 'parent' (the signal to vmbench's first process only, as a kill of
its PID) or 'group' (to its whole process group, as a terminal's Ctrl-C).
Once a host's process (a child of vmbench) has stopped itself at POINT,
SIGNAL goes to WHO, then the stopped process goes on. Passes vmbench's
stdout, stderr and exit status through. Exits 99 when no host's process
reached POINT, 97 when a process of the run was left afterwards (killed
then), so that a test sees it. The wait for the stop looks at /proc,
bounded; there is no other way to see a grandchild stop.
"""
import os
import signal
import subprocess
import sys
import time

point, who, signame, *cmd = sys.argv[1:]
p = subprocess.Popen(cmd, env=dict(os.environ, VMBENCH_TEST_STOP_AT=point), start_new_session=True)


def children(pid):
    """(pid, state) of pid's children"""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(st[1]) == pid:
            out.append((int(d), st[0]))
    return out


stopped = None
deadline = time.monotonic() + 120
while stopped is None and p.poll() is None and time.monotonic() < deadline:
    stopped = next((c for c, s in children(p.pid) if s == "T"), None)
    if stopped is None:
        time.sleep(0.02)
if stopped is None:
    sys.stderr.write(f"fleet_signal: no host's process reached the stop point {point}\n")
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    sys.exit(99)
sig = getattr(signal, signame)
if who == "group":
    os.killpg(p.pid, sig)
else:
    os.kill(p.pid, sig)
os.kill(stopped, signal.SIGCONT)
try:
    rc = p.wait(timeout=120)
except subprocess.TimeoutExpired:
    sys.stderr.write("fleet_signal: vmbench did not end after the signal\n")
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    sys.exit(96)
left = [c for c, _ in children(p.pid)]
try:
    os.kill(stopped, 0)
    left.append(stopped)
except ProcessLookupError:
    pass
if left:
    sys.stderr.write(f"fleet_signal: processes of the run left: {left}\n")
    for c in left:
        try:
            os.kill(c, signal.SIGCONT)
            os.kill(c, signal.SIGKILL)
        except ProcessLookupError:
            pass
    sys.exit(97)
sys.exit(rc if rc >= 0 else 128 - rc)
