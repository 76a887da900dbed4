#!/usr/bin/env python3
"""The lab calls downward only (docs/extending.md, "What the lab's parts may
call"), and no .c file in src/ is over 900 lines.

Reads the #include "..." lines of src/lab/*.c, src/cmd/lab*.c, src/proto/*.c
and src/guest/*.c and checks each against the layer order declared below: a
file may include a header of its own layer or of a layer below, never one
above; and the files may not include each other in a circle. A file of
those folders that no layer names fails too: say where it belongs.

A module is a path without its extension (src/lab/labrun for labrun.c and
labrun.h). Headers outside the checked folders (src/core, src/suites,
src/store, ...) are below the lab and not checked here.

Usage: check_layers.py [SOURCE_ROOT]   (TAP on stdout; exit 1 on a failure)
"""
import fnmatch
import os
import re
import sys

# The layers, top to bottom: one line per layer, "name: module globs  # what".
# A file includes only its own layer's headers and the ones below.
LAYERS = """
verbs:       src/cmd/*                                         # one file per lab verb and what they share
session:     src/lab/study src/lab/study_check src/lab/study_claim src/lab/study_value src/lab/contend src/lab/contend_policy src/lab/contend_tune   # a study's experiments; several guests at once
config:      src/lab/labrun                                    # one configuration's run; a guest kept for contend
items:       src/lab/labitems                                  # a booted guest's items, and what the host measures around them
hostsuites:  src/lab/hostmeasure                               # the host-measured suites as rows {suite, measure}
boot:        src/lab/labboot src/lab/labcheck                  # one boot of a guest; the guest checked against its plan
ops:         src/lab/vmops src/lab/balloon                     # operations measured through the seam
backend:     src/lab/hv src/lab/hv_qemu src/lab/hv_qemu_move src/lab/hv_libvirt src/lab/hv_libvirt_conn src/lab/hv_libvirt_move src/lab/hv_libvirt_tune src/lab/kvmguest src/lab/labnet src/lab/lablink src/lab/mirror   # hypervisor seam, KVM's verdict, networking, the link of a tap by name, package mirror
images:      src/lab/image src/lab/iso src/lab/distro src/lab/distro_files src/lab/kernel src/lab/modules src/lab/cpio src/lab/elf   # guest images and what they carry
qemu:        src/lab/keys src/lab/qemu src/lab/qemu_keys src/lab/qemu_share src/lab/qemu_rows src/lab/qemuproc src/lab/qmp   # the QEMU row's parts; the key rows, which point at their QEMU arguments
plan:        src/lab/matrix src/lab/plan src/lab/tables src/lab/study_table src/lab/labopts src/lab/evidence src/lab/hostsuite   # the typed plan, a run's options, documents
registry:    src/lab/procs src/lab/workdir                     # the lab's processes and work directories
protocol:    src/lab/proto_host src/proto/* src/guest/*        # the agent protocol, both halves, and the guest side
"""

# Upward includes known and being removed, each with who removes it; the
# lead deletes a line when its edge is gone. (including module, included module)
KNOWN_UPWARD = set()

MAX_LINES = 900
# .c files still over MAX_LINES while they are split this session; the lead removes each as it goes.
TOO_LONG_ALLOWED = set()

CHECKED = ["src/lab/*.c", "src/cmd/lab*.c", "src/proto/*.c", "src/guest/*.c"]


def parse_layers(text):
    layers = []
    for line in text.strip().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, globs = line.split(":", 1)
        layers.append((name.strip(), globs.split()))
    return layers


def layer_of(module, layers):
    for i, (name, globs) in enumerate(layers):
        if any(fnmatch.fnmatchcase(module, g) for g in globs):
            return i
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    layers = parse_layers(LAYERS)
    files = []
    for pat in CHECKED:
        d, g = os.path.split(pat)
        full = os.path.join(root, d)
        files += sorted(os.path.join(d, f) for f in os.listdir(full) if fnmatch.fnmatchcase(f, g))

    tests = []  # (ok, description, detail lines)
    edges = {}
    unplaced, upward = [], []
    for f in files:
        mod = os.path.splitext(f)[0]
        lf = layer_of(mod, layers)
        if lf is None:
            unplaced.append(f"{f} is in no layer: add its module {mod} to a line of LAYERS in tests/cli/check_layers.py")
            continue
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                target = os.path.normpath(os.path.join(os.path.dirname(f), m.group(1)))
                tmod = os.path.splitext(target)[0]
                if tmod == mod:
                    continue
                lt = layer_of(tmod, layers)
                if lt is None:
                    continue  # below the lab (src/core, src/suites, ...) or outside it
                edges.setdefault(mod, {})[tmod] = (f, n, m.group(1))
                if lt < lf and (mod, tmod) not in KNOWN_UPWARD:
                    upward.append(f"{f}:{n} includes \"{m.group(1)}\": {f} is in layer '{layers[lf][0]}', "
                                  f"{target} in layer '{layers[lt][0]}', which is above it "
                                  f"(a file calls only its own layer and the ones below)")
    tests.append((not unplaced, "every checked file is in a declared layer", unplaced))
    tests.append((not upward, "no file includes a header of a layer above its own", upward))

    # circles: a file that reaches itself through includes
    circles, seen, stack, on = [], set(), [], set()

    def visit(m):
        seen.add(m)
        stack.append(m)
        on.add(m)
        for t in sorted(edges.get(m, {})):
            if t in on:
                loop = stack[stack.index(t):] + [t]
                circles.append("a circle of includes: " + " -> ".join(loop) + " (" + "; ".join(
                    f"{edges[a][b][0]}:{edges[a][b][1]} includes \"{edges[a][b][2]}\"" for a, b in zip(loop, loop[1:])) + ")")
            elif t not in seen:
                visit(t)
        stack.pop()
        on.discard(m)

    for m in sorted(edges):
        if m not in seen:
            visit(m)
    tests.append((not circles, "no circle of includes", circles))

    long_files = []
    for d, _, fs in os.walk(os.path.join(root, "src")):
        for name in sorted(fs):
            if not name.endswith(".c"):
                continue
            path = os.path.relpath(os.path.join(d, name), root)
            with open(os.path.join(d, name), encoding="utf-8", errors="replace") as fh:
                n = sum(1 for _ in fh)
            if n > MAX_LINES and path not in TOO_LONG_ALLOWED:
                long_files.append(f"{path} has {n} lines, over {MAX_LINES}: split it along what it holds "
                                  f"(or, while it is being split, list it in TOO_LONG_ALLOWED)")
    tests.append((not long_files, f"no .c file in src/ over {MAX_LINES} lines but the allowed ones", long_files))

    print(f"1..{len(tests)}")
    for i, (ok, desc, detail) in enumerate(tests, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {desc}")
        for d in detail:
            print(f"# {d}")
    return 0 if all(t[0] for t in tests) else 1


if __name__ == "__main__":
    sys.exit(main())
