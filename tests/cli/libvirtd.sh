# A private libvirt daemon for tests (sourced), beside the machine's own,
# which it never touches: libvirtd and its virtlogd in a mount namespace of
# their own (unshare -m, propagation private), where the test's directory
# DIR is bound over /run/libvirt (/var/run is a link to /run here),
# /var/lib/libvirt, /var/cache/libvirt, /var/log/libvirt and /etc/libvirt
# (so no domain, network or filter of the machine's is seen, and its
# QEMUs' pid files are DIR/run/qemu/NAME.pid); the socket is
# DIR/run/libvirt-sock outside the namespace. The mounts go with the
# namespace, when its last process ends. Root only.
#
# lvd_start DIR [PORT]: sets lvd_uri and lvd_pid (libvirtd's), or returns 1 with why in lvd_why;
#   with PORT it also takes connections over TCP on 127.0.0.1:PORT, without
#   authentication (libvirt's remote transport, qemu+tcp://127.0.0.1:PORT/system)
# lvd_qemus: the pids of the private daemon's QEMUs still running (its pid files)
# lvd_stop: its domains' QEMUs, libvirtd and virtlogd ended (SIGKILL, the test's own); no-op when none

# lvd_kvm_open: /dev/kvm as Debian's udev rule makes it (root:kvm, 0660)
#   where no udev ran and it is root's alone: the daemon's QEMU user cannot
#   open it, and libvirt probes QEMU again at every domain it starts (about
#   a minute each here instead of 0.4 s); lvd_kvm_restore puts it back
lvd_dir="" lvd_uri="" lvd_pid="" lvd_why="" lvd_kvm_mode=""

# Several tests may hold /dev/kvm open at once (make test runs them side
# by side): each holds it by a file of its pid in lvd_kvm_dir, the first
# that found it root's alone writes that down, and the last one out puts it
# back (a holder whose process is gone is not counted).
lvd_kvm_dir=/run/vmbench-test-kvm.d
lvd_kvm_open() {
	[ -c /dev/kvm ] && getent group kvm >/dev/null || return 0
	mkdir -p "$lvd_kvm_dir" 2>/dev/null || return 0
	touch "$lvd_kvm_dir/$$"
	if [ "$(stat -c %a /dev/kvm)" = 600 ]; then
		echo "$(stat -c %U:%G /dev/kvm)" > "$lvd_kvm_dir/mode"
		chgrp kvm /dev/kvm && chmod 660 /dev/kvm
	fi
	lvd_kvm_mode=held
}

lvd_kvm_restore() {
	[ -n "$lvd_kvm_mode" ] || return 0
	lvd_kvm_mode=""
	rm -f "$lvd_kvm_dir/$$"
	for h in "$lvd_kvm_dir"/[0-9]*; do
		[ -e "$h" ] || continue
		kill -0 "${h##*/}" 2>/dev/null && return 0
		rm -f "$h"
	done
	if [ -s "$lvd_kvm_dir/mode" ]; then
		chown "$(cat "$lvd_kvm_dir/mode")" /dev/kvm && chmod 600 /dev/kvm
	fi
	rm -rf "$lvd_kvm_dir"
}

# the pid in file $1 when that process's command line has $2, else nothing
lvd_pid_of() {
	[ -s "$1" ] || return 0
	p=$(tr -dc 0-9 < "$1")
	[ -n "$p" ] && [ -r "/proc/$p/cmdline" ] && tr '\0' ' ' < "/proc/$p/cmdline" | grep -q -- "$2" && echo "$p"
	true
}

