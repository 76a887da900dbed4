#!/bin/sh
# Record the /proc and /sys files that `vmbench info` reads into DIR, with the
# device symlinks sysfs uses, so that the probe can be tested on this
# machine's layout anywhere: `vmbench info --root DIR`.
# Usage: scripts/record-fixture.sh DIR
set -eu
out=${1:?usage: record-fixture.sh DIR}
[ -e "$out" ] && { echo "record-fixture: $out exists; give a new directory" >&2; exit 2; }
mkdir -p "$out"

copy() { # copy a readable regular file, keeping its path
	[ -r "$1" ] && [ -f "$1" ] || return 0
	mkdir -p "$out$(dirname "$1")"
	cat "$1" > "$out$1" 2>/dev/null || rm -f "$out$1"
}
link() { # recreate a symlink, keeping its (relative) target
	[ -L "$1" ] || return 0
	mkdir -p "$out$(dirname "$1")"
	ln -sfn "$(readlink "$1")" "$out$1"
}
drivers_up() { # driver links of a device and its ancestors
	d=$1
	while [ "$d" != /sys/devices ] && [ "$d" != / ]; do
		link "$d/driver"
		d=$(dirname "$d")
	done
}

for f in /proc/cpuinfo /proc/meminfo /proc/stat /proc/cmdline /proc/sys/kernel/osrelease \
	/proc/sys/kernel/version /proc/sys/kernel/hostname /proc/sys/kernel/arch \
	/sys/class/dmi/id/sys_vendor /sys/class/dmi/id/product_name /sys/hypervisor/type \
	/proc/device-tree/hypervisor/compatible /proc/device-tree/compatible \
	/sys/devices/system/cpu/online /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor \
	/sys/devices/system/clocksource/clocksource0/current_clocksource \
	/sys/devices/system/clocksource/clocksource0/available_clocksource \
	/sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag \
	/.dockerenv /run/.containerenv /run/systemd/container; do
	copy "$f"
done
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	copy "$c/topology/physical_package_id"
	copy "$c/topology/core_id"
done
for i in /sys/devices/system/cpu/cpu0/cache/index*; do
	copy "$i/level"; copy "$i/type"; copy "$i/size"
done
# Directories whose presence is the fact; git keeps no empty directory, so
# each gets the uevent file that real sysfs directories have.
for d in /sys/devices/system/node/node[0-9]* /sys/bus/virtio/drivers/virtio_balloon \
	/sys/module/vmw_balloon /sys/module/vboxguest /sys/bus/vmbus/drivers/hv_balloon /sys/module/xen_balloon; do
	[ -d "$d" ] && mkdir -p "$out$d" && : > "$out$d/uevent"
done
for b in /sys/block/*; do
	link "$b"
	real=$(realpath "$b")
	copy "$real/size"; copy "$real/queue/rotational"; copy "$real/queue/scheduler"
	drivers_up "$real"
done
for n in /sys/class/net/*; do
	link "$n"
	real=$(realpath "$n")
	copy "$real/speed"; copy "$real/mtu"; copy "$real/operstate"
	if [ -L "$n/device" ]; then
		link "$real/device"
		link "$(realpath "$n/device")/driver"
	fi
done
# CPUID and /dev/kvm cannot be read from a file: record what this machine
# says (probe.h: the .cpuid and .kvm files stand in for them below --root).
if [ -x build/vmbench ]; then
	json=$(build/vmbench info --json)
	is_true() { printf '%s\n' "$json" | grep -q "\"$1\": true" && echo 1 || echo 0; }
	sig=$(printf '%s\n' "$json" | sed -n 's/.*"cpuid_signature": "\(.*\)".*/\1/p')
	printf 'hypervisor_bit=%s\nsignature=%s\n' "$(is_true cpuid_hypervisor_bit)" "$sig" > "$out/.cpuid"
	api=$(printf '%s\n' "$json" | sed -n 's/.*"api_version": \([0-9]*\).*/\1/p')
	printf 'present=%s\nopens=%s\napi_version=%s\ncreates_vm=%s\n' "$(is_true device)" "$(is_true opens)" \
		"$api" "$(is_true creates_vm)" > "$out/.kvm"
fi
echo "recorded into $out" >&2
