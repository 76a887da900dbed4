#!/usr/bin/env python3
"""Run vmbench until it stops itself at a named point (VMBENCH_TEST_STOP_AT,
see vmb_test_stop_point), run a shell action there, let it go on; no sleeps.
Passes vmbench's stdout, stderr and exit status through, so that a CLI test
can `expect` on it like on vmbench itself.

usage: stop_at.py POINT ACTION VMBENCH ARGS...
ACTION is a shell command; $VMB_PID is the stopped process. A process that
ends without reaching the point exits with status 99; an action that fails
(vmbench then goes on to its end) with status 98.
"""
import os
import signal
import subprocess
import sys

point, action, *cmd = sys.argv[1:]
env = dict(os.environ, VMBENCH_TEST_STOP_AT=point)
p = subprocess.Popen(cmd, env=env)
pid, status = os.waitpid(p.pid, os.WUNTRACED)
if not os.WIFSTOPPED(status):
    sys.stderr.write(f"stop_at: vmbench did not reach the stop point {point}: status {status:#x}\n")
    sys.exit(99)
act = subprocess.run(["sh", "-c", action], env=dict(os.environ, VMB_PID=str(p.pid)))
# vmbench goes on (or is reaped) whatever the action did: never left stopped
try:
    os.kill(p.pid, signal.SIGCONT)
except ProcessLookupError:
    pass
pid, status = os.waitpid(p.pid, 0)
if act.returncode != 0:
    sys.stderr.write(f"stop_at: the action at {point} failed: exit {act.returncode}\n")
    sys.exit(98)
sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
