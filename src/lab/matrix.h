/* The lab's configuration matrix and its device models. "accel=tcg
 * arch=x86_64,aarch64 disk=ide,virtio-blk smp=1,2 mem=512M pin=off" expands
 * to every combination, in the order given.
 *
 * Two tables say everything about it, as X-macros so that the help text is
 * derived from them at compile time too:
 *   LAB_KEYS     the matrix keys (one row per key);
 *   LAB_DEVICES  the device models behind the disk and nic keys, and
 *                balloon=on's (one row per model: QEMU arguments, the guest
 *                driver expected behind it, the modules the guest image
 *                needs);
 * and the values of the keys that are tables of their own: LAB_CPUS (cpu),
 * LAB_FIRMWARES (firmware), LAB_MULTIQUEUE (the NICs queues= applies to),
 * LAB_NETDIRS (netdir), LAB_PROFILES (profile: the keys each sets), and
 * src/proto/mounts.h's LAB_FILESYSTEMS (fs) and LAB_SHARES (share).
 * The tables' rows are src/lab/tables.c, the key rows src/lab/keys.c; a
 * parsed configuration holds its typed plan (struct lab_config,
 * src/lab/plan.c).
 * Adding a disk or NIC model is one row of LAB_DEVICES; adding a key is one
 * row of LAB_KEYS (with its QEMU arguments' function). What a model sits on,
 * on the host side (an image file, user networking), is a back end: a row
 * of LAB_BACKENDS (src/lab/qemu.h), where the command line is built. */
#ifndef VMB_MATRIX_H
#define VMB_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

#include "distro.h"
#include "../proto/mounts.h"
#include "../core/util.h"

/* X(ENUM, name, default, type, values, range, min, max, check, suite, qemu, child):
 * one row per key, everything about it (the row's struct is lab_key_row,
 * the table lab_keys, in src/lab/keys.c):
 * type LIST: values are the valid ones, each after a space (range "", or
 * where the default comes from when another option sets it).
 * type COUNT or SIZE: a number (a size takes k/m/g/t) from min to max, which
 * range says in words (values ""). type WORD: one word that check alone
 * judges, range saying what it takes.
 * check: NULL, or what the key's value must agree with among the
 * configuration's other values (a topology with smp, tcg with accel), in
 * src/lab/keys.c; a matrix one of whose configurations fails the check
 * of a key the matrix gives is refused whole, before anything boots.
 * suite: the suite that measures what the key chooses (disk: disk, nic:
 * net), which a comparison of its values leads with; NULL: none.
 * qemu: its arguments on QEMU's command line (src/lab/qemu_keys.c), pushed
 * after -machine in the order of the rows; NULL: none of its own (a
 * device key's model is a row of LAB_DEVICES on a back end of
 * LAB_BACKENDS, src/lab/qemu.h; keys read by other rows' functions).
 * child: what it does in QEMU's forked child before exec (nice: its
 * priority); NULL: nothing.
 * A key's value chooses rows of other tables or a number: the typed plan
 * of struct lab_config below, resolved once (lab_config_resolve). */
