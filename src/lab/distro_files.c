/* The files the lab writes into a distribution image's tree (see distro.h):
 * the agent's start and stop scripts and its systemd unit, MariaDB's
 * database unit, memcached's address, the network on the tap link, fstab, hostname, hosts, root's
 * SSH keys, the initramfs's modules. One row each in lab_distro_files, its
 * text from a function of the image's parameters (the unit tests read the
 * same text the guest gets; lab_distro_inputs in distro.c keys the cache on
 * it). */
#include <stdio.h>
#include <string.h>

#include "distro.h"
#include "proto_host.h"
#include "qemu.h"
#include "../core/macro.h"
#include "../core/str.h"
#include "../core/banned.h"

/* The agent, as the busybox image's init starts it: on the channel the
 * kernel's command line names, once the device is there (bounded), in /tmp. */
static char *agent_script(const struct lab_distro_opts *o)
{
	(void)o;
	return xasprintf("#!/bin/sh\n"
			 "# vmbench agent on the lab's channel (vmbench.agent= on the kernel's command line)\n"
			 "port=/dev/hvc0\n"
			 "for w in $(cat /proc/cmdline); do case $w in vmbench.agent=*) port=${w#vmbench.agent=};; esac; done\n"
			 "i=0; while [ ! -e \"$port\" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done\n"
			 "# several NICs (vmbench.bond=): the agent bonds them through the bonding driver's sysfs\n"
			 "grep -q 'vmbench.bond=' /proc/cmdline && /sbin/modprobe bonding max_bonds=0\n"
			 "echo \"vmbench-init: agent on $port at $(cut -d' ' -f1 /proc/uptime) s\" > /dev/kmsg\n"
			 "export LD_LIBRARY_PATH=%s\n"
			 "cd /tmp && exec %s agent --port \"$port\"\n",
			 LAB_DISTRO_LIBDIR, LAB_DISTRO_VMBENCH);
}

/* What the unit runs when the agent has left: a reboot after the host's
 * REBOOT (the agent's exit status PROTO_EXIT_REBOOT), else a power-off. */
static char *agent_stop_script(const struct lab_distro_opts *o)
{
	(void)o;
	return xasprintf("#!/bin/sh\n"
			 "# systemd gives the agent's exit status as $EXIT_STATUS\n"
			 "if [ \"$EXIT_STATUS\" = %d ]; then exec /bin/systemctl --no-block reboot; fi\n"
			 "exec /bin/systemctl --no-block poweroff\n",
			 PROTO_EXIT_REBOOT);
}

/* After the network, as the issue asks, and after the SSH server is up
 * (ssh.service is Type=notify): HELLO comes after the banner can be read,
 * so the boot's phases follow each other (src/suites/boot.h). The guest
 * powers off when the agent leaves (after BYE), or reboots (after REBOOT),
 * as the busybox image's init does. The application table's servers, in
 * an image that has them (the image key's packages), are up before HELLO
 * too, so that a run never begins against a server still starting; an
 * After= on a unit the image lacks orders nothing. */
static char *agent_unit(const struct lab_distro_opts *o)
{
	(void)o;
	return xasprintf("[Unit]\n"
			 "Description=vmbench agent on the lab's channel\n"
			 "Wants=network-online.target\n"
			 "After=network-online.target ssh.service nginx.service mariadb.service vmbench-db.service "
			 "memcached.service\n"
			 "ConditionKernelCommandLine=vmbench.agent\n"
			 "\n"
			 "[Service]\n"
			 "Type=exec\n"
			 "ExecStart=%s/agent-start\n"
			 "ExecStopPost=%s/agent-stop\n"
			 "StandardOutput=journal+console\n"
			 "StandardError=journal+console\n"
			 "\n"
			 "[Install]\n"
			 "WantedBy=multi-user.target\n",
			 LAB_DISTRO_LIBDIR, LAB_DISTRO_LIBDIR);
}

/* vmbench's database and user in the image's MariaDB (db=mariadb), made
 * at boot once the server runs (a chroot runs no server); root gets in
 * through the socket (Debian's unix_socket authentication). An image
 * without MariaDB skips the unit. */
static char *db_unit(const struct lab_distro_opts *o)
{
	(void)o;
	return xasprintf("[Unit]\n"
			 "Description=vmbench's database and user in MariaDB\n"
			 "Requires=mariadb.service\n"
			 "After=mariadb.service\n"
			 "ConditionPathExists=/usr/sbin/mariadbd\n"
			 "\n"
			 "[Service]\n"
			 "Type=oneshot\n"
			 "RemainAfterExit=yes\n"
			 "ExecStart=/usr/bin/mariadb -e \"CREATE DATABASE IF NOT EXISTS %s; "
			 "CREATE USER IF NOT EXISTS '%s'@'localhost' IDENTIFIED BY '%s'; "
			 "GRANT ALL ON %s.* TO '%s'@'localhost'\"\n"
			 "\n"
			 "[Install]\n"
			 "WantedBy=multi-user.target\n",
			 LAB_DISTRO_DB_NAME, LAB_DISTRO_DB_USER, LAB_DISTRO_DB_PASS, LAB_DISTRO_DB_NAME,
			 LAB_DISTRO_DB_USER);
}

