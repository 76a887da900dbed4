#!/bin/sh
# Which link devices a lab run removes at its start (lab_links_reclaim,
# src/lab/lablink.c): a tap or veth end that a killed vmbench left, by the
# mark in its ifalias (its PID, start time and PID namespace), and nothing
# else that is named like them: a user's own vmbt... without the mark, one
# of a vmbench in another PID namespace, one whose vmbench still runs. No
# guest: the run is stopped right after the reclaim (a stop point). The
# devices are made in a network namespace (and a sysfs) of the test's own.
if [ -z "${VMB_RECLAIM_NS:-}" ] && [ "$(id -u)" -eq 0 ] &&
	unshare -nm sh -c 'mount --make-rprivate / && mount -t sysfs sysfs /sys' 2>/dev/null; then
	VMB_RECLAIM_NS=1 exec unshare -nm sh -c 'mount --make-rprivate / && mount -t sysfs sysfs /sys && exec sh "$0" "$@"' \
		"$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

if [ -z "${VMB_RECLAIM_NS:-}" ]; then
	skip "link devices reclaimed at a lab run's start" "needs root and unshare -nm (a network namespace of the test's own)"
	finish
fi
# tap DEV ALIAS: a persistent tap (as the lab's), its ifalias ALIAS ("" none)
tap() {
	ip tuntap add dev "$1" mode tap && { [ -z "$2" ] || printf '%s\n' "$2" >"/sys/class/net/$1/ifalias"; }
}
if ! tap vmbtprobe ""; then
	skip "link devices reclaimed at a lab run's start" "no tap device here (/dev/net/tun)"
	finish
fi
ip link del vmbtprobe
ns=$(stat -Lc %i /proc/self/ns/pid)
# a PID above pid_max: no process has it
dead=$(($(cat /proc/sys/kernel/pid_max) + 1))
# this shell: alive, its start time the 22nd field of its stat
start=$(sed 's/.*) //' /proc/$$/stat | cut -d' ' -f20)
tap "vmbt$dead-0" "" &&
	tap "vmbt$dead-1" "vmbench lab link pid=$dead start=5 pidns=$ns" &&
	tap "vmbt$dead-2" "vmbench lab link pid=$dead start=5 pidns=$((ns + 1))" &&
	tap "vmbt$$-3" "vmbench lab link pid=$$ start=$start pidns=$ns" &&
	tap "vmbv$$-4" "vmbench lab link pid=$$ start=$((start + 1)) pidns=$ns"
check "the devices made" ip link show "vmbv$$-4"
expect 137 "a lab run stopped after its reclaim" python3 "$SRC/tests/cli/stop_at.py" lab-links-reclaimed \
	'kill -9 $VMB_PID' "$VMB" lab run --matrix "accel=tcg" --suites cpu.prime --quick --baseline none \
	--image-dir "$T/imgs" --db "$T/r.db"
has "$T/err" "removed vmbt$dead-1, a link device of the lab's that vmbench $dead left when it was killed" \
	"the tap of a vmbench that is gone removed, and said"
check "so it is" sh -c "! ip link show vmbt$dead-1 2>/dev/null"
has "$T/err" "removed vmbv$$-4, a link device of the lab's that vmbench $$ left when it was killed" \
	"a veth end whose PID is another process's now removed"
check "a user's own vmbt device, without the lab's mark, kept" ip link show "vmbt$dead-0"
check "one of a vmbench in another PID namespace kept" ip link show "vmbt$dead-2"
check "one whose vmbench still runs kept" ip link show "vmbt$$-3"
lacks "$T/err" "vmbt$dead-0," "the kept ones not said to be removed"
finish