#define LAB_KEYS(X)                                                                                          \
	X(LAB_ACCEL, "accel", "auto", LIST, " auto kvm tcg", "", 0, 0, NULL, NULL, lab_qemu_arg_accel, NULL)                                   \
	X(LAB_ARCH, "arch", "x86_64", LIST, " x86_64 aarch64", "", 0, 0, NULL, NULL, NULL, NULL)                                 \
	X(LAB_DISK, "disk", "virtio-blk", LIST, LAB_DEVICE_NAMES(LAB_DISK), "", 0, 0, NULL, "disk", NULL, NULL)                    \
	X(LAB_FS, "fs", "ext4", LIST, LAB_FS_NAMES " none", "", 0, 0, NULL, NULL, NULL, NULL)                                    \
	X(LAB_NIC, "nic", "none", LIST, " none" LAB_DEVICE_NAMES(LAB_NIC), "", 0, 0, NULL, "net", NULL, NULL)                     \
	X(LAB_SMP, "smp", "1", COUNT, "", " a vCPU count from 1 to 256", 1, 256, NULL, NULL, lab_qemu_arg_smp, NULL)                         \
	X(LAB_MEM, "mem", "512M", SIZE, "", " a memory size from 64M to 1T, e.g. 512M or 2G", 64ull << 20,    \
	  1ull << 40, NULL, NULL, lab_qemu_arg_mem, NULL)                                                                                    \
	X(LAB_PIN, "pin", "off", LIST, " off on", "", 0, 0, NULL, NULL, NULL, NULL)                                               \
	X(LAB_NETDIR, "netdir", "guest-client", LIST, LAB_NETDIR_NAMES, "", 0, 0, NULL, NULL, NULL, NULL)                        \
	X(LAB_CPU, "cpu", "auto", WORD, "",                                                                    \
	  " a CPU model of the architecture's (auto: host under KVM, max under TCG; host: KVM only; named "     \
	  "models: TCG, and KVM on x86_64):" LAB_ARCH_ROWS(LAB_CPUS), 0, 0, cpu_check, "cpu", lab_qemu_arg_cpu, NULL)                         \
	X(LAB_TOPOLOGY, "topology", "default", WORD, "",                                                       \
	  " default (QEMU's for smp) or SOCKETSxCORESxTHREADS whose product is smp, e.g. 2x2x1", 0, 0,          \
	  topology_check, "cpu", NULL, NULL)                                                                                      \
	X(LAB_TCG, "tcg", "multi", LIST, " multi single", "", 0, 0, tcg_check, "cpu", NULL, NULL)                                 \
	X(LAB_QUEUES, "queues", "1", COUNT, "",                                                                \
	  " a count of NIC queue pairs from 1 to 8 (above 1: a NIC model that takes queues," LAB_MQ_NAMES        \
	  ", on a tap)", 1, 8, queues_check, "net", NULL, NULL)                                                                   \
	X(LAB_NICE, "nice", "0", COUNT, "", " QEMU's nice value from -20 to 19 (below 0 needs CAP_SYS_NICE)",  \
	  (uint64_t)-20, 19, NULL, "cpu", NULL, lab_child_nice)                                                                             \
	X(LAB_FIRMWARE, "firmware", "default", WORD, "",                                                       \
	  " the guest's firmware (default: QEMU's, uefi: OVMF or QEMU_EFI):" LAB_ARCH_ROWS(LAB_FIRMWARES), 0,  \
	  0, firmware_check, "boot", lab_qemu_arg_firmware, NULL)                                                                                  \
	X(LAB_BACKEND, "backend", "file", LIST, " file block", "", 0, 0, NULL, NULL, NULL, NULL)                                   \
	X(LAB_CACHE, "cache", "none", LIST, LAB_CACHE_NAMES, "; where the matrix gives none, --disk-cache's", 0, 0, \
	  NULL, NULL, NULL, NULL)                                                                                                \
	X(LAB_SNAPSHOT, "snapshot", "off", LIST, " off on", "", 0, 0, NULL, NULL, NULL, NULL)                                   \
	X(LAB_PROFILE, "profile", "none", LIST, " none" LAB_PROFILE_NAMES,                                     \
	  " (QEMU's emulations of the devices a hypervisor gives a Linux guest by default, not the "          \
	  "hypervisors:" LAB_PROFILE_HELP_ROWS " it sets the keys it names, and a key the matrix also gives "  \
	  "must agree with it)", 0, 0, NULL, "disk", NULL, NULL)                                                                   \
	X(LAB_BALLOON, "balloon", "off", LIST, " off on", " (on: a virtio-balloon device, which the balloon "  \
	  "suite inflates and deflates through QMP)", 0, 0, NULL, "balloon", NULL, NULL)                                              \
	X(LAB_SHARE, "share", "none", LIST, " none" LAB_DEVICE_NAMES(LAB_SHARE),                                 \
	  ": a directory of the lab's shared into the guest (QEMU's virtio-9p, or virtiofsd), where the file "     \
	  "tests then run instead of a filesystem of the scratch disk (fs stays ext4)", 0, 0, share_check, "disk", NULL, NULL)   \
	X(LAB_IMAGE, "image", "busybox", LIST, LAB_IMAGE_NAMES,                                                  \
	  " (busybox: the lab's initramfs; debian: Debian 12 with systemd on a root disk, as 'lab image --distro "  \
	  "debian' builds it, booted to its SSH server and its agent; needs a NIC on the lab's tap link; "        \
	  "debian-apps: the same with the application table's nginx-light and mariadb-server, memcached "   \
	  "(which the host's net.memcached loads with netdir=guest-server), and gcc for app.build)", 0, 0,     \
	  image_check, "boot", NULL, NULL)      \
	X(LAB_HTTPD, "httpd", "serve", LIST, LAB_HTTPD_NAMES,                                                    \
	  " (the HTTP server net.http loads in the guest, with netdir=guest-server: serve, the guest's vmbench "   \
	  "serve; nginx, Debian's nginx-light on port 80, in image=debian-apps)", 0, 0, httpd_check, NULL, NULL, NULL)          \
	X(LAB_DB, "db", "sqlite", LIST, LAB_DB_NAMES,                                                           \
	  " (the database app.oltp_* run against in the guest: sqlite, the app suite's own; mariadb, Debian's "  \
	  "mariadb-server over its socket, in image=debian-apps)", 0, 0, db_check, NULL, NULL, NULL)          \
	X(LAB_THP, "thp", "default", LIST, " default always madvise never",                                     \
	  " (the guest's transparent huge pages, set at boot by the kernel's transparent_hugepage=; default: "  \
	  "the kernel's own; checked in the guest's /sys/kernel/mm/transparent_hugepage/enabled; always and "   \
	  "madvise need mem=640M or more)", 0, 0, thp_check, "mem", NULL, NULL)                                     \
	X(LAB_NICS, "nics", "1", COUNT, "",                                                                    \
	  " a count of NICs from 1 to 8, each of the nic model on a tap of its own (above 1: the "  \
	  "guest bonds them " LAB_BOND_MODE ", one address on the bond; the host's ends of the links bridged; "    \
	  "queues=1)", 1, LAB_NICS_MAX, nics_check, "net", NULL, NULL)                           \
	X(LAB_LINKRATE, "linkrate", "off", WORD, "",                                                           \
	  " each NIC's link shaped to a line rate both ways by tc tbf on the host (a rate from 1mbit to 100gbit, "  \
	  "e.g. 20mbit or 1gbit; off: the emulated NIC's data path alone); needs a nic on a tap", 0, 0,           \
	  linkrate_check, "net", NULL, NULL)                                                                 \
	X(LAB_BOOT, "boot", "kernel", LIST, LAB_BOOT_NAMES,                                                    \
	  " (how the guest's kernel is started: kernel, QEMU hands the image's kernel and initramfs to the "   \
	  "guest; cdrom, the image's ISO ('lab image --format iso') on a CD-ROM, started by the firmware "     \
	  "through GRUB, as a hypervisor that cannot start a kernel itself boots it; cdrom: x86_64, "         \
	  "image=busybox, firmware=default, nic=none, thp=default, a disk not on USB)", 0, 0, boot_check, "boot", lab_qemu_arg_boot, \
	  NULL)                                                                                                  \
	LAB_KEYS_TEST(X)

/* A key built only into a test build (tests/meson.build's vmbench-toy and
 * test_toylab, compiled with -DVMB_TEST_LAB, which compile this table's
 * file, keys.c, again): toy=on puts the row's own QEMU argument on the
 * command line (tests/toy/toylab.c), so that a test finds it there and in
 * the labels. It comes last, so the shipped keys' numbers are the same in
 * both builds; the library's code counts keys by lab_nkeys, never by the
 * enum. Never in the shipped binary. */
#ifdef VMB_TEST_LAB
#define LAB_KEYS_TEST(X) X(LAB_TOY, "toy", "off", LIST, " off on", "", 0, 0, NULL, NULL, toy_qemu, NULL)
#else
#define LAB_KEYS_TEST(X)
#endif