/* memcached in an image that has it (debian-apps): on the guest's address
 * of the tap link too, where the host's net.memcached loads it
 * (netdir=guest-server), not on loopback alone as Debian's
 * /etc/memcached.conf has it; room for a key space of a GiB (memcached
 * takes memory as items come, not at start); TCP only. */
static char *memcached_conf(const struct lab_distro_opts *o)
{
	(void)o;
	return xasprintf("[Service]\n"
			 "ExecStart=\n"
			 "ExecStart=/usr/bin/memcached -l 127.0.0.1,%s -p %u -U 0 -m 1024 -c 4096 -u memcache\n"
			 "LimitNOFILE=8192\n",
			 LAB_NET_GUEST, LAB_MEMCACHED_PORT);
}

/* The guest's end of the lab's tap link, on whichever Ethernet NIC it has;
 * with several NICs (the nics key: vmbench.bond= on the kernel command
 * line) none of them: the agent bonds them and puts the address on the
 * bond, as in the busybox image, and networkd leaves them and the bond
 * alone */
static char *network_file(const struct lab_distro_opts *o)
{
	(void)o;
	return xasprintf("[Match]\n"
			 "Type=ether\n"
			 "KernelCommandLine=!vmbench.bond\n"
			 "\n"
			 "[Network]\n"
			 "Address=%s/%s\n"
			 "LinkLocalAddressing=no\n"
			 "IPv6AcceptRA=no\n",
			 LAB_NET_GUEST, LAB_NET_PREFIX);
}

/* network-online is one link up with its address, not every link: a
 * configuration without a NIC waits 20 s, not systemd's 2 min; with
 * several (the agent's bond, which networkd leaves alone) none */
static char *wait_online(const struct lab_distro_opts *o)
{
	(void)o;
	return xasprintf("[Unit]\n"
			 "ConditionKernelCommandLine=!vmbench.bond\n"
			 "\n"
			 "[Service]\n"
			 "ExecStart=\n"
			 "ExecStart=/lib/systemd/systemd-networkd-wait-online --any --timeout=20\n");
}

static char *fstab(const struct lab_distro_opts *o)
{
	(void)o;
	return xasprintf("LABEL=%s / ext4 defaults,noatime 0 1\n", LAB_DISTRO_ROOT_LABEL);
}

static char *hostname(const struct lab_distro_opts *o)
{
	return xasprintf("vmbench-%s\n", o->d->name);
}

static char *hosts(const struct lab_distro_opts *o)
{
	return xasprintf("127.0.0.1\tlocalhost\n127.0.1.1\tvmbench-%s\n::1\tlocalhost ip6-localhost ip6-loopback\n",
			 o->d->name);
}

static char *authorized_keys(const struct lab_distro_opts *o)
{
	return xasprintf("%s%s", o->pubkeys ? o->pubkeys : "",
			 o->pubkeys && *o->pubkeys && o->pubkeys[strlen(o->pubkeys) - 1] != '\n' ? "\n" : "");
}

/* The initramfs Debian's kernel package makes: the drivers of the lab's
 * root disk (virtio-blk on PCI) and ext4 only, not initramfs-tools' default
 * of most of the kernel's modules; udev loads the others from the root.
 * Under an emulated arm64 chroot, copying most modules took over 40 min. */
static char *initramfs_conf(const struct lab_distro_opts *o)
{
	(void)o;
	return xasprintf("# vmbench lab: the initramfs holds the modules listed in ../modules only\n"
			 "MODULES=list\n");
}

static char *initramfs_modules(const struct lab_distro_opts *o)
{
	(void)o;
	return xasprintf("# vmbench lab: the root disk's drivers and its filesystem\n"
			 "virtio_pci\nvirtio_blk\next4\n");
}

const struct lab_distro_file lab_distro_files[] = {
	{ "/etc/initramfs-tools/conf.d/vmbench", 0644, initramfs_conf, true },
	{ "/etc/initramfs-tools/modules", 0644, initramfs_modules, true },
	{ LAB_DISTRO_LIBDIR "/agent-start", 0755, agent_script, false },
	{ LAB_DISTRO_LIBDIR "/agent-stop", 0755, agent_stop_script, false },
	{ "/etc/systemd/system/vmbench-agent.service", 0644, agent_unit, false },
	{ "/etc/systemd/system/vmbench-db.service", 0644, db_unit, false },
	{ "/etc/systemd/system/memcached.service.d/vmbench.conf", 0644, memcached_conf, false },
	{ "/etc/systemd/network/10-vmbench.network", 0644, network_file, false },
	{ "/etc/systemd/system/systemd-networkd-wait-online.service.d/vmbench.conf", 0644, wait_online, false },
	{ "/etc/fstab", 0644, fstab, false },
	{ "/etc/hostname", 0644, hostname, false },
	{ "/etc/hosts", 0644, hosts, false },
	{ "/root/.ssh/authorized_keys", 0600, authorized_keys, false },
};
const size_t lab_distro_nfiles = ARRAY_SIZE(lab_distro_files);
