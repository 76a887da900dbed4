#!/usr/bin/env python3
"""Stop vmbench at a named point (it stops itself, see vmb_test_stop_point),
act on it, let it go on, and check what it did.

usage: interrupt.py VMBENCH DB MODE [VMBENCH RUN ARGS...]
MODE:
  sigint          Ctrl-C during a repetition: exit 130, nothing stored
  sigint-sigterm  Ctrl-C and then SIGTERM (a second signal forces the exit)
  store-begin, store-run-row, store-commit
                  kill -9 inside the store's transaction: the store keeps
                  whole runs only and stays usable
  fill            fill the --disk.dir filesystem during a repetition:
                  the test fails with ENOSPC, exit 1
  unlink          delete the test file during a repetition: exit 1
After every mode, no vmbench-* file may remain in --disk.dir.
"""
import glob
import json
import os
import signal
import sqlite3
import subprocess
import sys

vmb, db, mode = sys.argv[1:4]
args = sys.argv[4:] or ["cpu.prime", "--time", "0.05", "--warmup", "0", "--repeat", "2", "--threads", "1",
                        "--cpu.max-prime", "1000"]
disk_dir = args[args.index("--disk.dir") + 1] if "--disk.dir" in args else None


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
point = mode if mode.startswith("store-") else "repetition"
env = dict(os.environ, VMBENCH_TEST_STOP_AT=point, VMBENCH_DB=db)
p = subprocess.Popen([vmb, "run", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
# Blocks until the child stops itself at the point (or exits): no sleeping.
pid, status = os.waitpid(p.pid, os.WUNTRACED)
if not os.WIFSTOPPED(status):
    sys.exit(f"vmbench did not reach the stop point {point}: status {status:#x}")
filler = None
if mode == "sigint":
    os.kill(p.pid, signal.SIGINT)
elif mode == "sigint-sigterm":
    os.kill(p.pid, signal.SIGINT)
    os.kill(p.pid, signal.SIGTERM)
elif mode == "fill":
    filler = os.path.join(disk_dir, "filler")
    with open(filler, "wb") as f:
        try:
            while True:
                f.write(b"\0" * (1 << 20))
                f.flush()
        except OSError:
            pass
elif mode == "unlink":
    for f in glob.glob(os.path.join(disk_dir, "vmbench-disk-*")):
        os.unlink(f)
else:
    os.kill(p.pid, signal.SIGKILL)
os.kill(p.pid, signal.SIGCONT)
# The child is stopped again only if the point is reached again; it is not.
out, err = p.communicate(timeout=120)
err = err.decode()
rc = p.returncode
if filler:
    os.unlink(filler)
after = runs()


def expect(cond, what):
    if not cond:
        sys.exit(f"{mode}: {what} (exit {rc}); stderr: {err}")


if mode == "sigint":
    expect(rc == 130, "exit 130 expected after SIGINT")
    # stopped in the first repetition of the first case: nothing finished
    expect("interrupted before any case finished; nothing was stored" in err, "no interruption message")
elif mode == "sigint-sigterm":
    # whichever of the two pending signals is delivered second forces the exit
    expect(rc in (-signal.SIGTERM, -signal.SIGINT), "death by the second signal expected")
elif mode == "fill":
    expect(rc == 1, "exit 1 expected")
    expect("No space left on device" in err, "no ENOSPC message")
elif mode == "unlink":
    expect(rc == 1, "exit 1 expected")
    expect("was removed while the test ran" in err, "no message about the vanished file")
else:
    expect(rc == -signal.SIGKILL, "death by SIGKILL expected")
if mode in ("sigint", "sigint-sigterm") or mode.startswith("store-"):
    expect(len(after) == before, f"{len(after) - before} runs stored")
for d in after:
    for s in d["suites"]:
        for t in s["tests"]:
            for c in t["cases"]:
                expect(c["repetitions"] >= 1, "a stored run is incomplete")
if os.path.exists(db):
    con = sqlite3.connect(db)
    con.execute("BEGIN IMMEDIATE")  # no journal left that would block the next writer
    con.rollback()
    con.close()
if disk_dir:
    left = glob.glob(os.path.join(disk_dir, "vmbench-*"))
    expect(not left, f"files left behind: {left}")
print(f"{mode}: exit {rc}, {len(after)} complete runs stored")