/* The scratch disk (issue 26). backend: what QEMU opens on the host, file
 * (an image file of --disk-format) or block (a host block device: a loop
 * device over the lab's own file); the rows of LAB_BACKENDS in qemu.h.
 * cache: QEMU's cache mode of the drive (the default is --disk-cache's).
 * snapshot=on: the drive behind a qcow2 overlay of it, as an external
 * snapshot of a VM puts it. */
/* X(name, direct): QEMU's cache modes; direct: QEMU opens the image with
 * O_DIRECT, which a file system must take (tmpfs before Linux 6.6 does not) */
#define LAB_CACHES(X)                   \
	X("none", true)                 \
	X("writeback", false)           \
	X("writethrough", false)        \
	X("directsync", true)           \
	X("unsafe", false)
#define LAB_CACHE_NAME(n, ...) " " n
#define LAB_CACHE_NAMES LAB_CACHES(LAB_CACHE_NAME)
#define LAB_CACHE_CHOICE(n, ...) "|" n
#define LAB_CACHE_CHOICES (LAB_CACHES(LAB_CACHE_CHOICE) + 1) /* "none|writeback|...", for --disk-cache */
/* backend=file: the row of the image format --disk-format names */
#define LAB_BACKEND_FILE "file"

/* X(ARCH, name, kvm, tcg, model)
 * The CPU models of the cpu key, a row per architecture (ARCH a bare
 * word: x86_64, aarch64). kvm, tcg: QEMU's -cpu argument under each
 * accelerator (NULL: not under it; auto's TCG CPU on aarch64 takes the
 * cheap pointer authentication, as the architected QARMA costs emulated
 * guests much of their speed). model: what the guest's fingerprint says
 * of its CPU ("model name" on x86, arm64's "CPU part"), checked after
 * HELLO; NULL: not checked (the host's own under KVM). Models as QEMU 7.2
 * has them; a table rather than QEMU's -cpu help, which names no guest
 * model and would need QEMU to parse a matrix. */
#define LAB_CPUS(X)                                                                                     \
	X(x86_64, "auto", "host", "max", NULL)                                                          \
	X(x86_64, "max", "max", "max", NULL)                                                            \
	X(x86_64, "host", "host", NULL, NULL)                                                           \
	X(x86_64, "qemu64", "qemu64", "qemu64", "QEMU Virtual CPU version 2.5+")                        \
	X(x86_64, "Skylake-Server", "Skylake-Server", "Skylake-Server", "Intel Xeon Processor (Skylake)") \
	X(x86_64, "EPYC", "EPYC", "EPYC", "AMD EPYC Processor")                                         \
	X(aarch64, "auto", "host", "max,pauth-impdef=on", NULL)                                         \
	X(aarch64, "max", "max", "max", NULL)                                                           \
	X(aarch64, "host", "host", NULL, NULL)                                                          \
	X(aarch64, "cortex-a72", NULL, "cortex-a72", "0xd08")                                           \
	X(aarch64, "cortex-a57", NULL, "cortex-a57", "0xd07")                                           \
	X(aarch64, "neoverse-n1", NULL, "neoverse-n1", "0xd0c")

/* X(ARCH, name, code, vars, kernel, mark, efi, package): the guest's
 * firmware (the firmware key), a row per architecture.
 *   code     the firmware's image; NULL for QEMU's own.
 *   vars     the template of its variable store, copied per boot into the
 *            work directory as a second flash; NULL gives code as -bios.
 *   kernel   the guest image's file QEMU is given; NULL for the image's own.
 *            OVMF cannot enter a PVH vmlinux: its row names vmlinuz.
 *   mark     the console text that ends the firmware phase of the boot;
 *            NULL for the console's first byte (that firmware prints none).
 *   efi      whether the guest's kernel must show a UEFI boot (checked).
 *   package  Debian's package that holds code and vars.
 * LAB_EFI_STUB_MARK begins every line that the kernel's EFI stub prints.
 * An example is "EFI stub: Booting Linux Kernel".
 * The mark includes the space after the colon.
 * Under UEFI, the stub's first line is also the kernel's first line.
 * Every line before it is the firmware's. */
#define LAB_EFI_STUB_MARK "EFI stub: "
#define LAB_FIRMWARES(X)                                                                                  \
	X(x86_64, "default", NULL, NULL, NULL, NULL, false, NULL)                                         \
	X(x86_64, "uefi", "/usr/share/OVMF/OVMF_CODE.fd", "/usr/share/OVMF/OVMF_VARS.fd", "vmlinuz",       \
	  LAB_EFI_STUB_MARK, true, "ovmf")                                                                \
	X(aarch64, "default", NULL, NULL, NULL, NULL, false, NULL)                                        \
	X(aarch64, "uefi", "/usr/share/qemu-efi-aarch64/QEMU_EFI.fd", NULL, NULL, LAB_EFI_STUB_MARK, true,\
	  "qemu-efi-aarch64")

/* X(model, argument, per queue, fixed): the NIC models that take several
 * queue pairs (the queues key), and how: their device's property, whose
 * value is per queue * queues + fixed (virtio-net: a vector for each of
 * a pair's two queues, one for configuration changes, one for the control
 * queue). */
#define LAB_MULTIQUEUE(X) X("virtio-net", "mq=on,vectors=", 2, 2)
#define LAB_MQ_NAME(n, ...) " " n
#define LAB_MQ_NAMES LAB_MULTIQUEUE(LAB_MQ_NAME)

/* " x86_64: a b; aarch64: c d": the names of a table's rows per architecture */
#define LAB_ARCH_ROWS(TABLE) " x86_64:" TABLE(LAB_ROW_IF_x86_64) "; aarch64:" TABLE(LAB_ROW_IF_aarch64)
#define LAB_ROW_IF_x86_64(a, n, ...) LAB_ROW_x86_64_##a(n)
#define LAB_ROW_IF_aarch64(a, n, ...) LAB_ROW_aarch64_##a(n)
#define LAB_ROW_x86_64_x86_64(n) " " n
#define LAB_ROW_x86_64_aarch64(n)
#define LAB_ROW_aarch64_aarch64(n) " " n
#define LAB_ROW_aarch64_x86_64(n)

