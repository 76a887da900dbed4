#!/bin/sh
# Install the Debian packages vmbench needs to build and test, only those
# that are missing. Usage: scripts/deps.sh [build|test|bench|cross|distro]
#   distro: what make test-distro adds to test's: dpkg-dev (dpkg-scanpackages, the index of the
#   lab's package mirror for app.apt), qemu-user-static and
#   binfmt-support, with binfmt_misc mounted and Debian's qemu-aarch64
#   handler enabled, so that debootstrap runs an arm64 chroot on x86_64 hosts.
#   cross: what the aarch64 guest's vmbench is cross-built with (Debian's
#   gcc-aarch64-linux-gnu and the arm64 -dev packages of Debian multiarch,
#   after adding the arm64 architecture) and qemu-system-arm to boot it (qemu-efi-aarch64: its firmware=uefi).
set -eu

mode=${1:-build}
# libpq-dev, libmariadb-dev: app.oltp's PostgreSQL and MariaDB back ends and the PostgreSQL
# result store; libvirt-dev: the lab through libvirt (lab run --connect); each optional in
# meson (a build without one lacks what needs it, and says so), each library opened at run time
build_pkgs="meson ninja-build gcc pkg-config liburing-dev libsqlite3-dev libjansson-dev zlib1g-dev libcmocka-dev
	libpq-dev libmariadb-dev libvirt-dev"
# postgresql, mariadb-server: throwaway servers for tests/cli/app.sh (about 35 s to install);
# iproute2, nginx-light: the network suite's namespaces and its HTTP peer (tests/cli/netacc.sh);
# ovmf: the lab's firmware=uefi on x86_64 (tests/cli/labcpu.sh; about 5 s to install)
# debootstrap, e2fsprogs (mke2fs -d, debugfs), qemu-utils, openssh-client (ssh-keygen): the lab's distribution
# image (lab image --distro; its assembly's unit test, and make test-distro);
# strace: serve's accept4 calls counted at the descriptor limit (tests/cli/serveguard.sh);
# memcached: net.memcached's server on loopback (tests/cli/memcached.sh);
# grub-common, grub-pc-bin, grub-efi-amd64-bin, xorriso, mtools: the image as a bootable ISO
# (lab image --format iso, the key boot=cdrom; tests/cli/labiso.sh);
# libvirt-daemon-system, libvirt-clients: libvirtd and virsh for the lab through libvirt
# (tests/cli/lablibvirt.sh, which starts the daemon when none runs)
test_pkgs="python3 chromium qemu-system-x86 qemu-utils busybox-static xz-utils postgresql mariadb-server iproute2
	nginx-light ovmf debootstrap e2fsprogs openssh-client strace memcached grub-common grub-pc-bin
	grub-efi-amd64-bin xorriso mtools libvirt-daemon-system libvirt-clients"
# libmemcached-tools: memaslap (Debian's memcaslap), net.memcached's peer (bench/memcached-vs-memaslap.sh)
bench_pkgs="sysbench fio python3 rt-tests stress-ng postgresql mariadb-server mbw iperf3 sockperf wrk nginx-light
	memcached libmemcached-tools"
distro_pkgs="qemu-user-static binfmt-support dpkg-dev"
cross_pkgs="gcc-aarch64-linux-gnu libc6-dev:arm64 liburing-dev:arm64 libsqlite3-dev:arm64 libjansson-dev:arm64
	zlib1g-dev:arm64 qemu-system-arm qemu-efi-aarch64"

case "$mode" in
build) pkgs=$build_pkgs ;;
test) pkgs="$build_pkgs $test_pkgs" ;;
bench) pkgs="$build_pkgs $bench_pkgs" ;;
cross) pkgs="$build_pkgs $cross_pkgs" ;;
distro) pkgs="$build_pkgs $test_pkgs $distro_pkgs" ;;
*) echo "usage: scripts/deps.sh [build|test|bench|cross|distro]" >&2; exit 2 ;;
esac

if [ "$mode" = cross ]; then
	if [ "$(dpkg --print-architecture 2>/dev/null)" != amd64 ]; then
		echo "deps: the aarch64 cross build is set up for amd64 hosts only" >&2
		exit 1
	fi
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		echo "deps: adding the arm64 architecture (dpkg --add-architecture arm64)" >&2
		if [ "$(id -u)" -eq 0 ]; then dpkg --add-architecture arm64; else sudo dpkg --add-architecture arm64; fi
	fi
fi

# binfmt_misc with Debian's qemu-aarch64 handler (the one qemu-user-static
# ships, flag F: the interpreter is opened now, so it runs in a chroot too)
binfmt() {
	[ "$mode" = distro ] && [ "$(uname -m)" = x86_64 ] || return 0
	[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: an arm64 chroot needs binfmt_misc's qemu-aarch64 handler; as root:" \
			"mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc; update-binfmts --enable qemu-aarch64" >&2
		return 0
	fi
	[ -e /proc/sys/fs/binfmt_misc/register ] ||
		mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
		{ echo "deps: binfmt_misc cannot be mounted here: no arm64 chroot" >&2; return 0; }
	echo "deps: enabling binfmt_misc's qemu-aarch64 handler (update-binfmts --enable qemu-aarch64)" >&2
	update-binfmts --enable qemu-aarch64 ||
		echo "deps: update-binfmts --enable qemu-aarch64 failed: no arm64 chroot" >&2
}

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	binfmt
	exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: missing packages:$missing; this is not a Debian system, install them by hand" >&2
	exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1; then
	sudo="sudo"
else
	echo "deps: missing packages:$missing; run as root or install sudo" >&2
	exit 1
fi

echo "deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# An old or empty package list finds nothing: refresh it once, then install.
$sudo apt-get update -qq >/dev/null || echo "deps: apt-get update failed, trying the existing lists" >&2
# shellcheck disable=SC2086
if ! $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null; then
	echo "deps: apt-get install$missing failed; install them by hand and retry" >&2
	exit 1
fi
binfmt