lvd_qemus() {
	[ -n "$lvd_dir" ] || return 0
	for f in "$lvd_dir"/run/qemu/*.pid; do
		[ -e "$f" ] || continue
		# the QEMU of domain NAME: -name guest=NAME in its command line
		n=$(basename "$f" .pid)
		lvd_pid_of "$f" "guest=$n"
	done
}

lvd_start() {
	lvd_dir=$1
	lvd_port=${2:-}
	lvd_why=""
	for b in libvirtd virtlogd unshare; do
		command -v $b >/dev/null 2>&1 || { lvd_why="no $b here"; return 1; }
	done
	[ "$(id -u)" -eq 0 ] || { lvd_why="a libvirtd of the test's own is started as root"; return 1; }
	[ -d /run/libvirt ] || mkdir -p /run/libvirt
	# /var/run/libvirt is /run/libvirt here, or bound too
	mkdir -p "$lvd_dir/run" "$lvd_dir/lib" "$lvd_dir/cache" "$lvd_dir/log" "$lvd_dir/etc"
	chmod 755 "$lvd_dir" "$lvd_dir/run" "$lvd_dir/lib" "$lvd_dir/cache" "$lvd_dir/log"
	# its own host UUID; root's socket only, no polkit (none runs here)
	cat > "$lvd_dir/etc/libvirtd.conf" <<EOF
host_uuid = "$(cat /proc/sys/kernel/random/uuid)"
unix_sock_rw_perms = "0700"
unix_sock_ro_perms = "0700"
auth_unix_rw = "none"
auth_unix_ro = "none"
log_outputs = "3:file:/var/log/libvirt/libvirtd.log"
EOF
	listen=""
	if [ -n "$lvd_port" ]; then
		# loopback only, no TLS, no authentication: the test's own daemon
		cat >> "$lvd_dir/etc/libvirtd.conf" <<EOF
listen_tls = 0
listen_tcp = 1
listen_addr = "127.0.0.1"
tcp_port = "$lvd_port"
auth_tcp = "none"
EOF
		listen="--listen"
	fi
	extra=""
	[ -L /var/run ] || extra="mount --bind '$lvd_dir/run' /var/run/libvirt"
	unshare -m --propagation private sh -c "set -e
		mount --bind '$lvd_dir/run' /run/libvirt
		$extra
		mount --bind '$lvd_dir/lib' /var/lib/libvirt
		mount --bind '$lvd_dir/cache' /var/cache/libvirt
		mount --bind '$lvd_dir/log' /var/log/libvirt
		mount --bind '$lvd_dir/etc' /etc/libvirt
		virtlogd -d -p '$lvd_dir/virtlogd.pid'
		libvirtd -d $listen -f /etc/libvirt/libvirtd.conf -p '$lvd_dir/libvirtd.pid'" > "$lvd_dir/start.log" 2>&1 || {
		lvd_why="the private libvirtd did not start: $(tail -1 "$lvd_dir/start.log")"
		lvd_stop
		return 1
	}
	lvd_uri="qemu+unix:///system?socket=$lvd_dir/run/libvirt-sock"
	# its QEMU capabilities probed before the socket answers: a bound, not a speed
	i=0
	while ! virsh -c "$lvd_uri" version >/dev/null 2>&1 && [ $i -lt 1200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	lvd_pid=$(lvd_pid_of "$lvd_dir/libvirtd.pid" libvirtd)
	if [ -z "$lvd_pid" ] || ! virsh -c "$lvd_uri" version >/dev/null 2>&1; then
		lvd_why="the private libvirtd does not answer on $lvd_dir/run/libvirt-sock: $(tail -1 "$lvd_dir/log/libvirtd.log" 2>/dev/null)"
		lvd_stop
		return 1
	fi
}

lvd_stop() {
	[ -n "$lvd_dir" ] || return 0
	# a stopped daemon is killed as well (SIGKILL needs no SIGCONT)
	for p in $(lvd_qemus) $(lvd_pid_of "$lvd_dir/libvirtd.pid" libvirtd) $(lvd_pid_of "$lvd_dir/virtlogd.pid" virtlogd); do
		kill -9 "$p" 2>/dev/null
	done
	# gone before the directory is removed (a bound mount of it goes with them)
	i=0
	while [ -n "$(lvd_qemus)$(lvd_pid_of "$lvd_dir/libvirtd.pid" libvirtd)" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	lvd_dir=""
}