/* X(KEY, name, arches, x86 machine, devices, driver, modules, libvirt)
 * arches: where the lab runs the model, each after a space: QEMU has it
 * there and Debian's kernel of that architecture has its driver (QEMU's
 * aarch64 virt machine has pvscsi, but arm64's kernel has no vmw_pvscsi:
 * Linux builds it for x86 only). x86 machine: the
 * machine type it needs on x86_64 (NULL: q35). devices: QEMU -device
 * arguments, space-separated; the backend is drive=d0 (disks) or netdev=n0
 * (NICs). driver: the Linux driver the guest must show behind it. modules:
 * what the guest loads for it (dependencies come by themselves; the guest
 * loads only its configuration's, so every one it needs: libata's disks are
 * SCSI disks, sd_mod makes their block device), spelled as the kernel or the
 * .ko file spells them ('-' and '_' are one: src/lab/modules.h).
 * libvirt: the model in a libvirt domain (src/lab/hv_libvirt.c, lab run
 * --connect): "disk bus=BUS[ controller=MODEL]" (a disk's <target bus>,
 * and the controller of its bus's type with that model), "nic MODEL" (an
 * interface's <model type>), "balloon MODEL" (the memballoon's); NULL:
 * libvirt has no element for it (9.0 has no NVMe disk, and EHCI's
 * companions and the shares are not written yet), and that configuration
 * is refused under --connect with that reason.
 * lab_tables_check refuses at start-up a row that is not well made. */
#define LAB_ANY_ARCH " x86_64 aarch64"
/* usb-ehci: ICH9's USB 2.0 controller with its three USB 1.1 (UHCI)
 * companions, functions of one slot as on the chipset (QEMU's own q35
 * example, docs/config/q35-emulated.cfg), each companion on the EHCI's bus
 * (masterbus) for two of its six ports. usb-storage is a high-speed device:
 * EHCI carries it, the companions are there as a real fallback has them.
 * x86_64 only: arm64's Debian kernel has no uhci_hcd. usb-xhci and usb-ehci
 * show the controller's driver behind the disk (src/probe/devices.c walks
 * past usb-storage to it). */
#define LAB_USB_EHCI                                                                                      \
	"ich9-usb-ehci1,id=ehci0,multifunction=on,addr=1d.7 "                                             \
	"ich9-usb-uhci1,masterbus=ehci0.0,firstport=0,multifunction=on,addr=1d.0 "                        \
	"ich9-usb-uhci2,masterbus=ehci0.0,firstport=2,multifunction=on,addr=1d.1 "                        \
	"ich9-usb-uhci3,masterbus=ehci0.0,firstport=4,multifunction=on,addr=1d.2"
#define LAB_DEVICES(X)                                                                                          \
	X(LAB_DISK, "virtio-blk", LAB_ANY_ARCH, NULL, "virtio-blk-pci,drive=d0", "virtio_blk", "virtio_blk", "disk bus=virtio")      \
	X(LAB_DISK, "virtio-scsi", LAB_ANY_ARCH, NULL, "virtio-scsi-pci,id=scsi0 scsi-hd,drive=d0,bus=scsi0.0",   \
	  "virtio_scsi", "virtio_scsi sd_mod", "disk bus=scsi controller=virtio-scsi")                                                                  \
	X(LAB_DISK, "ide", " x86_64", "pc", "ide-hd,drive=d0,bus=ide.0", "ata_piix", "ata_piix sd_mod", "disk bus=ide")          \
	X(LAB_DISK, "ahci", LAB_ANY_ARCH, NULL, "ich9-ahci,id=ahci0 ide-hd,drive=d0,bus=ahci0.0", "ahci",          \
	  "ahci sd_mod", "disk bus=sata")                                                                                         \
	X(LAB_DISK, "lsi", LAB_ANY_ARCH, NULL, "lsi53c895a,id=scsi0 scsi-hd,drive=d0,bus=scsi0.0", "sym53c8xx",   \
	  "sym53c8xx sd_mod", "disk bus=scsi controller=lsilogic")                                                                                   \
	X(LAB_DISK, "nvme", LAB_ANY_ARCH, NULL, "nvme,drive=d0,serial=vmbench0", "nvme", "nvme", NULL)                  \
	X(LAB_NIC, "virtio-net", LAB_ANY_ARCH, NULL, "virtio-net-pci,netdev=n0", "virtio_net", "virtio_net", "nic virtio")     \
	X(LAB_NIC, "e1000", LAB_ANY_ARCH, NULL, "e1000,netdev=n0", "e1000", "e1000", "nic e1000")                              \
	X(LAB_NIC, "e1000e", LAB_ANY_ARCH, NULL, "e1000e,netdev=n0", "e1000e", "e1000e", "nic e1000e")                          \
	X(LAB_NIC, "rtl8139", LAB_ANY_ARCH, NULL, "rtl8139,netdev=n0", "8139cp", "8139cp", "nic rtl8139")                        \
	X(LAB_NIC, "vmxnet3", LAB_ANY_ARCH, NULL, "vmxnet3,netdev=n0", "vmxnet3", "vmxnet3", "nic vmxnet3")                      \
	X(LAB_NIC, "pcnet", " x86_64", NULL, "pcnet,netdev=n0", "pcnet32", "pcnet32", "nic pcnet")                              \
	X(LAB_NIC, "e1000-82545em", LAB_ANY_ARCH, NULL, "e1000-82545em,netdev=n0", "e1000", "e1000", "nic e1000-82545em")               \
	X(LAB_DISK, "pvscsi", " x86_64", NULL, "pvscsi,id=scsi0 scsi-hd,drive=d0,bus=scsi0.0", "vmw_pvscsi",          \
	  "vmw_pvscsi sd_mod", "disk bus=scsi controller=vmpvscsi")                                                                                   \
	X(LAB_DISK, "megasas", LAB_ANY_ARCH, NULL, "megasas,id=scsi0 scsi-hd,drive=d0,bus=scsi0.0", "megaraid_sas",  \
	  "megaraid_sas sd_mod", "disk bus=scsi controller=lsisas1078")                                                                                 \
	X(LAB_DISK, "mptsas1068", LAB_ANY_ARCH, NULL, "mptsas1068,id=scsi0 scsi-hd,drive=d0,bus=scsi0.0", "mptsas", \
	  "mptsas sd_mod", "disk bus=scsi controller=lsisas1068")                                                                                       \
	X(LAB_DISK, "usb-xhci", LAB_ANY_ARCH, NULL, "qemu-xhci,id=usb0 usb-storage,drive=d0,bus=usb0.0", "xhci_hcd", \
	  "xhci_pci usb_storage sd_mod", "disk bus=usb controller=qemu-xhci")                                                                         \
	X(LAB_DISK, "usb-ehci", " x86_64", NULL, LAB_USB_EHCI " usb-storage,drive=d0,bus=ehci0.0", "ehci-pci",        \
	  "ehci_pci uhci_hcd usb_storage sd_mod", NULL)                                                                \
	X(LAB_BALLOON, "on", LAB_ANY_ARCH, NULL, "virtio-balloon-pci,id=balloon0", "virtio_balloon", "virtio_balloon", "balloon virtio") \
	X(LAB_SHARE, "9p", LAB_ANY_ARCH, NULL, "virtio-9p-pci,fsdev=s0,mount_tag=" LAB_SHARE_TAG, "9pnet_virtio",   \
	  "9pnet_virtio 9p", NULL)                                                                                    \
	X(LAB_SHARE, "virtiofs", LAB_ANY_ARCH, NULL, "vhost-user-fs-pci,chardev=s0,tag=" LAB_SHARE_TAG, "virtiofs", \
	  "virtiofs", NULL)                                                                                           \
	LAB_DEVICES_TEST(X)

