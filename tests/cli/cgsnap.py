#!/usr/bin/env python3
"""The host's cgroup files where vmbench makes its groups: the cgroup this
process is in, in the hierarchy that holds the cpu controller (v1's cpu
hierarchy, else cgroup2, as src/core/cgroup.c finds it). Its own knobs are
what a run may change beside its groups: on v2 cgroup.subtree_control (the
cpu controller handed down), on v1 the real-time runtime.

usage: cgsnap.py save FILE   write them to FILE
       cgsnap.py same FILE   exit 1, saying which differ, unless they read as in FILE
       cgsnap.py where       print the cgroup's directory (nothing when none)

cgroup.subtree_control is left out of the comparison while another live
vmbench's groups (vmbench-sched-PID, vmbench-contend-PID) are beside: that
one may hand cpu down for as long as it runs.
"""
import json
import os
import re
import sys

KNOBS = ["cgroup.subtree_control", "cgroup.type", "cpu.weight", "cpu.max", "cpu.shares", "cpu.cfs_period_us",
         "cpu.cfs_quota_us", "cpu.rt_period_us", "cpu.rt_runtime_us"]


def where():
    mounts = [l.split() for l in open("/proc/self/mountinfo")]
    cgroups = [l.rstrip("\n").split(":", 2) for l in open("/proc/self/cgroup")]
    for want in ("cgroup", "cgroup2"):
        for f in mounts:
            d = f.index("-")
            if f[d + 1] != want or (want == "cgroup" and "cpu" not in f[d + 3].split(",")):
                continue
            for _, ctl, path in cgroups:
                if (want == "cgroup" and "cpu" in ctl.split(",")) or (want == "cgroup2" and ctl == ""):
                    root = f[3]
                    if root != "/" and path.startswith(root):
                        path = path[len(root):]
                    return f[4] + ("" if path in ("/", "") else path)
    return None


def snap(parent):
    files = {}
    for k in KNOBS:
        try:
            files[k] = open(os.path.join(parent, k)).read()
        except OSError:
            pass
    others = []
    for n in os.listdir(parent):
        m = re.fullmatch(r"vmbench-(sched|contend)-(\d+)", n)
        if m and os.path.isdir(os.path.join(parent, n)) and os.path.exists("/proc/" + m.group(2)):
            others.append(n)
    return {"parent": parent, "files": files, "others": sorted(others)}


cmd, *rest = sys.argv[1:]
parent = where()
if cmd == "where":
    print(parent or "")
    sys.exit(0)
if parent is None:
    sys.exit("cgsnap: no cgroup hierarchy with the cpu controller is mounted")
now = snap(parent)
if cmd == "save":
    json.dump(now, open(rest[0], "w"))
    sys.exit(0)
before = json.load(open(rest[0]))
bad = []
for k in sorted(set(before["files"]) | set(now["files"])):
    if k == "cgroup.subtree_control" and (before["others"] or now["others"]):
        continue
    if before["files"].get(k) != now["files"].get(k):
        bad.append("%s/%s: %r before, %r now" % (parent, k, before["files"].get(k), now["files"].get(k)))
if before["parent"] != parent:
    bad.append("the cgroup was %s, and is %s" % (before["parent"], parent))
for b in bad:
    print("# " + b)
sys.exit(1 if bad else 0)
