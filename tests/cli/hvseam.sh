#!/bin/sh
# The hypervisor back-end seam (src/lab/hv.h), read from the built objects:
# the lab files above it (labrun.c, labboot.c, labitems.c, labcheck.c,
# contend.c, vmops.c, balloon.c, hostmeasure.c) call no QMP function,
# build no QEMU command line, read no QEMU log, and kill or reap no guest
# themselves (the back end's destroy does); only the QEMU row
# (hv_qemu*.c) and what it is made of do. $1: libvmb.a.
set -u
LIB=$1
n=0
fails=0
if ! command -v nm >/dev/null 2>&1; then
	echo "1..1"
	echo "ok 1 - lab objects above the seam # SKIP nm is not installed (binutils)"
	exit 0
fi
# the calls that are the QEMU row's own: QMP, the command line, QEMU's
# process and its tear-down, the reading of its log
BELOW='^(qmp_|lab_qemu_argv$|lab_spawn$|lab_hv_qemu_|lab_proc_reap$|kill$|lab_kvm_error_words$)'
for f in labrun labboot labitems labcheck contend vmops balloon hostmeasure; do
	n=$((n + 1))
	syms=$(nm -A "$LIB" 2>/dev/null | grep "src_lab_$f\.c\.o:" | awk '$2 == "U" { print $3 }')
	if [ -z "$syms" ]; then
		fails=$((fails + 1))
		echo "not ok $n - src/lab/$f.c: no object in $LIB"
		continue
	fi
	bad=$(printf '%s\n' "$syms" | grep -E "$BELOW" | tr '\n' ' ')
	if [ -n "$bad" ]; then
		fails=$((fails + 1))
		echo "not ok $n - src/lab/$f.c calls below the seam: $bad"
	else
		echo "ok $n - src/lab/$f.c calls the hypervisor only through the ops table"
	fi
done
# and the row is what they reach: the QEMU row's object defines the table
n=$((n + 1))
if nm -A "$LIB" | grep 'src_lab_hv_qemu\.c\.o:' | grep -q ' [DR] lab_hv_qemu$'; then
	echo "ok $n - the QEMU row defines lab_hv_qemu"
else
	fails=$((fails + 1))
	echo "not ok $n - no lab_hv_qemu in src/lab/hv_qemu.c's object"
fi
echo "1..$n"
[ "$fails" -eq 0 ]