/* Device models built only into a test build (tests/meson.build's
 * vmbench-toy and test_toylab, compiled with -DVMB_TEST_LAB, which compile
 * this table's file, tables.c, again): toy-nic, QEMU's e1000 with a MAC
 * address of its own, so that a test finds its row's arguments on the
 * command line. Never in the shipped binary. */
#ifdef VMB_TEST_LAB
#define LAB_DEVICES_TEST(X) \
	X(LAB_NIC, "toy-nic", LAB_ANY_ARCH, NULL, "e1000,netdev=n0,mac=52:54:00:70:6f:79", "e1000", "e1000", NULL)
#else
#define LAB_DEVICES_TEST(X)
#endif

/* X(name, distro, packages, root, append, init, ssh): the guest images
 * (the image key). busybox is the lab's initramfs; a distribution's row
 * boots the disk image that `lab image --distro NAME` builds
 * (src/lab/distro.h), in CACHE/image-NAME-ARCH.
 *   distro  the --distro name that builds it; NULL: the busybox image
 *   packages  Debian packages the row's image adds to the distribution's
 *           (as --distro-packages), comma-separated; NULL: none. The
 *           servers of the application table (the httpd and db keys) are
 *           here
 *   root    its root disk's file in the image directory, attached as a
 *           virtio disk with serial LAB_ROOT_SERIAL (the scratch disk is
 *           told from it by that serial); NULL: no root disk
 *   append  its own words on the kernel's command line
 *   init    the console text that ends the kernel phase of its boot: the
 *           busybox init's first line, or the kernel's own line as it
 *           starts the initramfs's /init
 *   ssh     whether its boot has an SSH server whose banner ends a phase
 *           (src/suites/boot.h: boot_ssh_phases)
 *   boot_s  what a study's plan assumes one boot takes under TCG on a
 *           2-CPU host, from the boots measured there: busybox to its
 *           agent in 5 to 10 s; Debian to SSH and its agent in 65 to 90 s
 *           (docs/methodology.md, "Distribution guests") */
#define LAB_ROOT_SERIAL "vmbench-root"
#define LAB_IMAGES(X)                                                                                     \
	X("busybox", NULL, NULL, NULL, "", "vmbench-init: kernel reached init", false, 10)                 \
	X("debian", "debian", NULL, "root.qcow2", " root=LABEL=" LAB_DISTRO_ROOT_LABEL " rw",              \
	  "Run /init as init process", true, 90)                                                          \
	X("debian-apps", "debian", "nginx-light,mariadb-server,memcached,gcc,libc6-dev", "root.qcow2", " root=LABEL=" LAB_DISTRO_ROOT_LABEL " rw", \
	  "Run /init as init process", true, 90)
#define LAB_IMAGE_NAME(n, ...) " " n
#define LAB_IMAGE_COUNT(...) +1
#define LAB_NIMAGES (0 LAB_IMAGES(LAB_IMAGE_COUNT))
#define LAB_IMAGE_NAMES LAB_IMAGES(LAB_IMAGE_NAME)

/* X(name, kernel, file): how the guest's kernel is started (the boot key).
 *   kernel  QEMU is handed the image's kernel, initramfs and command line
 *           (-kernel, -initrd, -append)
 *   file    else the image's file the firmware boots from a CD-ROM
 *           (src/lab/iso.h: grub.cfg's fixed command line, so the
 *           configuration's own words, a NIC's address or THP, cannot
 *           reach the guest: boot_check refuses them) */
#define LAB_BOOTS(X)                                                                                      \
	X("kernel", true, NULL)                                                                           \
	X("cdrom", false, "vmbench.iso")
#define LAB_BOOT_NAME(n, ...) " " n
#define LAB_BOOT_NAMES LAB_BOOTS(LAB_BOOT_NAME)
struct lab_boot_row {
	const char *name;
	bool kernel;
	const char *file;
};
extern const struct lab_boot_row lab_boots[];
extern const size_t lab_nboots;
const struct lab_boot_row *lab_boot_find(const char *name);

struct lab_image_row {
	const char *name, *distro, *packages, *root, *append, *init;
	bool ssh;
	unsigned boot_s;
};
/* Does image row img install the Debian package pkg? */
bool lab_image_has(const struct lab_image_row *img, const char *pkg);

