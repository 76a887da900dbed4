#!/usr/bin/env python3
"""Stop vmbench at a named point, then SIGINT it or kill -9 it, and check the store.

usage: interrupt.py VMBENCH DB (sigint|store-begin|store-run-row|store-commit)
"""
import json
import os
import signal
import sqlite3
import subprocess
import sys

vmb, db, what = sys.argv[1:4]


def runs():
    if not os.path.exists(db):
        return []
    con = sqlite3.connect(db)
    try:
        if con.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            sys.exit("store integrity check failed")
        return [json.loads(r[0]) for r in con.execute("SELECT doc FROM runs")]
    finally:
        con.close()


before = len(runs())
point = "repetition" if what == "sigint" else what
env = dict(os.environ, VMBENCH_TEST_STOP_AT=point, VMBENCH_DB=db)
p = subprocess.Popen([vmb, "run", "cpu.prime", "--time", "0.05", "--warmup", "0", "--repeat", "2",
                      "--threads", "1", "--cpu.max-prime", "1000"],
                     env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
# Blocks until the child stops itself at the point (or exits): no sleeping.
pid, status = os.waitpid(p.pid, os.WUNTRACED)
if not os.WIFSTOPPED(status):
    sys.exit(f"vmbench did not reach the stop point {point}: status {status:#x}")
if what == "sigint":
    os.kill(p.pid, signal.SIGINT)
    os.kill(p.pid, signal.SIGCONT)
else:
    os.kill(p.pid, signal.SIGKILL)
out, err = p.communicate(timeout=60)
rc = p.returncode
after = runs()
if what == "sigint":
    if rc != 130:
        sys.exit(f"exit {rc} after SIGINT, expected 130; stderr: {err.decode()}")
    if b"interrupted; nothing was stored" not in err:
        sys.exit(f"no interruption message: {err.decode()}")
else:
    if rc != -signal.SIGKILL:
        sys.exit(f"exit {rc}, expected death by SIGKILL")
# The killed run is not in the store; every stored run is whole.
if len(after) != before:
    sys.exit(f"{len(after) - before} partial runs stored")
for d in after:
    if d["suites"][0]["tests"][0]["cases"][0]["repetitions"] != 2:
        sys.exit("a stored run is incomplete")
# No leftover journal that would make the next writer fail.
con = sqlite3.connect(db) if os.path.exists(db) else None
if con:
    con.execute("BEGIN IMMEDIATE")
    con.rollback()
    con.close()
print(f"{what}: exit {rc}, {len(after)} complete runs stored")