/* X(name, port, path, package): the HTTP servers net.http loads in the
 * guest (the matrix key httpd), with netdir=guest-server.
 *   serve   the guest's `vmbench serve` (the agent's SERVE), whose page
 *           --net.page and --net.body-size choose: port 0, no URL
 *   nginx   Debian's nginx-light as the image installs it, started by
 *           systemd before the agent (the agent's unit is ordered after
 *           it), its default site: net.url http://GUEST:80/ */
#define LAB_HTTPDS(X)                  \
	X("serve", 0, NULL, NULL)      \
	X("nginx", 80, "/", "nginx-light")
/* X(name, url, package): the database app.oltp_* run against in the guest
 * (the matrix key db).
 *   sqlite   the app suite's own default, SQLite in --app.dir on the
 *            filesystem of the disk under test
 *   mariadb  Debian's mariadb-server as the image installs it, with the
 *            database and user the image's vmbench-db unit makes at boot,
 *            over its unix socket (localhost is the socket to MariaDB's
 *            client library, at Debian's path): app.db is this URL. Its
 *            data is on the root disk, not the disk under test */
#define LAB_DBS(X)                                                                                    \
	X("sqlite", NULL, NULL)                                                                       \
	X("mariadb", "mysql://" LAB_DISTRO_DB_USER ":" LAB_DISTRO_DB_PASS "@localhost/" LAB_DISTRO_DB_NAME, \
	  "mariadb-server")
#define LAB_DB_NAME(n, ...) " " n
#define LAB_DB_NAMES LAB_DBS(LAB_DB_NAME)
struct lab_db {
	const char *name, *url, *package;
};
extern const struct lab_db lab_dbs[];
extern const size_t lab_ndbs;
#define LAB_HTTPD_NAME(n, ...) " " n
#define LAB_HTTPD_NAMES LAB_HTTPDS(LAB_HTTPD_NAME)
struct lab_httpd {
	const char *name;
	unsigned port;
	const char *path, *package;
};
extern const struct lab_httpd lab_httpds[];
extern const size_t lab_nhttpds;
extern const struct lab_image_row lab_images[];
extern const size_t lab_nimages;

/* X(ENUM, name, start, run): the directions of the net suite's traffic
 * (the matrix key netdir), the functions in src/lab/labrun.c.
 * guest-client: the host serves (vmbench serve in the configuration's
 * network namespace) and the guest runs the net suite against it;
 * guest-server: the guest serves (the agent's SERVE) and the host runs the
 * net suite against it from inside the namespace. */
#define LAB_NETDIRS(X)                                                                     \
	X(LAB_GUEST_CLIENT, "guest-client", netdir_client_start, netdir_client_run)          \
	X(LAB_GUEST_SERVER, "guest-server", netdir_server_start, netdir_server_run)
#define LAB_NETDIR_NAME(e, n, ...) " " n
#define LAB_NETDIR_NAMES LAB_NETDIRS(LAB_NETDIR_NAME)


/* X(name, hypervisor, keys, x86 machine)
 * The profiles (the profile key): the devices a hypervisor gives a Linux
 * guest by default, as QEMU emulates them, not the hypervisor. keys: the
 * matrix keys it sets, KEY=VALUE each after a space (a key the matrix also
 * gives must have that value: lab_matrix_parse refuses the contradiction).
 * x86 machine: QEMU's machine type nearest the hypervisor's chipset, unless
 * the disk row needs its own (aarch64: virt). docs/methodology.md says
 * where each choice comes from. */
#define LAB_PROFILES(X)                                                                                 \
	X("vmware", "VMware", " disk=pvscsi nic=vmxnet3", "pc")                                         \
	X("vbox", "VirtualBox", " disk=ahci nic=e1000", "pc")                                           \
	X("kvm", "KVM with libvirt", " disk=virtio-blk nic=virtio-net", "q35")
#define LAB_PROFILE_NAME(n, ...) " " n
#define LAB_PROFILE_NAMES LAB_PROFILES(LAB_PROFILE_NAME)
#define LAB_PROFILE_HELP_ROW(n, hv, keys, mach) " " n " is" keys " machine=" mach ";"
#define LAB_PROFILE_HELP_ROWS LAB_PROFILES(LAB_PROFILE_HELP_ROW)

/* Modules every guest loads whatever its devices: the PCI transport of the
 * virtio devices and the agent's console. */
#define LAB_BASE_MODULES "virtio_pci virtio_console"

/* Several NICs (the nics key): how the guest bonds them and the module
 * that does it (in every image; loaded where nics is above 1). balance-rr
 * sends each next frame on the next link, so that one TCP stream to one
 * peer spreads over every link (docs/methodology.md, "Several NICs"). */
#define LAB_NICS_MAX 8
#define LAB_BOND_MODE "balance-rr"
#define LAB_BOND_MODULES "bonding"

#define LAB_KEY_ENUM(e, ...) e,
enum lab_key { LAB_KEYS(LAB_KEY_ENUM) LAB_NKEYS };
/* The most keys a configuration holds: the bits of lab_config.given, and
 * the size of its arrays by key, the same in every build (a test build's
 * keys come after the shipped ones). The table's own count is lab_nkeys,
 * checked against it at start-up (lab_tables_check). */
#define LAB_KEYS_MAX 32

enum lab_key_type { LAB_KEY_LIST, LAB_KEY_COUNT, LAB_KEY_SIZE, LAB_KEY_WORD };
struct lab_config;
struct lab_paths;
struct lab_args; /* a QEMU command line being built (src/lab/qemu.h) */
/* A row of LAB_KEYS (see there). */
struct lab_key_row {
	const char *name, *def;
	enum lab_key_type type;
	const char *values, *range; /* values: " a b c" (LIST); range: in words (COUNT, SIZE, WORD) */
	uint64_t min, max;
	int (*check)(const struct lab_config *c, char *why, size_t len);
	const char *suite;
	int (*qemu)(struct lab_args *a, const struct lab_config *c, const struct lab_paths *p, char *why, size_t len);
	int (*child)(const struct lab_config *c);
};
extern const struct lab_key_row lab_keys[];
extern const size_t lab_nkeys;

/* " virtio-blk virtio-scsi ...": the models of one key, as a string literal */
#define LAB_DEVICE_NAMES(key) LAB_DEVICES(LAB_DEVICE_NAME_IF_##key)
#define LAB_DEVICE_NAME_IF_LAB_DISK(k, n, ...) LAB_PICK_LAB_DISK_##k(n)
#define LAB_DEVICE_NAME_IF_LAB_NIC(k, n, ...) LAB_PICK_LAB_NIC_##k(n)
#define LAB_PICK_LAB_DISK_LAB_DISK(n) " " n
#define LAB_PICK_LAB_DISK_LAB_NIC(n)
#define LAB_PICK_LAB_NIC_LAB_NIC(n) " " n
#define LAB_PICK_LAB_NIC_LAB_DISK(n)
#define LAB_PICK_LAB_DISK_LAB_BALLOON(n)
#define LAB_PICK_LAB_NIC_LAB_BALLOON(n)
#define LAB_DEVICE_NAME_IF_LAB_SHARE(k, n, ...) LAB_PICK_LAB_SHARE_##k(n)
#define LAB_PICK_LAB_SHARE_LAB_SHARE(n) " " n
#define LAB_PICK_LAB_SHARE_LAB_DISK(n)
#define LAB_PICK_LAB_SHARE_LAB_NIC(n)
#define LAB_PICK_LAB_DISK_LAB_SHARE(n)
#define LAB_PICK_LAB_NIC_LAB_SHARE(n)
#define LAB_PICK_LAB_SHARE_LAB_BALLOON(n)

/* The matrix keys and their values, for --help and the man page. */
#define LAB_KEY_HELP(e, name, def, type, values, range, ...) " " name " =" values range " (default " def ")."
#define LAB_MATRIX_HELP "keys and values:" LAB_KEYS(LAB_KEY_HELP)

struct lab_device {
	enum lab_key key; /* LAB_DISK or LAB_NIC */
	const char *name, *arches, *x86_machine, *devices, *driver, *modules;
	const char *libvirt; /* its element in a libvirt domain; NULL: none (hv_libvirt.c) */
};

extern const struct lab_device lab_devices[];
extern const size_t lab_ndevices;

struct lab_cpu {
	const char *arch, *name, *kvm, *tcg, *model;
};

struct lab_firmware {
	const char *arch, *name, *code, *vars, *kernel, *mark;
	bool efi;
	const char *package;
};

struct lab_profile {
	const char *name, *hypervisor, *keys, *x86_machine;
};

extern const struct lab_profile lab_profiles[];
extern const size_t lab_nprofiles;

struct lab_mq {
	const char *model, *arg;
	unsigned per_queue, fixed;
};

extern const struct lab_cpu lab_cpus[];
extern const size_t lab_ncpus;
extern const struct lab_firmware lab_firmwares[];
extern const size_t lab_nfirmwares;



struct lab_cache_mode {
	const char *name;
	bool direct;
};
enum lab_accel { LAB_ACCEL_AUTO, LAB_ACCEL_KVM, LAB_ACCEL_TCG };

extern const struct lab_mq lab_mqs[];
extern const size_t lab_nmqs;
extern const struct lab_cache_mode lab_cache_modes[];
extern const size_t lab_ncache_modes;

/* A row by its name (src/lab/tables.c); NULL for none. */
const struct lab_cpu *lab_cpu_find(const char *arch, const char *name);
const struct lab_firmware *lab_firmware_find(const char *arch, const char *name);
const struct lab_mq *lab_mq_find(const char *model);
const struct lab_image_row *lab_image_find(const char *name);
const struct lab_httpd *lab_httpd_find(const char *name);
const struct lab_db *lab_db_find(const char *name);
const struct lab_profile *lab_profile_find(const char *name);
const struct lab_device *lab_device_find(enum lab_key key, const char *name);
const struct lab_cache_mode *lab_cache_find(const char *name);



/* One configuration: a value for every key (defaults for keys not given),
 * and the plan they make: each value resolved once into the row it chose
 * or the number it says (lab_config_resolve, which lab_matrix_parse calls;
 * a value changed later goes through lab_config_set, which resolves
 * again). The rest of the lab reads the plan's fields, never compares a
 * value's string. */
struct lab_config {
	char v[LAB_KEYS_MAX][32]; /* the values as given: the configuration's name and labels */
	unsigned given;           /* bit k: its part of the matrix gave key k (else v[k] is the default) */
	/* the plan */
	const struct lab_device *device[LAB_KEYS_MAX]; /* each device key's model (disk, nic, balloon, share); NULL: none */
	const struct lab_cpu *cpu;                     /* NULL: no model of the architecture's (refused by cpu's check) */
	const struct lab_firmware *firmware;           /* likewise */
	const struct lab_fs *fs;                       /* NULL: fs=none */
	const struct lab_share *share;                 /* NULL: share=none */
	const struct lab_profile *profile;             /* NULL: profile=none */
	const struct lab_image_row *image;
	const struct lab_boot_row *boot;               /* NULL: a value no row has (refused by the key's list) */
	const struct lab_httpd *httpd;
	const struct lab_db *db;
	const struct lab_mq *mq;                       /* how the NIC takes queues; NULL: it takes one (or no NIC) */
	const struct lab_cache_mode *cache;
	const char *thp;                               /* thp=: the kernel's transparent_hugepage= mode; NULL: its own */
	enum lab_accel accel;
	bool aarch64, pin, snapshot, balloon, server; /* server: netdir=guest-server */
	bool backend_file;                             /* backend=file: an image file of --disk-format */
	unsigned smp, queues, topology[3];             /* topology: 0,0,0 for default */
	unsigned nics;                                 /* the nics key: NICs of the nic model, bonded above 1 */
	uint64_t link_bps;                             /* linkrate: each link's line rate in bit/s; 0: off */
	int nice;
	uint64_t mem;                                  /* bytes */
};

struct lab_matrix {
	struct lab_config *configs;
	size_t n;
	unsigned given; /* bit k: key k appeared in the matrix (it labels the results) */
};

const char *lab_key_name(enum lab_key k);
/* The key of this name, or -1. */
int lab_key_find(const char *name);
/* The suite that measures what a key chooses (disk: "disk", nic: "net"),
 * which a comparison of values of that key leads with; NULL for none. */
const char *lab_key_suite(enum lab_key k);
/* What a key takes, for a listing: its default; its values " a b c" (a
 * key of listed values; "" for the others); its range in words (what a
 * number or word key takes, or a listed key's note). */
const char *lab_key_default(enum lab_key k);
const char *lab_key_values(enum lab_key k);
const char *lab_key_range(enum lab_key k);
/* Whether list is module names, space-separated, at least one ('-' and '_'
 * alike, as the kernel takes them: src/lab/modules.h). */
bool lab_module_list_ok(const char *list);
/* A device row's own check: its name a value of its key, its architectures
 * values of arch, a QEMU device and a guest driver, its modules module
 * names. 0, or -EINVAL with why. */
int lab_device_check(const struct lab_device *d, char *why, size_t len);
/* A device row's libvirt column read: a disk's bus into a and its
 * controller's model into b ("" for none), a NIC's or balloon's model into
 * a. 0; -ENOENT: the row has none; -EINVAL: not of the column's form. */
int lab_device_libvirt(const struct lab_device *d, char *a, size_t alen, char *b, size_t blen);
struct vmb_suite;
/* The start-up check of the lab's tables (a broken row is a programming
 * error, refused before anything runs, as a suite's descriptor is): every
 * key's name, its values and default; every device row (lab_device_check)
 * once per key; the base and filesystem modules; each profile's KEY=VALUE;
 * key_suites' suites, each one that suite_of finds. 0, or -EINVAL with why. */
int lab_tables_check(const struct vmb_suite *(*suite_of)(const char *name), char *why, size_t len);
/* "a, b, c" from a key's " a b c", for the valid values an error message
 * lists; cut with "..." when longer than len. */
void lab_values_text(const char *spaced, char *buf, size_t len);
/* Parse and expand. On a bad key or value, err lists the valid ones. */
int lab_matrix_parse(const char *spec, struct lab_matrix *m, char *err, size_t errlen);
void lab_matrix_release(struct lab_matrix *m);

/* "disk=ide,accel=tcg", or "accel=tcg disk=ide" as a configuration's name
 * is printed: KEY=VALUE words, commas or spaces between, each key a matrix
 * key, appended to pairs as "KEY=VALUE". The values are not checked: one
 * that no configuration has matches none. 0, or -EINVAL with err saying
 * what is wrong, -ENOMEM. */
int lab_pairs_parse(const char *spec, struct strv *pairs, char *err, size_t errlen);
/* Whether every pair is the configuration's value of its key. */
bool lab_config_matches(const struct lab_config *c, const struct strv *pairs);
/* A label selector as the lab takes it: "k=v,k2=v2", also with spaces
 * between (a configuration's name, "accel=tcg disk=ide") and as the label
 * results of the lab once stored, "config=accel=tcg disk=ide" (its words are
 * labels of their own): the words joined by single commas, for
 * db_parse_selector. NULL when out of memory. */
char *lab_selector(const char *sel);

/* The device model behind a configuration's key (LAB_DISK, LAB_NIC); NULL
 * for nic=none. */
const struct lab_device *lab_config_device(const struct lab_config *c, enum lab_key key);
/* The plan of c from its values: every field after given. A value no row
 * has leaves its field NULL (the key's check refuses it where that matters). */
void lab_config_resolve(struct lab_config *c);
/* Key k's value of c changed to v, and the plan resolved again: the one way
 * a value changes after parsing (accel=auto resolved, a default forced). */
void lab_config_set(struct lab_config *c, enum lab_key k, const char *v);

/* false when QEMU can build this configuration, else true with why. */
bool lab_config_unsupported(const struct lab_config *c, char *why, size_t len);
/* The filesystem the guest makes on its scratch disk; NULL for fs=none. */
const struct lab_fs *lab_config_fs(const struct lab_config *c);
/* The rows of a configuration's CPU model and firmware, for its
 * architecture (NULL: none, which lab_matrix_parse refuses). */
const struct lab_cpu *lab_config_cpu(const struct lab_config *c);
const struct lab_firmware *lab_config_firmware(const struct lab_config *c);
/* How the configuration's NIC takes queues; NULL: it takes one (or no NIC). */
const struct lab_mq *lab_config_mq(const struct lab_config *c);
/* The queue pairs the configuration's NIC has (the queues key). */
unsigned lab_config_queues(const struct lab_config *c);
/* linkrate=RATE into bit/s: a whole number and bit, kbit, mbit or gbit
 * (tc's units, 1000 each), from 1mbit to 100gbit: 0, or -EINVAL (off too). */
int lab_rate_parse(const char *v, uint64_t *bps);
/* topology=SxCxT into its three numbers: 0, or -EINVAL for default and
 * anything else. */
int lab_topology_parse(const char *v, unsigned t[3]);

/* Does QEMU open the configuration's drive with O_DIRECT (cache=none, directsync)? */
bool lab_config_direct(const struct lab_config *c);
/* snapshot=on: the drive is a qcow2 overlay over the back end's disk */
bool lab_config_snapshot(const struct lab_config *c);
/* The profile row of a configuration; NULL for profile=none. */
const struct lab_profile *lab_config_profile(const struct lab_config *c);
/* What a configuration's name stands for beyond its keys, for the reader
 * of a report: with a profile, that its devices are QEMU's emulations of
 * the hypervisor's defaults, which ones, and not the hypervisor. false
 * (buf "") when there is nothing to say. */
bool lab_config_legend(const struct lab_config *c, char *buf, size_t len);

/* The image row of a configuration (never NULL for a parsed one). */
const struct lab_image_row *lab_config_image(const struct lab_config *c);
/* The row of the configuration's httpd key, db key. */
const struct lab_httpd *lab_config_httpd(const struct lab_config *c);
const struct lab_db *lab_config_db(const struct lab_config *c);

/* The guest driver that must appear behind the disk of this configuration. */
const char *lab_expected_disk_driver(const struct lab_config *c);

#endif
