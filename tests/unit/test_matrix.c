/* The lab matrix (expansion, messages) and the QEMU command lines. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "test_argv.h"
#include "../../src/lab/balloon.h"
#include "../../src/core/spawn.h"
#include "../../src/guest/channels.h"
#include "../../src/guest/fs.h"
#include "../../src/lab/hostmeasure.h"
#include "../../src/lab/image.h"
#include "../../src/lab/labcheck.h"
#include "../../src/lab/labnet.h"
#include "../../src/lab/labrun.h"
#include "../../src/lab/matrix.h"
#include "../../src/lab/qemu.h"
#include "../../src/suites/suites.h"

static void expansion(void **state)
{
	struct lab_matrix m;
	char err[256];

	(void)state;
	assert_int_equal(lab_matrix_parse("accel=tcg arch=x86_64,aarch64 disk=ide,ahci,lsi,virtio-blk,virtio-scsi,nvme "
					  "smp=1,2 mem=512M pin=off", &m, err, sizeof(err)), 0);
	assert_int_equal(m.n, 2 * 6 * 2);
	/* the first key varies slowest */
	assert_string_equal(m.configs[0].v[LAB_ARCH], "x86_64");
	assert_string_equal(m.configs[0].v[LAB_DISK], "ide");
	assert_string_equal(m.configs[0].v[LAB_SMP], "1");
	assert_string_equal(m.configs[1].v[LAB_SMP], "2");
	assert_string_equal(m.configs[2].v[LAB_DISK], "ahci");
	assert_string_equal(m.configs[12].v[LAB_ARCH], "aarch64");
	assert_string_equal(m.configs[0].v[LAB_NIC], "none"); /* a default */
	assert_true(m.given & (1u << LAB_DISK));
	assert_false(m.given & (1u << LAB_NIC));
	lab_matrix_release(&m);
	assert_int_equal(lab_matrix_parse("pin=on", &m, err, sizeof(err)), 0);
	assert_int_equal(m.n, 1);
	assert_string_equal(m.configs[0].v[LAB_DISK], "virtio-blk");
	lab_matrix_release(&m);
}

/* Products joined by '|': one after the other; the keys of any label all */
static void union_of_products(void **state)
{
	struct lab_matrix m;
	char err[256];

	(void)state;
	assert_int_equal(lab_matrix_parse("accel=tcg disk=ide,nvme | accel=tcg nic=e1000 |pin=on", &m, err, sizeof(err)), 0);
	assert_int_equal(m.n, 4);
	assert_string_equal(m.configs[0].v[LAB_DISK], "ide");
	assert_string_equal(m.configs[1].v[LAB_DISK], "nvme");
	assert_string_equal(m.configs[2].v[LAB_DISK], "virtio-blk"); /* the default, in the second part */
	assert_string_equal(m.configs[2].v[LAB_NIC], "e1000");
	assert_string_equal(m.configs[3].v[LAB_PIN], "on");
	assert_string_equal(m.configs[3].v[LAB_ACCEL], "auto");
	assert_true((m.given & (1u << LAB_DISK)) && (m.given & (1u << LAB_NIC)) && (m.given & (1u << LAB_PIN)));
	/* each configuration knows what its own part gave (--disk-cache fills cache where it gave none) */
	assert_true((m.configs[0].given & (1u << LAB_DISK)) && !(m.configs[0].given & (1u << LAB_NIC)));
	assert_true(!(m.configs[2].given & (1u << LAB_DISK)) && (m.configs[2].given & (1u << LAB_NIC)));
	lab_matrix_release(&m);
	/* a configuration twice, an empty part, a bad word in a later part */
	assert_int_equal(lab_matrix_parse("disk=ide,nvme | disk=nvme", &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "matrix: part 2 repeats disk=nvme of an earlier part"));
	assert_int_equal(m.n, 0);
	assert_int_equal(lab_matrix_parse("disk=ide |  | nic=e1000", &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "matrix: part 2 of those joined by '|' is empty"));
	assert_int_equal(lab_matrix_parse("disk=ide |", &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "part 2 of those joined by '|' is empty"));
	assert_int_equal(lab_matrix_parse(NULL, &m, err, sizeof(err)), -EINVAL); /* no spec: the empty matrix's message */
	assert_non_null(strstr(err, "matrix: empty"));
	assert_int_equal(lab_matrix_parse("disk=ide | disk=floppy", &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "disk=floppy is not known"));
	assert_null(m.configs);
	/* each part's checks: a topology that disagrees with the part's smp */
	assert_int_equal(lab_matrix_parse("accel=tcg smp=2 topology=1x2x1 | accel=tcg smp=1 topology=2x1x1", &m, err,
					  sizeof(err)), -EINVAL);
}

static void messages(void **state)
{
	static const struct {
		const char *spec, *msg;
	} cases[] = {
		{ "disk=scsi", "disk=scsi is not known; valid values of disk: virtio-blk, virtio-scsi, ide, ahci, lsi, nvme" },
		{ "nic=ne2k", "valid values of nic: none, virtio-net, e1000, e1000e, rtl8139, vmxnet3" },
		{ "fs=btrfs", "fs=btrfs is not known; valid values of fs: ext4, xfs, none" },
		{ "fs=", "matrix: 'fs' needs values, e.g. fs=ext4" },
		/* empty matrices and values were taken as "the defaults" */
		{ "", "matrix: empty; give KEY=VALUE,... words" },
		{ " \t ", "(valid keys: accel, arch, disk, fs, nic, smp, mem, pin" },
		{ "accel=,", "accel has an empty value; give accel=V1,V2 with values among auto, kvm, tcg" },
		{ "accel=tcg,", "accel has an empty value" },
		{ "smp=1,,1", "smp has an empty value; give smp=V1,V2 with values that are a vCPU count from 1 to 256" },
		{ "disk=,ide", "disk has an empty value" },
		{ "smp=1,2,1", "smp=1 is given twice" },
		{ "disk=ide,ide", "disk=ide is given twice" },
		{ "colour=red", "unknown key 'colour'; valid keys: accel, arch, disk, fs, nic, smp, mem, pin, netdir, cpu, "
				"topology, tcg, queues, nice, firmware" },
		/* the CPU side: each key's value against the configuration's other keys */
		{ "cpu=foo", "cpu=foo is no x86_64 CPU model the lab knows; x86_64 models: auto, max, host, qemu64, "
			     "Skylake-Server, EPYC" },
		{ "arch=aarch64 cpu=qemu64", "aarch64 models: auto, max, host, cortex-a72, cortex-a57, neoverse-n1" },
		{ "arch=x86_64,aarch64 cpu=cortex-a72", "cpu=cortex-a72 is no x86_64 CPU model" },
		{ "accel=tcg cpu=host", "cpu=host is the host's own CPU, which needs accel=kvm (accel=tcg emulates it)" },
		{ "cpu=host", "needs accel=kvm (accel=auto may emulate the guest)" },
		{ "accel=kvm arch=aarch64 cpu=cortex-a57", "cpu=cortex-a57 runs under accel=tcg only" },
		{ "cpu=a b", "unknown key 'b'" },
		{ "accel=tcg smp=2 topology=2x2x1", "topology=2x2x1 makes 4 vCPUs, smp=2" },
		{ "accel=tcg smp=1,2 topology=1x2x1", "topology=1x2x1 makes 2 vCPUs, smp=1" },
		{ "smp=2 topology=2x1", "topology=2x1 is not SOCKETSxCORESxTHREADS" },
		{ "smp=2 topology=0x2x1", "is not SOCKETSxCORESxTHREADS (each 1 to 256" },
		{ "smp=2 topology=1x2x1x1", "is not SOCKETSxCORESxTHREADS" },
		{ "smp=2 topology=1x02x1x", "is not SOCKETSxCORESxTHREADS" },
		{ "smp=2 topology=x2x1", "is not SOCKETSxCORESxTHREADS" },
		{ "tcg=single", "tcg=single says how TCG runs the vCPUs, and accel=auto may pick KVM; give accel=tcg" },
		{ "accel=kvm,tcg tcg=multi", "tcg=multi says how TCG runs the vCPUs, and accel=kvm has no TCG" },
		{ "tcg=threaded", "valid values of tcg: multi, single" },
		{ "nic=e1000 queues=2", "queues=2 needs a NIC model that takes several queues (virtio-net), not nic=e1000" },
		{ "queues=2", "not nic=none" },
		{ "queues=9", "queues takes a count of NIC queue pairs from 1 to 8" },
		{ "queues=0", "queues takes a count" },
		{ "nice=20", "nice takes QEMU's nice value from -20 to 19" },
		{ "nice=-21", "nice takes QEMU's nice value from -20 to 19" },
		{ "firmware=bios", "firmware=bios is not known on x86_64; valid values of firmware there: default, uefi" },
		{ "boot=floppy", "valid values of boot: kernel, cdrom" },
		{ "boot=cdrom image=debian nic=virtio-net", "boot=cdrom needs image=busybox, not image=debian" },
		{ "boot=kernel,cdrom nic=e1000", "boot=cdrom needs nic=none, not nic=e1000" },
		{ "boot=cdrom firmware=uefi", "boot=cdrom needs firmware=default, not firmware=uefi" },
		{ "boot=cdrom disk=usb-xhci", "boot=cdrom cannot boot disk=usb-xhci: a USB disk appears after its bus" },
		{ "boot=kernel,cdrom disk=usb-ehci", "boot=cdrom cannot boot disk=usb-ehci" },
		{ "arch=riscv64", "valid values of arch: x86_64, aarch64" },
		{ "smp=0", "smp takes a vCPU count from 1 to 256" },
		{ "mem=1k", "mem takes a memory size from 64M" },
		/* the guest's nginx: loaded from the host, in the image that has it */
		{ "image=debian-apps nic=virtio-net httpd=nginx", "httpd=nginx is a server in the guest that the host's "
		  "net.http loads: give netdir=guest-server with it (netdir=guest-client runs the client in the guest)" },
		{ "image=debian nic=virtio-net netdir=guest-server httpd=nginx", "httpd=nginx needs nginx-light in the "
		  "guest, which image=debian does not have: give image=debian-apps" },
		{ "nic=virtio-net netdir=guest-server httpd=apache", "valid values of httpd: serve, nginx" },
		{ "image=debian nic=virtio-net db=mariadb", "db=mariadb needs mariadb-server in the guest, which "
		  "image=debian does not have: give image=debian-apps" },
		{ "db=postgresql", "valid values of db: sqlite, mariadb" },
		{ "disk", "'disk' needs values" },
		{ "disk=ide disk=nvme", "disk is given twice" },
		{ "smp=1,2,3,4 mem=64M,128M,256M,512M,1G,2G,4G,8G,16G,32G,64G,128G,256G,512G,1T,96M disk=ide,ahci,lsi,nvme,"
		  "virtio-blk,virtio-scsi arch=x86_64,aarch64 nic=e1000,e1000e,rtl8139,vmxnet3,virtio-net,none pin=on,off",
		  "at most 4096" },
	};
	struct lab_matrix m;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		assert_true(lab_matrix_parse(cases[i].spec, &m, err, sizeof(err)) < 0);
		if (!strstr(err, cases[i].msg))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err, cases[i].msg);
	}
}

/* The application table's server: httpd=nginx in the image that installs
 * it, loaded from the host; an image's packages matched as whole names. */
static void httpd_rows(void **state)
{
	struct lab_matrix m;
	char err[256];
	const struct lab_image_row apps = { .name = "x", .packages = "nginx-light,mariadb-server" };

	(void)state;
	assert_int_equal(lab_matrix_parse("image=debian-apps nic=virtio-net netdir=guest-server httpd=serve,nginx", &m,
					  err, sizeof(err)), 0);
	assert_int_equal(m.n, 2);
	assert_int_equal(lab_config_httpd(&m.configs[0])->port, 0);
	assert_int_equal(lab_config_httpd(&m.configs[1])->port, 80);
	assert_string_equal(lab_config_httpd(&m.configs[1])->path, "/");
	assert_true(lab_image_has(lab_config_image(&m.configs[1]), "nginx-light"));
	lab_matrix_release(&m);
	assert_true(lab_image_has(&apps, "mariadb-server") && lab_image_has(&apps, "nginx-light"));
	assert_false(lab_image_has(&apps, "nginx") || lab_image_has(&apps, "mariadb") || lab_image_has(&apps, ""));
	assert_false(lab_image_has(&lab_images[0], "nginx-light")); /* busybox */
	/* db=mariadb: app.db is the guest's MariaDB over its socket */
	assert_int_equal(lab_matrix_parse("image=debian-apps nic=virtio-net db=sqlite,mariadb", &m, err, sizeof(err)), 0);
	assert_null(lab_config_db(&m.configs[0])->url);
	assert_string_equal(lab_config_db(&m.configs[1])->url,
			    "mysql://vmbench:vmbench@localhost/vmbench");
	lab_matrix_release(&m);
}

/* The valid values an error message lists stay inside their buffer, however
 * long the device table's list grows. */
/* --baseline's pairs and the lab's selectors: what names a configuration. */
static void naming_configurations(void **state)
{
	static const struct {
		const char *spec, *pairs; /* pairs joined by '|', or NULL: refused with err containing why */
		const char *why;
	} cases[] = {
		{ "disk=ide", "disk=ide", NULL },
		{ "disk=ide,accel=tcg", "disk=ide|accel=tcg", NULL },
		{ " accel=tcg  disk=ide ", "accel=tcg|disk=ide", NULL }, /* a configuration's name as printed */
		{ "colour=red", NULL, "colour is no matrix key; keys: accel, arch" },
		{ "disk", NULL, "'disk' is not KEY=VALUE" },
		{ "disk=a=b", NULL, "'disk=a=b' is not KEY=VALUE" },
		{ "=ide", NULL, "is not KEY=VALUE" },
		{ " , ", NULL, "no KEY=VALUE" },
	};
	static const struct {
		const char *sel, *want;
	} selectors[] = {
		{ "disk=ide", "disk=ide" },
		{ "accel=tcg disk=ide", "accel=tcg,disk=ide" },
		{ "config=accel=tcg disk=ide", "accel=tcg,disk=ide" }, /* the label of before */
		{ "config=host", "config=host" },
		{ " ,a=b,, c=d ", "a=b,c=d" },
	};
	struct lab_matrix m;
	char err[512];

	(void)state;
	assert_int_equal(lab_matrix_parse("accel=tcg disk=ide,virtio-blk", &m, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strv p = { 0 };
		char joined[256] = "";
		size_t off = 0;
		int r = lab_pairs_parse(cases[i].spec, &p, err, sizeof(err));

		for (size_t k = 0; k < p.n; k++)
			str_appendf(joined, sizeof(joined), &off, "%s%s", k ? "|" : "", p.v[k]);
		if (cases[i].pairs ? r != 0 || strcmp(joined, cases[i].pairs) : r != -EINVAL || !strstr(err, cases[i].why))
			fail_msg("'%s': %d '%s' (%s)", cases[i].spec, r, joined, r ? err : "");
		/* disk=ide names the first configuration only */
		if (r == 0 && !strcmp(cases[i].spec, "disk=ide"))
			assert_true(lab_config_matches(&m.configs[0], &p) && !lab_config_matches(&m.configs[1], &p));
		strv_clear(&p);
	}
	for (size_t i = 0; i < sizeof(selectors) / sizeof(selectors[0]); i++) {
		char *got = lab_selector(selectors[i].sel);

		if (!got || strcmp(got, selectors[i].want))
			fail_msg("'%s': '%s', expected '%s'", selectors[i].sel, got ? got : "(null)", selectors[i].want);
		free(got);
	}
	lab_matrix_release(&m);
}

static void value_lists(void **state)
{
	static const struct {
		const char *spaced;
		size_t len;
		const char *text;
	} cases[] = {
		{ " a b c", 8, "a, b, c" },                          /* exact fit */
		{ " a b cd", 8, "a, b..." },                         /* one over */
		{ " ide ahci lsi nvme virtio-blk virtio-scsi", 12, "ide, ahc..." }, /* far over */
		{ " ide ahci", 3, "id" },
		{ "", 8, "" },
		{ " a", 1, "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[64];

		memset(buf, 'Z', sizeof(buf));
		lab_values_text(cases[i].spaced, buf, cases[i].len);
		if (strcmp(buf, cases[i].text))
			fail_msg("case %zu: \"%s\", expected \"%s\"", i, buf, cases[i].text);
		for (size_t b = cases[i].len; b < sizeof(buf); b++)
			if (buf[b] != 'Z')
				fail_msg("case %zu: byte %zu written past len %zu", i, b, cases[i].len);
	}
}

/* A configuration with these values (accel, arch, disk, nic, smp, mem). */
static struct lab_config config_of(const char *accel, const char *arch, const char *disk, const char *nic,
				   const char *smp, const char *mem)
{
	struct lab_matrix m;
	struct lab_config c;
	char err[256];

	/* the other keys' defaults, from the key table */
	assert_int_equal(lab_matrix_parse("pin=off", &m, err, sizeof(err)), 0);
	c = m.configs[0];
	lab_matrix_release(&m);
	lab_config_set(&c, LAB_ACCEL, accel);
	lab_config_set(&c, LAB_ARCH, arch);
	lab_config_set(&c, LAB_DISK, disk);
	lab_config_set(&c, LAB_NIC, nic);
	lab_config_set(&c, LAB_SMP, smp);
	lab_config_set(&c, LAB_MEM, mem);
	return c;
}

static void command_lines(void **state)
{
	static const struct {
		const char *arch, *disk, *machine, *device, *driver;
	} cases[] = {
		{ "x86_64", "ide", "pc", "ide-hd,drive=d0,bus=ide.0", "ata_piix" },
		{ "x86_64", "ahci", "q35", "ide-hd,drive=d0,bus=ahci0.0", "ahci" },
		{ "x86_64", "lsi", "q35", "lsi53c895a,id=scsi0", "sym53c8xx" },
		{ "x86_64", "virtio-blk", "q35", "virtio-blk-pci,drive=d0", "virtio_blk" },
		{ "x86_64", "virtio-scsi", "q35", "virtio-scsi-pci,id=scsi0", "virtio_scsi" },
		{ "x86_64", "nvme", "q35", "nvme,drive=d0,serial=vmbench0", "nvme" },
		{ "aarch64", "virtio-blk", "virt,gic-version=max", "virtio-blk-pci,drive=d0", "virtio_blk" },
		{ "aarch64", "ahci", "virt,gic-version=max", "ich9-ahci,id=ahci0", "ahci" },
		{ "aarch64", "virtio-scsi", "virt,gic-version=max", "virtio-scsi-pci,id=scsi0", "virtio_scsi" },
		{ "aarch64", "nvme", "virt,gic-version=max", "nvme,drive=d0,serial=vmbench0", "nvme" },
		/* VMware's and VirtualBox's SCSI controllers, as QEMU emulates them */
		{ "x86_64", "pvscsi", "q35", "pvscsi,id=scsi0", "vmw_pvscsi" },
		{ "x86_64", "megasas", "q35", "megasas,id=scsi0", "megaraid_sas" },
		{ "x86_64", "mptsas1068", "q35", "mptsas1068,id=scsi0", "mptsas" },
		{ "aarch64", "megasas", "virt,gic-version=max", "scsi-hd,drive=d0,bus=scsi0.0", "megaraid_sas" },
		{ "aarch64", "mptsas1068", "virt,gic-version=max", "mptsas1068,id=scsi0", "mptsas" },
	};
	struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/d.img", .qmp_socket = "/q", .agent_socket = "/a",
			       .console_log = "/c" };
	char why[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lab_config c;
		struct strv a = { 0 };

		c = config_of("tcg", cases[i].arch, cases[i].disk, "none", "2", "512M");
		assert_int_equal(lab_qemu_argv(&c, &p, &a, why, sizeof(why)), 0);
		assert_string_equal(a.v[0], !strcmp(cases[i].arch, "x86_64") ? "qemu-system-x86_64" : "qemu-system-aarch64");
		if (!has_pair(&a, "-machine", cases[i].machine) || !has_pair(&a, "-device", cases[i].device))
			fail_msg("case %zu: machine %s / device %s missing", i, cases[i].machine, cases[i].device);
		assert_true(has_pair(&a, "-accel", "tcg,thread=multi"));
		if (!strcmp(cases[i].arch, "x86_64")) {
			assert_true(has_pair(&a, "-cpu", "max"));
			assert_true(has_pair(&a, "-append", "console=ttyS0 earlyprintk=serial,ttyS0,115200 panic=-1 "
							     "vmbench.agent=/dev/hvc0 vmbench.disks=1"));
		} else {
			/* QARMA pointer authentication is the slow part of an emulated max CPU */
			assert_true(has_pair(&a, "-cpu", "max,pauth-impdef=on"));
			assert_true(has_pair(&a, "-append", "console=ttyAMA0 earlycon=pl011,0x9000000 panic=-1 "
							     "vmbench.agent=/dev/hvc0 vmbench.disks=1"));
		}
		assert_true(has_pair(&a, "-smp", "2"));
		assert_true(has_pair(&a, "-drive", "file=/d.img,format=raw,if=none,id=d0,cache=none"));
		assert_true(has_pair(&a, "-qmp", "unix:/q,server=on,wait=off"));
		assert_string_equal(lab_expected_disk_driver(&c), cases[i].driver);
		strv_clear(&a);
	}
	{
		/* KVM uses the host CPU; arm has no IDE; auto must be resolved first */
		struct lab_config c;
		struct strv a = { 0 };

		c = config_of("kvm", "x86_64", "virtio-blk", "e1000", "1", "1G");
		assert_int_equal(lab_qemu_argv(&c, &p, &a, why, sizeof(why)), 0);
		assert_true(has_pair(&a, "-cpu", "host"));
		assert_true(has_pair(&a, "-accel", "kvm"));
		assert_true(has_pair(&a, "-device", "e1000,netdev=n0"));
		strv_clear(&a);
		lab_config_set(&c, LAB_ARCH, "aarch64");
		lab_config_set(&c, LAB_DISK, "ide");
		assert_int_equal(lab_qemu_argv(&c, &p, &a, why, sizeof(why)), -EOPNOTSUPP);
		/* the models there are, from the table: a new row joins the list */
		assert_non_null(strstr(why, "the lab has no disk=ide on aarch64: QEMU lacks the model there, or Debian's "
					    "kernel its driver (disk models on aarch64: virtio-blk, virtio-scsi, ahci, lsi, nvme, "
					    "megasas, mptsas1068, usb-xhci)"));
		/* QEMU's virt machine has pvscsi; arm64's kernel has no vmw_pvscsi */
		lab_config_set(&c, LAB_DISK, "pvscsi");
		assert_int_equal(lab_qemu_argv(&c, &p, &a, why, sizeof(why)), -EOPNOTSUPP);
		assert_non_null(strstr(why, "the lab has no disk=pvscsi on aarch64"));
		strv_clear(&a);
		lab_config_set(&c, LAB_DISK, "virtio-blk");
		assert_int_equal(lab_qemu_argv(&c, &p, &a, why, sizeof(why)), 0);
		assert_string_equal(a.v[0], "qemu-system-aarch64");
		assert_true(has_pair(&a, "-cpu", "host"));
		strv_clear(&a);
		lab_config_set(&c, LAB_ACCEL, "auto");
		assert_int_equal(lab_qemu_argv(&c, &p, &a, why, sizeof(why)), -EINVAL);
		strv_clear(&a);
	}
}

/* The USB disks (Study 0, 0.12's stand-in): the controller(s), then a
 * usb-storage on the scratch drive on its bus, in that order (QEMU finds a
 * companion's masterbus and the storage's bus only once made); ICH9's
 * EHCI with its UHCI companions as functions of one slot; the modules in
 * load order (EHCI's before UHCI's, as Linux wants them); a row an
 * architecture lacks (usb-ehci on aarch64: no uhci_hcd in arm64's kernel)
 * refused at the plan with why. */
static void usb_disks(void **state)
{
	static const struct {
		const char *arch, *disk, *machine, *driver;
		const char *devices[6]; /* every -device of the model, in order */
		const char *modules[6]; /* the model's, after the base ones */
	} cases[] = {
		{ "x86_64", "usb-xhci", "q35", "xhci_hcd",
		  { "qemu-xhci,id=usb0", "usb-storage,drive=d0,bus=usb0.0" },
		  { "xhci_pci", "usb_storage", "sd_mod" } },
		{ "aarch64", "usb-xhci", "virt,gic-version=max", "xhci_hcd",
		  { "qemu-xhci,id=usb0", "usb-storage,drive=d0,bus=usb0.0" },
		  { "xhci_pci", "usb_storage", "sd_mod" } },
		{ "x86_64", "usb-ehci", "q35", "ehci-pci",
		  { "ich9-usb-ehci1,id=ehci0,multifunction=on,addr=1d.7",
		    "ich9-usb-uhci1,masterbus=ehci0.0,firstport=0,multifunction=on,addr=1d.0",
		    "ich9-usb-uhci2,masterbus=ehci0.0,firstport=2,multifunction=on,addr=1d.1",
		    "ich9-usb-uhci3,masterbus=ehci0.0,firstport=4,multifunction=on,addr=1d.2",
		    "usb-storage,drive=d0,bus=ehci0.0" },
		  { "ehci_pci", "uhci_hcd", "usb_storage", "sd_mod" } },
	};
	struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/d.img", .qmp_socket = "/q", .agent_socket = "/a",
			       .console_log = "/c" };
	char why[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lab_config c = config_of("tcg", cases[i].arch, cases[i].disk, "none", "1", "512M");
		struct strv a = { 0 }, mods = { 0 };
		size_t at = 0, n = 0;

		lab_config_set(&c, LAB_FS, "none");
		assert_int_equal(lab_qemu_argv(&c, &p, &a, why, sizeof(why)), 0);
		assert_true(has_pair(&a, "-machine", cases[i].machine));
		assert_true(has_pair(&a, "-drive", "file=/d.img,format=raw,if=none,id=d0,cache=none"));
		/* the guest's init waits for the one disk, which USB enumerates late */
		for (size_t k = 0; k + 1 < a.n; k++)
			if (!strcmp(a.v[k], "-append") && !strstr(a.v[k + 1], " vmbench.disks=1"))
				fail_msg("%s on %s: -append '%s' has no vmbench.disks=1", cases[i].disk, cases[i].arch, a.v[k + 1]);
		/* the model's devices, in the row's order, none left out */
		for (size_t k = 0; k + 1 < a.n; k++)
			if (!strcmp(a.v[k], "-device") && cases[i].devices[at] && !strcmp(a.v[k + 1], cases[i].devices[at]))
				at++;
		while (cases[i].devices[n])
			n++;
		if (at != n)
			fail_msg("%s on %s: -device %s missing or out of order", cases[i].disk, cases[i].arch,
				 cases[i].devices[at]);
		assert_string_equal(lab_expected_disk_driver(&c), cases[i].driver);
		assert_int_equal(lab_config_modules(&c, &mods), 0);
		for (n = 0; cases[i].modules[n]; n++) {
			assert_true(2 + n < mods.n);
			assert_string_equal(mods.v[2 + n], cases[i].modules[n]);
		}
		assert_int_equal(mods.n, 2 + n);
		strv_clear(&mods);
		strv_clear(&a);
	}
	{
		struct lab_config c = config_of("tcg", "aarch64", "usb-ehci", "none", "1", "512M");
		struct strv a = { 0 };

		assert_int_equal(lab_qemu_argv(&c, &p, &a, why, sizeof(why)), -EOPNOTSUPP);
		assert_non_null(strstr(why, "the lab has no disk=usb-ehci on aarch64"));
		assert_non_null(strstr(why, "usb-xhci)"));
		assert_true(lab_config_unsupported(&c, why, sizeof(why)));
		strv_clear(&a);
	}
}

/* The CPU side of the matrix, a row per key value: what each puts on QEMU's
 * command line (and what a configuration it cannot build says). */
static void cpu_side_arguments(void **state)
{
	static const struct {
		const char *spec, *backend, *opt, *val; /* backend: the NIC's; val NULL: refused, opt in why */
		int r;
	} cases[] = {
		{ "accel=tcg", NULL, "-cpu", "max", 0 },
		{ "accel=tcg arch=aarch64", NULL, "-cpu", "max,pauth-impdef=on", 0 },
		{ "accel=kvm", NULL, "-cpu", "host", 0 },
		{ "accel=kvm cpu=max", NULL, "-cpu", "max", 0 },
		{ "accel=kvm cpu=host", NULL, "-cpu", "host", 0 },
		{ "accel=tcg cpu=qemu64", NULL, "-cpu", "qemu64", 0 },
		{ "accel=kvm cpu=EPYC", NULL, "-cpu", "EPYC", 0 },
		{ "accel=tcg cpu=Skylake-Server", NULL, "-cpu", "Skylake-Server", 0 },
		{ "accel=tcg arch=aarch64 cpu=max", NULL, "-cpu", "max", 0 },
		{ "accel=tcg arch=aarch64 cpu=cortex-a72", NULL, "-cpu", "cortex-a72", 0 },
		{ "accel=tcg arch=aarch64 cpu=neoverse-n1", NULL, "-cpu", "neoverse-n1", 0 },
		{ "accel=tcg smp=3", NULL, "-smp", "3", 0 },
		{ "accel=tcg smp=4 topology=2x2x1", NULL, "-smp", "4,sockets=2,cores=2,threads=1", 0 },
		{ "accel=tcg smp=8 topology=1x4x2 arch=aarch64", NULL, "-smp", "8,sockets=1,cores=4,threads=2", 0 },
		{ "accel=tcg", NULL, "-accel", "tcg,thread=multi", 0 },
		{ "accel=tcg tcg=single", NULL, "-accel", "tcg,thread=single", 0 },
		{ "accel=tcg tcg=multi", NULL, "-accel", "tcg,thread=multi", 0 },
		{ "accel=kvm", NULL, "-accel", "kvm", 0 },
		{ "accel=tcg nic=virtio-net", "tap", "-netdev", "tap,id=n0,fd=10", 0 },
		{ "accel=tcg nic=virtio-net", "tap", "-device", "virtio-net-pci,netdev=n0", 0 },
		{ "accel=tcg nic=virtio-net queues=4", "tap", "-device", "virtio-net-pci,netdev=n0,mq=on,vectors=10", 0 },
		{ "accel=tcg nic=virtio-net queues=4", "tap", "-netdev", "tap,id=n0,fds=10:11:12:13", 0 },
		{ "accel=tcg nic=virtio-net queues=2", "tap+vhost", "-netdev", "tap,id=n0,fds=10:11,vhost=on", 0 },
		{ "accel=tcg nic=virtio-net queues=2", "user", "user", NULL, -EOPNOTSUPP },
		{ "accel=tcg firmware=uefi", NULL, "-drive", "if=pflash,format=raw,unit=0,readonly=on,"
							    "file=/usr/share/OVMF/OVMF_CODE.fd", 0 },
		{ "accel=tcg firmware=uefi", NULL, "-drive", "if=pflash,format=raw,unit=1,file=/v", 0 },
		{ "accel=tcg arch=aarch64 firmware=uefi", NULL, "-bios", "/usr/share/qemu-efi-aarch64/QEMU_EFI.fd", 0 },
		{ "accel=tcg firmware=default", NULL, "-bios", NULL, 0 },
		/* boot=cdrom: the ISO first in the boot order, and no kernel of QEMU's */
		{ "accel=tcg boot=cdrom", NULL, "-drive", "if=none,id=bootcd,media=cdrom,readonly=on,file=/b.iso", 0 },
		{ "accel=tcg boot=cdrom", NULL, "-device", "ide-cd,drive=bootcd,bus=ide.1,bootindex=0", 0 },
		{ "accel=tcg boot=cdrom", NULL, "-kernel", NULL, 0 },
		{ "accel=tcg boot=cdrom", NULL, "-append", NULL, 0 },
		{ "accel=tcg boot=cdrom disk=ide", NULL, "-device", "ide-hd,drive=d0,bus=ide.0", 0 },
		{ "accel=tcg boot=kernel", NULL, "-kernel", "/k", 0 },
	};
	struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/d.img", .qmp_socket = "/q", .agent_socket = "/a",
			       .console_log = "/c", .fw_vars = "/v", .boot_file = "/b.iso" };
	char why[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lab_matrix m;
		struct strv a = { 0 };
		int r;

		assert_int_equal(lab_matrix_parse(cases[i].spec, &m, why, sizeof(why)), 0);
		p.backend[LAB_NIC] = cases[i].backend;
		r = lab_qemu_argv(&m.configs[0], &p, &a, why, sizeof(why));
		if (r != cases[i].r)
			fail_msg("case %zu (%s): %d, expected %d (%s)", i, cases[i].spec, r, cases[i].r, why);
		else if (r < 0 && !strstr(why, cases[i].opt))
			fail_msg("case %zu (%s): '%s' lacks '%s'", i, cases[i].spec, why, cases[i].opt);
		else if (r == 0 && cases[i].val && !has_pair(&a, cases[i].opt, cases[i].val))
			fail_msg("case %zu (%s): no %s %s", i, cases[i].spec, cases[i].opt, cases[i].val);
		else if (r == 0 && !cases[i].val)
			for (size_t k = 0; k < a.n; k++)
				if (!strcmp(a.v[k], cases[i].opt))
					fail_msg("case %zu (%s): %s given", i, cases[i].spec, cases[i].opt);
		strv_clear(&a);
		lab_matrix_release(&m);
	}
	p.backend[LAB_NIC] = NULL;
	{
		/* the guest's agent is told the queues; a firmware needs this boot's variable store */
		struct lab_matrix m;
		struct strv a = { 0 };
		const char *append = NULL;

		assert_int_equal(lab_matrix_parse("accel=tcg nic=virtio-net queues=3", &m, why, sizeof(why)), 0);
		p.backend[LAB_NIC] = "tap";
		assert_int_equal(lab_qemu_argv(&m.configs[0], &p, &a, why, sizeof(why)), 0);
		for (size_t k = 0; k + 1 < a.n; k++)
			if (!strcmp(a.v[k], "-append"))
				append = a.v[k + 1];
		assert_non_null(append);
		assert_non_null(strstr(append, " vmbench.queues=3"));
		assert_int_equal(lab_config_queues(&m.configs[0]), 3);
		assert_non_null(lab_config_mq(&m.configs[0]));
		strv_clear(&a);
		lab_matrix_release(&m);
		p.backend[LAB_NIC] = NULL;
		assert_int_equal(lab_matrix_parse("accel=tcg firmware=uefi", &m, why, sizeof(why)), 0);
		p.fw_vars = NULL;
		assert_int_equal(lab_qemu_argv(&m.configs[0], &p, &a, why, sizeof(why)), -EINVAL);
		assert_non_null(strstr(why, "no variable store"));
		strv_clear(&a);
		/* OVMF loads the bzImage, not the PVH vmlinux; the kernel's first words end the firmware phase */
		assert_string_equal(lab_config_firmware(&m.configs[0])->kernel, "vmlinuz");
		assert_string_equal(lab_config_firmware(&m.configs[0])->mark, LAB_EFI_STUB_MARK);
		lab_matrix_release(&m);
		/* accel=auto resolved to KVM, under a model TCG alone runs: skipped with why */
		assert_int_equal(lab_matrix_parse("arch=aarch64 cpu=cortex-a72", &m, why, sizeof(why)), 0);
		lab_config_set(&m.configs[0], LAB_ACCEL, "kvm");
		assert_int_equal(lab_qemu_argv(&m.configs[0], &p, &a, why, sizeof(why)), -EOPNOTSUPP);
		assert_non_null(strstr(why, "cpu=cortex-a72 does not run under accel=kvm"));
		strv_clear(&a);
		lab_matrix_release(&m);
	}
}

/* A path inside an option list of QEMU's (KEY=VALUE,KEY=VALUE) has each
 * comma doubled, QEMU's escape, or a lone comma would end the value and
 * begin an option of its own (/tmp/a,b opened /tmp/a); virtiofsd's -o list
 * takes libfuse's backslash. A path that is an argument of its own
 * (-kernel, -serial file:) is taken whole by QEMU: never escaped. */
static void paths_with_commas(void **state)
{
	static const struct {
		enum lab_opt_syntax syntax;
		const char *in, *out;
		size_t len;
		int r;
	} esc[] = {
		{ LAB_OPT_QEMU, "/tmp/a", "/tmp/a", 64, 0 },
		{ LAB_OPT_QEMU, "/tmp/a,b", "/tmp/a,,b", 64, 0 },
		{ LAB_OPT_QEMU, ",a,,b,", ",,a,,,,b,,", 64, 0 },
		{ LAB_OPT_QEMU, "/a b\\c=d&e", "/a b\\c=d&e", 64, 0 },
		{ LAB_OPT_QEMU, "", "", 1, 0 },
		/* a,,b and its NUL: 5 bytes, never cut short */
		{ LAB_OPT_QEMU, "a,b", "a,,b", 5, 0 },
		{ LAB_OPT_QEMU, "a,b", "", 4, -ENAMETOOLONG },
		{ LAB_OPT_QEMU, "ab", "", 0, -ENAMETOOLONG },
		{ LAB_OPT_FUSE, "/tmp/a,b", "/tmp/a\\,b", 64, 0 },
		{ LAB_OPT_FUSE, "/tmp/a\\b", "/tmp/a\\\\b", 64, 0 },
	};
	static const struct {
		const char *s, *key, *out;
		int r;
	} get[] = {
		{ "file=/d.img,format=raw,if=none,id=d0", "file", "/d.img", 0 },
		{ "file=/d.img,format=raw,if=none,id=d0", "format", "raw", 0 },
		/* a path's ",format=qcow2" is the path's, not an option */
		{ "file=/tmp/a,,format=qcow2,format=raw", "file", "/tmp/a,format=qcow2", 0 },
		{ "file=/tmp/a,,format=qcow2,format=raw", "format", "raw", 0 },
		{ "if=none,file=/a,,,,b,cache=none", "file", "/a,,b", 0 },
		{ "if=none,file=/a,,,,b,cache=none", "cache", "none", 0 },
		{ "if=none", "file", "", -ENOENT },
		{ "xfile=/a,,file", "file", "", -ENOENT },
		{ "file=/abcdefghijklmnopqrstuvwxyz", "file", "", -ENAMETOOLONG },
	};
	static const struct {
		const char *spec, *opt, *val;
	} lines[] = {
		{ "accel=tcg", "-drive", "file=/w,,1/d.img,format=raw,if=none,id=d0,cache=none" },
		{ "accel=tcg", "-qmp", "unix:/w,,1/q.sock,server=on,wait=off" },
		{ "accel=tcg", "-chardev", "socket,id=agent,path=/w,,1/a.sock,server=on,wait=off" },
		{ "accel=tcg", "-serial", "file:/w,1/console.log" },
		{ "accel=tcg", "-kernel", "/img,1/vmlinuz" },
		{ "accel=tcg", "-initrd", "/img,1/initrd.img" },
		{ "accel=tcg firmware=uefi", "-drive", "if=pflash,format=raw,unit=1,file=/w,,1/vars.fd" },
		{ "accel=tcg boot=cdrom", "-drive", "if=none,id=bootcd,media=cdrom,readonly=on,file=/img,,1/vmbench.iso" },
		{ "accel=tcg share=9p", "-fsdev", "local,id=s0,path=/w,,1/share,security_model=none" },
		{ "accel=tcg share=virtiofs", "-chardev", "socket,id=s0,path=/w,,1/virtiofsd.sock" },
	};
	struct lab_paths p = { .kernel = "/img,1/vmlinuz", .initrd = "/img,1/initrd.img", .disk = "/w,1/d.img",
			       .qmp_socket = "/w,1/q.sock", .agent_socket = "/w,1/a.sock", .console_log = "/w,1/console.log",
			       .fw_vars = "/w,1/vars.fd", .boot_file = "/img,1/vmbench.iso", .work_dir = "/w,1" };
	char why[512], out[64];

	(void)state;
	for (size_t i = 0; i < sizeof(esc) / sizeof(esc[0]); i++) {
		int r = lab_opt_escape(esc[i].syntax, esc[i].in, out, esc[i].len);

		if (r != esc[i].r || (esc[i].len && strcmp(out, esc[i].out)))
			fail_msg("escape %zu '%s': %d '%s', expected %d '%s'", i, esc[i].in, r, esc[i].len ? out : "",
				 esc[i].r, esc[i].out);
	}
	for (size_t i = 0; i < sizeof(get) / sizeof(get[0]); i++) {
		char val[24] = "";
		int r = lab_opt_get(get[i].s, get[i].key, val, sizeof(val));

		if (r != get[i].r || (r == 0 && strcmp(val, get[i].out)))
			fail_msg("get %zu %s of '%s': %d '%s', expected %d '%s'", i, get[i].key, get[i].s, r, val,
				 get[i].r, get[i].out);
	}
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct lab_matrix m;
		struct strv a = { 0 };

		assert_int_equal(lab_matrix_parse(lines[i].spec, &m, why, sizeof(why)), 0);
		memset(p.backend, 0, sizeof(p.backend));
		lab_backends_own(&m.configs[0], p.backend);
		if (lab_qemu_argv(&m.configs[0], &p, &a, why, sizeof(why)) < 0)
			fail_msg("case %zu (%s): %s", i, lines[i].spec, why);
		if (!has_pair(&a, lines[i].opt, lines[i].val))
			fail_msg("case %zu (%s): no %s %s", i, lines[i].spec, lines[i].opt, lines[i].val);
		strv_clear(&a);
		lab_matrix_release(&m);
	}
}

/* thp=: the guest kernel's transparent_hugepage= on its command line (none
 * for default), and the mode the guest's sysfs shows checked against it. */
static void thp_key(void **state)
{
	static const struct {
		const char *spec, *append; /* append: NULL, no transparent_hugepage= at all */
	} cases[] = {
		{ "accel=tcg", NULL },
		{ "accel=tcg thp=default", NULL },
		{ "accel=tcg thp=always mem=1G", " transparent_hugepage=always" },
		{ "accel=tcg thp=madvise mem=640M", " transparent_hugepage=madvise" },
		{ "accel=tcg thp=never arch=aarch64", " transparent_hugepage=never" },
	};
	struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/d.img", .qmp_socket = "/q", .agent_socket = "/a",
			       .console_log = "/c", .fw_vars = "/v" };
	char why[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lab_matrix m;
		struct strv a = { 0 };
		const char *append = NULL;

		assert_int_equal(lab_matrix_parse(cases[i].spec, &m, why, sizeof(why)), 0);
		assert_int_equal(lab_qemu_argv(&m.configs[0], &p, &a, why, sizeof(why)), 0);
		for (size_t k = 0; k + 1 < a.n; k++)
			if (!strcmp(a.v[k], "-append"))
				append = a.v[k + 1];
		assert_non_null(append);
		if (cases[i].append ? !strstr(append, cases[i].append) : !!strstr(append, "transparent_hugepage"))
			fail_msg("%s: -append %s", cases[i].spec, append);
		strv_clear(&a);
		lab_matrix_release(&m);
	}
	assert_int_equal(lab_matrix_parse("thp=huge", &(struct lab_matrix){ 0 }, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "always"));
	/* below 512 MiB of RAM Linux turns THP off whatever the command line says
	 * (a busybox guest of mem=512M showed never under thp=always) */
	assert_int_equal(lab_matrix_parse("thp=always", &(struct lab_matrix){ 0 }, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "thp=always needs mem=640M or more (mem=512M)"));
	assert_int_equal(lab_matrix_parse("thp=madvise mem=639M", &(struct lab_matrix){ 0 }, why, sizeof(why)), -EINVAL);
	{
		/* the guest shows the mode it booted with, or the check says what it shows */
		struct lab_matrix m;
		const char *scratch;
		json_t *fp = json_pack("{s:s, s:{s:i}, s:{s:s}}", "arch", "x86_64", "cpu", "logical", 1, "thp", "enabled",
				       "always");

		assert_non_null(fp);
		assert_int_equal(lab_matrix_parse("accel=tcg thp=never", &m, why, sizeof(why)), 0);
		assert_int_equal(lab_check_guest(&m.configs[0], fp, &p, &scratch, why, sizeof(why)), -EPROTO);
		assert_non_null(strstr(why, "the guest's transparent huge pages are always, thp=never asked for never"));
		lab_matrix_release(&m);
		/* the same mode: no word of THP (the check goes on to the devices) */
		assert_int_equal(lab_matrix_parse("accel=tcg thp=always mem=1G", &m, why, sizeof(why)), 0);
		why[0] = '\0';
		(void)lab_check_guest(&m.configs[0], fp, &p, &scratch, why, sizeof(why));
		assert_null(strstr(why, "transparent huge pages"));
		lab_matrix_release(&m);
		json_decref(fp);
	}
}

/* A net item's options from the host's side of the link: the serve, and
 * the guest's memcached for net.memcached (image=debian-apps with
 * netdir=guest-server); a URL only when the guest has an HTTP server. */
static void net_item_opts(void **state)
{
	const struct vmb_suite *net = NULL;
	struct lab_net n = { .server = "10.251.0.2:5280", .memcached = "10.251.0.2:11211" };
	json_t *opts = json_object();

	(void)state;
	for (size_t i = 0; i < vmb_nsuites; i++)
		if (!strcmp(vmb_suites[i]->name, "net"))
			net = vmb_suites[i];
	assert_non_null(net);
	assert_non_null(opts);
	n.dir = (const struct lab_netdir *)&n; /* started: any direction's row */
	assert_int_equal(lab_net_item_opts(&n, net, opts), 0);
	assert_string_equal(json_string_value(json_object_get(opts, "net.server")), "10.251.0.2:5280");
	assert_string_equal(json_string_value(json_object_get(opts, "net.memcached-server")), "10.251.0.2:11211");
	assert_null(json_object_get(opts, "net.url"));
	json_object_clear(opts);
	n.memcached[0] = '\0';
	assert_int_equal(lab_net_item_opts(&n, net, opts), 0);
	assert_null(json_object_get(opts, "net.memcached-server"));
	json_decref(opts);
}

/* Every row of the CPU and firmware tables is a valid value of its key
 * on its architecture; the keys' defaults pass their checks. */
static void cpu_side_tables(void **state)
{
	static const struct {
		enum lab_key key;
		const char *value;
	} defaults[] = {
		{ LAB_CPU, "auto" }, { LAB_TOPOLOGY, "default" }, { LAB_TCG, "multi" },
		{ LAB_QUEUES, "1" }, { LAB_NICE, "0" }, { LAB_FIRMWARE, "default" },
	};
	char spec[128], why[512];
	struct lab_matrix m;

	(void)state;
	for (size_t i = 0; i < lab_ncpus; i++) {
		snprintf(spec, sizeof(spec), "arch=%s cpu=%s accel=%s", lab_cpus[i].arch, lab_cpus[i].name,
			 lab_cpus[i].tcg ? "tcg" : "kvm");
		if (lab_matrix_parse(spec, &m, why, sizeof(why)) < 0)
			fail_msg("%s: %s", spec, why);
		assert_ptr_equal(lab_config_cpu(&m.configs[0]), &lab_cpus[i]);
		lab_matrix_release(&m);
	}
	for (size_t i = 0; i < lab_nfirmwares; i++) {
		snprintf(spec, sizeof(spec), "arch=%s firmware=%s", lab_firmwares[i].arch, lab_firmwares[i].name);
		if (lab_matrix_parse(spec, &m, why, sizeof(why)) < 0)
			fail_msg("%s: %s", spec, why);
		assert_ptr_equal(lab_config_firmware(&m.configs[0]), &lab_firmwares[i]);
		/* a firmware's code, and its package to say when it is missing */
		assert_true(!lab_firmwares[i].code == !lab_firmwares[i].package);
		lab_matrix_release(&m);
	}
	/* the defaults of keys not given are not checked, and pass anyway */
	assert_int_equal(lab_matrix_parse("accel=kvm,tcg arch=x86_64,aarch64 smp=1,3", &m, why, sizeof(why)), 0);
	for (size_t i = 0; i < m.n; i++)
		for (size_t k = 0; k < sizeof(defaults) / sizeof(defaults[0]); k++)
			assert_string_equal(m.configs[i].v[defaults[k].key], defaults[k].value);
	lab_matrix_release(&m);
	/* several values of the keys, each configuration agreeing */
	assert_int_equal(lab_matrix_parse("accel=tcg smp=4 topology=1x4x1,2x2x1,1x2x2 tcg=multi,single cpu=max,qemu64 "
					  "nic=virtio-net queues=1,2,8 nice=-20,19 firmware=default,uefi", &m, why,
					  sizeof(why)), 0);
	assert_int_equal(m.n, 3 * 2 * 2 * 3 * 2 * 2);
	lab_matrix_release(&m);
}

/* topology=SxCxT; the kernel command line's queues for the guest's agent */
static void cpu_side_parsers(void **state)
{
	static const struct {
		const char *v;
		int r;
		unsigned t[3];
	} topo[] = {
		{ "2x2x1", 0, { 2, 2, 1 } }, { "1x1x1", 0, { 1, 1, 1 } }, { "256x1x1", 0, { 256, 1, 1 } },
		{ "default", -EINVAL, { 0 } }, { "257x1x1", -EINVAL, { 0 } }, { "1x1", -EINVAL, { 0 } },
		{ "1x1x1x", -EINVAL, { 0 } }, { "1xx1", -EINVAL, { 0 } }, { "", -EINVAL, { 0 } },
		{ "-1x1x1", -EINVAL, { 0 } }, { "1x1x1 ", -EINVAL, { 0 } }, { "00000001x1x1", -EINVAL, { 0 } },
	};
	static const struct {
		const char *cmdline;
		int r;
		unsigned n;
	} cmd[] = {
		{ "console=ttyS0 vmbench.queues=4 panic=-1\n", 0, 4 },
		{ "vmbench.queues=1", 0, 1 },
		{ "vmbench.queues=256\n", 0, 256 },
		{ "console=ttyS0 panic=-1\n", -ENOENT, 0 },
		{ "", -ENOENT, 0 },
		{ "xvmbench.queues=4", -ENOENT, 0 },
		{ "vmbench.queues=", -EINVAL, 0 },
		{ "vmbench.queues=0", -EINVAL, 0 },
		{ "vmbench.queues=257", -EINVAL, 0 },
		{ "vmbench.queues=4x", -EINVAL, 0 },
		{ "vmbench.queues=123456789", -EINVAL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(topo) / sizeof(topo[0]); i++) {
		unsigned t[3] = { 0 };
		int r = lab_topology_parse(topo[i].v, t);

		if (r != topo[i].r || (r == 0 && memcmp(t, topo[i].t, sizeof(t))))
			fail_msg("topology '%s': %d %ux%ux%u", topo[i].v, r, t[0], t[1], t[2]);
	}
	for (size_t i = 0; i < sizeof(cmd) / sizeof(cmd[0]); i++) {
		unsigned n = 0;
		int r = lab_cmdline_queues(cmd[i].cmdline, strlen(cmd[i].cmdline), &n);

		if (r != cmd[i].r || (r == 0 && n != cmd[i].n))
			fail_msg("cmdline '%s': %d %u", cmd[i].cmdline, r, n);
	}
	{
		/* a length that cuts the word: only what is inside it counts */
		unsigned n = 0;

		assert_int_equal(lab_cmdline_queues("vmbench.queues=42", 16, &n), 0);
		assert_int_equal(n, 4);
		assert_int_equal(lab_cmdline_queues("vmbench.queues=42", 10, &n), -ENOENT);
	}
}

/* nice=N: QEMU's child sets its priority before exec (19: a rise any
 * process may make) */
static void nice_in_child(void **state)
{
	struct lab_matrix m;
	char why[256];
	int status;
	pid_t pid;

	(void)state;
	assert_int_equal(lab_matrix_parse("nice=19", &m, why, sizeof(why)), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		errno = 0;
		_exit(lab_keys_child(&m.configs[0]) == 0 && getpriority(PRIO_PROCESS, 0) == 19 && !errno ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	lab_matrix_release(&m);
}

/* Every row of the device table: its QEMU arguments on the command line of
 * each architecture it names, its modules in the image, its driver checked. */
static void device_table(void **state)
{
	struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/d.img", .qmp_socket = "/q", .agent_socket = "/a",
			       .console_log = "/c", .work_dir = "/w" };
	struct strv mods = { 0 };
	char why[512];

	(void)state;
	/* an architecture's image wants the drivers of the models it has (pvscsi: x86_64's only) */
	assert_int_equal(lab_image_modules("aarch64", &mods), 0);
	for (size_t i = 0; i < mods.n; i++)
		assert_string_not_equal(mods.v[i], "vmw_pvscsi");
	strv_clear(&mods);
	assert_int_equal(lab_image_modules("x86_64", &mods), 0);
	{
		bool pvscsi = false;

		for (size_t i = 0; i < mods.n; i++)
			pvscsi = pvscsi || !strcmp(mods.v[i], "vmw_pvscsi");
		assert_true(pvscsi);
	}
	strv_clear(&mods);
	assert_int_equal(lab_image_modules(NULL, &mods), 0);
	assert_string_equal(mods.v[0], "virtio_pci");
	assert_string_equal(mods.v[1], "virtio_console");
	for (size_t i = 0; i < lab_ndevices; i++) {
		const struct lab_device *d = &lab_devices[i];
		struct lab_matrix m;
		char spec[128], arch[32];

		/* the model is a valid matrix value of its key */
		snprintf(spec, sizeof(spec), "%s=%s", lab_key_name(d->key), d->name);
		assert_int_equal(lab_matrix_parse(spec, &m, why, sizeof(why)), 0);
		assert_ptr_equal(lab_config_device(&m.configs[0], d->key), d);
		for (const char *a = d->arches; *a == ' ';) {
			size_t l = strcspn(a + 1, " ");
			struct lab_config c = m.configs[0];
			struct strv argv = { 0 };

			snprintf(arch, sizeof(arch), "%.*s", (int)l, a + 1);
			a += 1 + l;
			lab_config_set(&c, LAB_ARCH, arch);
			lab_config_set(&c, LAB_ACCEL, "tcg");
			/* as a boot names them: a share model's back end is its own */
			memset(p.backend, 0, sizeof(p.backend));
			lab_backends_own(&c, p.backend);
			assert_int_equal(lab_qemu_argv(&c, &p, &argv, why, sizeof(why)), 0);
			for (const char *dv = d->devices; *dv;) {
				size_t dl = strcspn(dv, " ");
				char one[128];

				snprintf(one, sizeof(one), "%.*s", (int)dl, dv);
				if (!has_pair(&argv, "-device", one))
					fail_msg("%s on %s: no -device %s", d->name, arch, one);
				dv += dl + strspn(dv + dl, " ");
			}
			strv_clear(&argv);
		}
		for (const char *mo = d->modules; *mo;) {
			size_t ml = strcspn(mo, " ");
			char word[64];
			bool found = false;

			snprintf(word, sizeof(word), "%.*s", (int)ml, mo);
			for (size_t j = 0; j < mods.n; j++)
				found |= lab_module_same(mods.v[j], word);
			if (!found)
				fail_msg("%s: module %.*s is not in the image's list", d->name, (int)ml, mo);
			mo += ml + strspn(mo + ml, " ");
		}
		lab_matrix_release(&m);
	}
	/* each module once */
	for (size_t i = 0; i < mods.n; i++)
		for (size_t j = i + 1; j < mods.n; j++)
			assert_string_not_equal(mods.v[i], mods.v[j]);
	strv_clear(&mods);
}

/* The profiles: each row sets valid keys, to models its machine has; a
 * profile expands to its devices and machine, agrees with a key the matrix
 * also gives or refuses it, and its legend says it is QEMU's emulation. */
static void profiles(void **state)
{
	static const struct {
		const char *profile, *disk, *nic, *machine;
	} cases[] = {
		{ "vmware", "pvscsi", "vmxnet3", "pc" },
		{ "vbox", "ahci", "e1000", "pc" },
		{ "kvm", "virtio-blk", "virtio-net", "q35" },
	};
	struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/d.img", .qmp_socket = "/q", .agent_socket = "/a",
			       .console_log = "/c" };
	struct lab_matrix m;
	char why[512];

	(void)state;
	assert_int_equal(lab_nprofiles, sizeof(cases) / sizeof(cases[0]));
	assert_int_equal(lab_matrix_parse("accel=tcg profile=vmware,vbox,kvm", &m, why, sizeof(why)), 0);
	assert_int_equal(m.n, 3);
	/* the configurations are named by the keys given: the profile alone */
	assert_true(m.given & (1u << LAB_PROFILE));
	assert_false(m.given & (1u << LAB_DISK));
	for (size_t i = 0; i < m.n; i++) {
		struct strv a = { 0 };
		const struct lab_device *disk = lab_config_device(&m.configs[i], LAB_DISK);
		char dev[128];

		assert_string_equal(m.configs[i].v[LAB_PROFILE], cases[i].profile);
		assert_string_equal(m.configs[i].v[LAB_DISK], cases[i].disk);
		assert_string_equal(m.configs[i].v[LAB_NIC], cases[i].nic);
		assert_int_equal(lab_qemu_argv(&m.configs[i], &p, &a, why, sizeof(why)), 0);
		assert_true(has_pair(&a, "-machine", cases[i].machine));
		snprintf(dev, sizeof(dev), "%.*s", (int)strcspn(disk->devices, " "), disk->devices);
		assert_true(has_pair(&a, "-device", dev));
		snprintf(dev, sizeof(dev), "%s,netdev=n0", !strcmp(cases[i].nic, "virtio-net") ? "virtio-net-pci" : cases[i].nic);
		assert_true(has_pair(&a, "-device", dev));
		assert_true(lab_config_legend(&m.configs[i], why, sizeof(why)));
		assert_non_null(strstr(why, "is QEMU's emulation of the devices"));
		assert_non_null(strstr(why, ", not "));
		strv_clear(&a);
	}
	assert_non_null(strstr(why, "profile=kvm is QEMU's emulation of the devices KVM with libvirt gives a Linux guest "
				    "by default (disk=virtio-blk nic=virtio-net, machine q35), not KVM with libvirt itself"));
	lab_matrix_release(&m);
	/* a key the matrix gives: the profile's value, or a usage error naming both */
	assert_int_equal(lab_matrix_parse("profile=vmware disk=pvscsi smp=1,2", &m, why, sizeof(why)), 0);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.configs[1].v[LAB_NIC], "vmxnet3");
	lab_matrix_release(&m);
	assert_int_equal(lab_matrix_parse("profile=vmware disk=ide", &m, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "matrix: profile=vmware sets disk=pvscsi, and the matrix gives disk=ide; give the profile "
				 "alone (it sets disk), or disk= without the profile");
	assert_null(m.configs);
	/* one configuration that contradicts refuses the whole matrix */
	assert_int_equal(lab_matrix_parse("profile=none,vbox nic=virtio-net", &m, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "profile=vbox sets nic=e1000, and the matrix gives nic=virtio-net"));
	/* none sets nothing and has no legend */
	assert_int_equal(lab_matrix_parse("disk=ide", &m, why, sizeof(why)), 0);
	assert_string_equal(m.configs[0].v[LAB_PROFILE], "none");
	assert_null(lab_config_profile(&m.configs[0]));
	assert_false(lab_config_legend(&m.configs[0], why, sizeof(why)));
	lab_matrix_release(&m);
	/* every row's keys are matrix keys with valid values, its models on x86_64 */
	for (size_t i = 0; i < lab_nprofiles; i++) {
		char spec[128];

		snprintf(spec, sizeof(spec), "arch=x86_64%s", lab_profiles[i].keys);
		assert_int_equal(lab_matrix_parse(spec, &m, why, sizeof(why)), 0);
		assert_false(lab_config_unsupported(&m.configs[0], why, sizeof(why)));
		lab_matrix_release(&m);
		assert_true(!strcmp(lab_profiles[i].x86_machine, "pc") || !strcmp(lab_profiles[i].x86_machine, "q35"));
	}
}

/* balloon=on: a virtio-balloon device, its module loaded by that
 * configuration only */
static void balloon_key(void **state)
{
	struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/d.img", .qmp_socket = "/q", .agent_socket = "/a",
			       .console_log = "/c" };
	struct lab_matrix m;
	char why[512];

	(void)state;
	assert_int_equal(lab_matrix_parse("accel=tcg balloon=off,on", &m, why, sizeof(why)), 0);
	for (size_t i = 0; i < 2; i++) {
		struct strv a = { 0 }, mods = { 0 };
		bool on = i == 1, loaded = false;

		assert_int_equal(lab_qemu_argv(&m.configs[i], &p, &a, why, sizeof(why)), 0);
		assert_int_equal(has_pair(&a, "-device", "virtio-balloon-pci,id=balloon0"), on);
		assert_int_equal(lab_config_modules(&m.configs[i], &mods), 0);
		for (size_t j = 0; j < mods.n; j++)
			loaded |= !strcmp(mods.v[j], "virtio_balloon");
		assert_int_equal(loaded, on);
		strv_clear(&a);
		strv_clear(&mods);
	}
	lab_matrix_release(&m);
	assert_int_equal(lab_matrix_parse("balloon=yes", &m, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "balloon=yes is not known; valid values of balloon: off, on"));
	{
		/* the size: a quarter of mem by default, whole pages, leaving the guest 64 MiB */
		json_t *o = json_pack("{s:I, s:f}", "balloon.size", (json_int_t)(100 << 20) + 123, "balloon.timeout", 5.0);
		uint64_t size = 0;
		double timeout = 0;

		assert_int_equal(lab_balloon_opts(NULL, 512ull << 20, &size, &timeout, why, sizeof(why)), 0);
		assert_int_equal(size, 128ull << 20);
		assert_true(timeout == 60);
		assert_int_equal(lab_balloon_opts(o, 512ull << 20, &size, &timeout, why, sizeof(why)), 0);
		assert_int_equal(size, 100ull << 20);
		assert_true(timeout == 5);
		assert_int_equal(lab_balloon_opts(o, 128ull << 20, &size, &timeout, why, sizeof(why)), -EINVAL);
		assert_string_equal(why, "--balloon.size 100 MiB does not fit in a guest of mem=128 MiB: give a size that "
					 "leaves the guest 64 MiB at least");
		json_decref(o);
	}
	{
		/* balloon=off: the suite skipped with the reason, nothing asked of QEMU */
		struct lab_balloon bl = { .idle = true, .loaded = true, .skip = "the configuration has no balloon" };
		json_t *suite = NULL;

		assert_int_equal(lab_balloon_measure(&bl, &suite, why, sizeof(why)), 0);
		assert_string_equal(json_string_value(json_object_get(suite, "name")), "balloon");
		assert_string_equal(json_string_value(json_object_get(suite, "status")), "skipped");
		assert_string_equal(json_string_value(json_object_get(suite, "reason")), "the configuration has no balloon");
		json_decref(suite);
	}
}

/* A path too long for an argument fails the command line (it was cut short). */
static void long_paths(void **state)
{
	static char longp[2000];
	struct lab_paths p = { .kernel = longp, .initrd = "/i", .qmp_socket = "/q", .agent_socket = "/a",
			       .console_log = "/c" };
	struct lab_config c;
	struct strv a = { 0 };
	char why[512];

	(void)state;
	memset(longp, 'k', sizeof(longp) - 1);
	c = config_of("tcg", "x86_64", "ide", "none", "1", "1G");
	assert_int_equal(lab_qemu_argv(&c, &p, &a, why, sizeof(why)), -ENAMETOOLONG);
	strv_clear(&a);
}


/* What a configuration's guest loads: its devices' and filesystem's modules
 * with their dependencies, in the image's load order, nothing more; and no
 * selection (every module) where the manifest cannot say. */
static void module_selection(void **state)
{
	static const char manifest[] =
		"{\"modules\": [\"virtio_ring.ko\", \"virtio.ko\", \"virtio_pci.ko\", \"scsi_mod.ko\", \"libata.ko\","
		" \"ata_piix.ko\", \"sd_mod.ko\", \"e1000.ko\", \"jbd2.ko\", \"ext4.ko\"],"
		" \"module_sets\": {\"virtio_pci\": \"virtio_ring.ko virtio.ko virtio_pci.ko\","
		" \"virtio_console\": \"virtio_ring.ko virtio.ko\", \"ata_piix\": \"scsi_mod.ko libata.ko ata_piix.ko\","
		" \"sd_mod\": \"scsi_mod.ko sd_mod.ko\","
		" \"e1000\": \"e1000.ko\", \"ext4\": \"jbd2.ko ext4.ko\", \"crc32c_generic\": \"\"}}";
	struct lab_config c = config_of("tcg", "x86_64", "ide", "none", "1", "1G");
	struct strv want = { 0 };
	char out[256];

	(void)state;
	lab_config_set(&c, LAB_FS, "none");
	assert_int_equal(lab_config_modules(&c, &want), 0);
	/* the base modules, then the disk's; no NIC, no filesystem */
	assert_int_equal(want.n, 4);
	assert_string_equal(want.v[0], "virtio_pci");
	assert_string_equal(want.v[1], "virtio_console");
	assert_string_equal(want.v[2], "ata_piix");
	assert_string_equal(want.v[3], "sd_mod");
	assert_int_equal(lab_modules_for(manifest, &want, out, sizeof(out)), 0);
	assert_string_equal(out, "virtio_ring.ko,virtio.ko,virtio_pci.ko,scsi_mod.ko,libata.ko,ata_piix.ko,sd_mod.ko");
	/* too long for the room given: nothing, and said */
	assert_int_equal(lab_modules_for(manifest, &want, out, 20), -ENOSPC);
	assert_string_equal(out, "");
	strv_clear(&want);
	/* a NIC and ext4: their modules too (crc32c_generic's set is empty: built in) */
	c = config_of("tcg", "x86_64", "ide", "e1000", "1", "1G");
	lab_config_set(&c, LAB_FS, "ext4");
	assert_int_equal(lab_config_modules(&c, &want), 0);
	assert_int_equal(want.n, 7);
	assert_string_equal(want.v[4], "e1000");
	assert_string_equal(want.v[5], "ext4");
	assert_string_equal(want.v[6], "crc32c_generic");
	assert_int_equal(lab_modules_for(manifest, &want, out, sizeof(out)), 0);
	assert_string_equal(out, "virtio_ring.ko,virtio.ko,virtio_pci.ko,scsi_mod.ko,libata.ko,ata_piix.ko,sd_mod.ko,"
			    "e1000.ko,jbd2.ko,ext4.ko");
	/* a module the image has no set for: every module */
	assert_int_equal(strv_push(&want, "xfs"), 0);
	assert_int_equal(lab_modules_for(manifest, &want, out, sizeof(out)), -ENOENT);
	assert_string_equal(out, "");
	strv_clear(&want);
	assert_int_equal(strv_push(&want, "e1000"), 0);
	assert_int_equal(strv_push(&want, "ext4"), 0);
	assert_int_equal(lab_modules_for(manifest, &want, out, sizeof(out)), 0);
	assert_string_equal(out, "e1000.ko,jbd2.ko,ext4.ko");
	/* an image with no sets (older, or a bare kernel), and no manifest at all */
	assert_int_equal(lab_modules_for("{\"modules\": []}", &want, out, sizeof(out)), -ENOENT);
	assert_int_equal(lab_modules_for("not json", &want, out, sizeof(out)), -EINVAL);
	/* a name that would break out of the kernel command line */
	assert_int_equal(lab_modules_for("{\"modules\": [\"e1000.ko x=1\"], \"module_sets\": {\"e1000\": \"e1000.ko x=1\","
					 " \"ext4\": \"ext4.ko\"}}", &want, out, sizeof(out)), -EINVAL);
	assert_string_equal(out, "");
	strv_clear(&want);
}

/* realloc that fails at call fail_at (1-based; 0: never) */
static unsigned realloc_calls, realloc_fail_at;

static void *failing_realloc(void *p, size_t size)
{
	if (++realloc_calls == realloc_fail_at)
		return NULL;
	return realloc(p, size);
}

static void put_file(const char *root, const char *rel, const char *data, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = strchr(path + strlen(root) + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		(void)mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

/* The image's module phase: dependencies first, the missing named, and a
 * list that cannot grow fails the build; it was cut short, and the image
 * built without the modules it lost. */
static void module_gathering(void **state)
{
	static const struct {
		const char *what;
		/* the realloc that fails: 0 none, 1-2 the module map, 3-5 each
		 * wanted module's set, 6-8 the load list */
		unsigned fail_at;
		int r;
	} cases[] = {
		{ "every allocation succeeds", 0, 0 },
		{ "the module map's names", 1, -ENOMEM },
		{ "the module map's paths", 2, -ENOMEM },
		{ "the first wanted module's set", 3, -ENOMEM },
		{ "the last wanted module's set", 5, -ENOMEM },
		{ "the load list's first line", 6, -ENOMEM },
		{ "the load list's last line", 8, -ENOMEM },
		{ "past the last allocation", 9, 0 },
	};
	char root[] = "/tmp/vmbench-modules-XXXXXX", cmd[128];
	struct strv wanted = { 0 };

	(void)state;
	assert_non_null(mkdtemp(root));
	put_file(root, "drivers/block/virtio_blk.ko", "x\0depends=virtio-ring\0", 22);
	put_file(root, "drivers/virtio/virtio_ring.ko", "x\0depends=\0", 11);
	put_file(root, "drivers/net/e1000.ko", "", 0);
	assert_int_equal(strv_push(&wanted, "virtio_blk"), 0);
	assert_int_equal(strv_push(&wanted, "e1000"), 0);
	assert_int_equal(strv_push(&wanted, "nosuch"), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lab_modules m = { .realloc = failing_realloc };
		int r;

		realloc_calls = 0;
		realloc_fail_at = cases[i].fail_at;
		r = lab_modules_gather(&m, root, &wanted);
		if (r != cases[i].r)
			fail_msg("case %zu (%s): %d, expected %d", i, cases[i].what, r, cases[i].r);
		if (r < 0) {
			/* nothing half-made is left behind */
			assert_int_equal(m.order.n + m.missing.n + m.len + m.sets.n, 0);
			assert_null(m.list);
			continue;
		}
		assert_int_equal(m.order.n, 3);
		assert_non_null(strstr(m.order.v[0], "/drivers/virtio/virtio_ring.ko"));
		assert_non_null(strstr(m.order.v[1], "/drivers/block/virtio_blk.ko"));
		assert_non_null(strstr(m.order.v[2], "/drivers/net/e1000.ko"));
		assert_int_equal(m.missing.n, 1);
		assert_string_equal(m.missing.v[0], "nosuch");
		assert_string_equal(m.list, "virtio_ring.ko\nvirtio_blk.ko\ne1000.ko\n");
		assert_int_equal(m.len, strlen(m.list));
		/* each wanted module's own set: its dependencies, then itself */
		assert_int_equal(m.sets.n, 3);
		assert_string_equal(m.sets.v[0], "virtio_ring.ko virtio_blk.ko");
		assert_string_equal(m.sets.v[1], "e1000.ko");
		assert_string_equal(m.sets.v[2], "");
		lab_modules_release(&m);
	}
	{
		/* a bare kernel has no modules: every one is missing */
		struct lab_modules m = { 0 };

		assert_int_equal(lab_modules_gather(&m, NULL, &wanted), 0);
		assert_int_equal(m.order.n, 0);
		assert_int_equal(m.missing.n, 3);
		lab_modules_release(&m);
	}
	strv_clear(&wanted);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static const struct vmb_suite *no_suite(const char *name)
{
	(void)name;
	return NULL;
}

/* The start-up check of the lab's tables: the shipped ones pass; a row that
 * is not well made is refused with what is wrong with it. */
static void table_check(void **state)
{
	static const struct {
		struct lab_device d;
		const char *why; /* NULL: passes */
	} rows[] = {
		{ { LAB_NIC, "e1000", LAB_ANY_ARCH, NULL, "e1000,netdev=n0", "e1000", "e1000 ne2k-pci 8390", NULL }, NULL },
		{ { LAB_NIC, "ne2k", " x86_64", NULL, "ne2k_pci,netdev=n0", "ne2k-pci", "ne2k_pci", NULL }, "not a value of its key" },
		{ { LAB_NIC, "e1000", " x86_64 riscv64", NULL, "e1000,netdev=n0", "e1000", "e1000", NULL }, "riscv64" },
		{ { LAB_NIC, "e1000", "x86_64", NULL, "e1000,netdev=n0", "e1000", "e1000", NULL }, "architectures" },
		{ { LAB_NIC, "e1000", " x86_64 x86_64", NULL, "e1000,netdev=n0", "e1000", "e1000", NULL }, "architectures" },
		{ { LAB_NIC, "e1000", " x86_64", NULL, "", "e1000", "e1000", NULL }, "no QEMU device" },
		{ { LAB_NIC, "e1000", " x86_64", NULL, "e1000,netdev=n0", NULL, "e1000", NULL }, "no guest driver" },
		{ { LAB_NIC, "e1000", " x86_64", NULL, "e1000,netdev=n0", "e1000", "e1000.ko", NULL }, "not module names" },
		{ { LAB_NIC, "e1000", " x86_64", NULL, "e1000,netdev=n0", "e1000", "e1000,8390", NULL }, "not module names" },
		{ { LAB_NIC, "e1000", " x86_64", NULL, "e1000,netdev=n0", "e1000", " ", NULL }, "not module names" },
		{ { LAB_DISK, "e1000", " x86_64", NULL, "e1000,netdev=n0", "e1000", "e1000", NULL }, "not a value of its key" },
		{ { LAB_BALLOON, "on", " aarch64", NULL, "virtio-balloon-pci", "virtio_balloon", "virtio_balloon", NULL }, NULL },
		{ { LAB_NIC, "e1000", " x86_64", NULL, "e1000,netdev=n0", "e1000", "e1000", "nic e1000" }, NULL },
		{ { LAB_NIC, "e1000", " x86_64", NULL, "e1000,netdev=n0", "e1000", "e1000", "disk bus=ide" },
		  "its libvirt element" },
		{ { LAB_DISK, "ide", " x86_64", NULL, "ide-hd,drive=d0", "ata_piix", "ata_piix", "disk bus=" },
		  "its libvirt element" },
	};
	char why[256];

	(void)state;
	assert_int_equal(lab_tables_check(suites_find, why, sizeof(why)), 0);
	/* a key's row names its suite: one that is not there is found */
	assert_int_equal(lab_tables_check(no_suite, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "its row names the suite"));
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int r = lab_device_check(&rows[i].d, why, sizeof(why));

		if (rows[i].why ? r != -EINVAL || !strstr(why, rows[i].why) : r != 0)
			fail_msg("row %zu (%s): %d, %s", i, rows[i].d.name, r, r ? why : "passed");
	}
	assert_true(lab_module_list_ok("virtio_pci virtio_console"));
	assert_true(lab_module_list_ok(" ne2k-pci  BusLogic "));
	assert_false(lab_module_list_ok(""));
	assert_false(lab_module_list_ok(NULL));
	assert_false(lab_module_list_ok("a/b"));
	assert_false(lab_module_list_ok("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
}

/* Module names use '-' and '_' alike, as the kernel does: a wanted module
 * spelled as its .ko file is (ne2k-pci) is found, once, and a guest's
 * selection finds its set whichever way the image's manifest spells it. */
static void module_names(void **state)
{
	static const struct {
		const char *a, *b;
		bool same;
	} names[] = {
		{ "ne2k-pci", "ne2k_pci", true },  { "ne2k_pci", "ne2k-pci", true }, { "nvme-core", "nvme-core", true },
		{ "virtio_blk", "virtio_blk", true }, { "ne2k-pci", "ne2k", false },  { "ne2k", "ne2k-pci", false },
		{ "e1000", "e1000e", false },        { "a-b", "a.b", false },        { "", "", true },
	};
	static const struct {
		const char *wanted;  /* as a table may spell it */
		const char *set;     /* its set in the image */
	} gathered[] = {
		{ "ne2k-pci", "8390.ko ne2k-pci.ko" },
		{ "ne2k_pci", "8390.ko ne2k-pci.ko" },
		{ "nvme", "nvme-core.ko nvme.ko" },
		{ "nvme-core", "nvme-core.ko" },
	};
	char root[] = "/tmp/vmbench-modnames-XXXXXX", cmd[128], one[64], out[256];
	struct strv wanted = { 0 };
	struct lab_modules m = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (lab_module_same(names[i].a, names[i].b) != names[i].same)
			fail_msg("'%s' and '%s': %s one module", names[i].a, names[i].b, names[i].same ? "not" : "");
	lab_module_name("ne2k-pci.ko", 8, one, sizeof(one));
	assert_string_equal(one, "ne2k_pci");

	assert_non_null(mkdtemp(root));
	put_file(root, "drivers/net/ethernet/8390/ne2k-pci.ko", "x\0depends=8390\0", 16);
	put_file(root, "drivers/net/ethernet/8390/8390.ko", "x\0depends=\0", 11);
	put_file(root, "drivers/nvme/host/nvme.ko", "x\0depends=nvme-core\0", 21);
	put_file(root, "drivers/nvme/host/nvme-core.ko", "x\0depends=\0", 11);
	for (size_t i = 0; i < sizeof(gathered) / sizeof(gathered[0]); i++)
		assert_int_equal(strv_push(&wanted, gathered[i].wanted), 0);
	assert_int_equal(lab_modules_gather(&m, root, &wanted), 0);
	for (size_t i = 0; i < m.missing.n; i++)
		fail_msg("%s is reported missing, though the package has it", m.missing.v[i]);
	assert_string_equal(m.list, "8390.ko\nne2k-pci.ko\nnvme-core.ko\nnvme.ko\n");
	assert_int_equal(m.sets.n, sizeof(gathered) / sizeof(gathered[0]));
	for (size_t i = 0; i < m.sets.n; i++)
		if (strcmp(m.sets.v[i], gathered[i].set))
			fail_msg("%s: set '%s', expected '%s'", gathered[i].wanted, m.sets.v[i], gathered[i].set);
	lab_modules_release(&m);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);

	/* the manifest's key spelled one way, the wanted name the other */
	strv_clear(&wanted);
	assert_int_equal(strv_push(&wanted, "ne2k-pci"), 0);
	assert_int_equal(strv_push(&wanted, "nvme_core"), 0);
	assert_int_equal(lab_modules_for("{\"modules\": [\"8390.ko\", \"ne2k-pci.ko\", \"nvme-core.ko\", \"nvme.ko\"],"
					 " \"module_sets\": {\"ne2k_pci\": \"8390.ko ne2k-pci.ko\","
					 " \"nvme-core\": \"nvme-core.ko\"}}", &wanted, out, sizeof(out)), 0);
	assert_string_equal(out, "8390.ko,ne2k-pci.ko,nvme-core.ko");
	strv_clear(&wanted);

	/* the image's list has each module once, as the kernel spells it */
	{
		struct strv mods = { 0 };

		assert_int_equal(lab_image_modules(NULL, &mods), 0);
		for (size_t i = 0; i < mods.n; i++) {
			assert_null(strchr(mods.v[i], '-'));
			for (size_t j = i + 1; j < mods.n; j++)
				assert_false(lab_module_same(mods.v[i], mods.v[j]));
		}
		strv_clear(&mods);
	}
}

/* A suite's scratch disk is named through its own options: every option the
 * descriptor names for the lab is one of the suite's, and a suite names a
 * scratch disk only through its descriptor (the lab knows no suite). */
static void scratch_options(void **state)
{
	size_t with = 0;

	(void)state;
	for (size_t i = 0; i < vmb_nsuites; i++) {
		const struct vmb_suite *s = vmb_suites[i];
		const char *names[3] = { s->scratch ? s->scratch->device_opt : NULL, s->scratch ? s->scratch->size_opt : NULL,
					 s->scratch ? s->scratch->dir_opt : NULL };

		with += s->scratch != NULL;
		/* every scratch names the directory its files go to on the filesystem */
		if (s->scratch && !s->scratch->dir_opt)
			fail_msg("suite %s: its scratch names no directory option", s->name);
		for (size_t n = 0; n < 3; n++) {
			bool found = false;

			if (!s->scratch || (!names[n] && n < 2))
				continue;
			for (const struct vmb_opt *o = s->opts; o && o->name; o++)
				found |= names[n] && !strcmp(o->name, names[n]);
			if (!found)
				fail_msg("suite %s: scratch option %s is none of its options", s->name, names[n] ? names[n] : "(null)");
		}
		assert_ptr_equal(lab_item_suite(s->name), s);
	}
	assert_true(with >= 1);
}

/* The filesystem table: every row complete, the key's values its rows and
 * none, ext4 the default; the scratch disk holds the test file of the
 * host's size and more, and never less than the smallest filesystem. */
static void fs_table(void **state)
{
	static const struct {
		const char *fs;
		uint64_t test, min, max;
	} sizes[] = {
		{ "none", 128ull << 20, 128ull << 20, 128ull << 20 }, /* the raw device: as given */
		{ "ext4", 128ull << 20, (128ull << 20) + (512ull << 20), 1ull << 30 },
		{ "ext4", 1ull << 30, (1ull << 30) + (512ull << 20), 2ull << 30 },
		{ "xfs", 16ull << 20, 300ull << 20, 1ull << 30 }, /* xfsprogs refuses less than 300 MB */
		{ "xfs", 1ull << 30, (1ull << 30) + (512ull << 20), 2ull << 30 },
	};
	struct lab_matrix m;
	char err[256];

	(void)state;
	assert_true(lab_nfilesystems >= 2);
	for (size_t i = 0; i < lab_nfilesystems; i++) {
		const struct lab_fs *fs = &lab_filesystems[i];

		assert_ptr_equal(lab_fs_find(fs->name), fs);
		assert_true(*fs->package && fs->files[0] == ' ' && fs->files[1] != ' ');
		assert_non_null(strstr(fs->files, "sbin/mk")); /* the first file is the program */
		assert_true(*fs->mkfs && *fs->version && *fs->modules);
		assert_non_null(strstr(fs->modules, fs->name)); /* its own module */
	}
	assert_null(lab_fs_find("none"));
	assert_null(lab_fs_find(NULL));
	assert_int_equal(lab_matrix_parse("fs=ext4,xfs,none", &m, err, sizeof(err)), 0);
	assert_int_equal(m.n, 3);
	assert_ptr_equal(lab_config_fs(&m.configs[0]), lab_fs_find("ext4"));
	assert_ptr_equal(lab_config_fs(&m.configs[1]), lab_fs_find("xfs"));
	assert_null(lab_config_fs(&m.configs[2]));
	/* a filesystem is no device: nothing to check behind it in the guest */
	assert_null(lab_config_device(&m.configs[0], LAB_FS));
	lab_matrix_release(&m);
	assert_int_equal(lab_matrix_parse("disk=ide", &m, err, sizeof(err)), 0);
	assert_string_equal(m.configs[0].v[LAB_FS], "ext4"); /* the default */
	lab_matrix_release(&m);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		uint64_t got = lab_fs_disk_size(lab_fs_find(sizes[i].fs), sizes[i].test);

		if (got < sizes[i].min || got > sizes[i].max)
			fail_msg("%s with a %llu-byte test file: a %llu-byte disk", sizes[i].fs,
				 (unsigned long long)sizes[i].test, (unsigned long long)got);
	}
}

/* The library packages of `apt-cache depends` output. */
static void deb_depends(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "e2fsprogs\n  PreDepends: libblkid1\n  PreDepends: libc6\n  PreDepends: libcom-err2\n"
		  "  Depends: logsave\n  Suggests: gpart\n", "libblkid1 libcom-err2" },
		{ "xfsprogs\n  Depends: libblkid1\n  Depends: <python3:any>\n    python3:arm64\n  Depends: liburcu8t64\n"
		  "  Recommends: libicu72\n  Depends: libblkid1\n", "libblkid1 liburcu8t64" },
		{ "", "" },
		{ "  Depends: lib\n  Depends: libX;rm\n  Depends: libok:arm64\n", "lib libok" },
		{ "Depends: libnoindent", "libnoindent" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strv out = { 0 };
		char got[256] = "";
		size_t off = 0;

		assert_int_equal(lab_deb_lib_depends(cases[i].text, &out), 0);
		for (size_t k = 0; k < out.n; k++)
			str_appendf(got, sizeof(got), &off, "%s%s", k ? " " : "", out.v[k]);
		assert_string_equal(got, cases[i].want);
		strv_clear(&out);
	}
}

/* An image's manifest says which filesystems its guest can make, and why
 * not the others. */
static void image_filesystems(void **state)
{
	char dir[] = "/tmp/vmb-test-imgfs-XXXXXX", path[128], why[512];
	const char *manifest = "{\"arch\": \"aarch64\", \"filesystems\": [\"ext4\"], \"filesystems_missing\": "
			       "[\"xfs: apt-get download xfsprogs:arm64 failed\"]}";
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_true(lab_image_lacks_fs(dir, "ext4", why, sizeof(why))); /* no manifest: rebuild */
	assert_non_null(strstr(why, "says nothing of fs=ext4"));
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(manifest, f);
	fclose(f);
	assert_false(lab_image_lacks_fs(dir, "ext4", why, sizeof(why)));
	assert_true(lab_image_lacks_fs(dir, "xfs", why, sizeof(why)));
	assert_string_equal(why, "no mkfs for fs=xfs in the aarch64 image: apt-get download xfsprogs:arm64 failed");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* Every back end row: on the command line under the first model of its key,
 * with the id that model's -device names (drive=d0, netdev=n0), and a word
 * for what the guest sees; the disk's rows are --disk-format's choices. */
static void backend_table(void **state)
{
	static const char *const choices = LAB_BACKEND_CHOICES(LAB_DISK);
	char why[512];

	(void)state;
	assert_string_equal(choices, "raw|qcow2");
	for (size_t i = 0; i < lab_nbackends; i++) {
		const struct lab_backend *be = &lab_backends[i];
		struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/d.img", .qmp_socket = "/q",
				       .agent_socket = "/a", .console_log = "/c", .work_dir = "/w" };
		const struct lab_device *d = NULL;
		struct lab_config c;
		struct strv a = { 0 };
		char id[32] = "", want[48];
		const char *ref;
		bool found = false;

		/* the model of the back end's own name (a share's), else its key's first */
		for (size_t j = 0; !d && j < lab_ndevices; j++)
			if (lab_devices[j].key == be->key && !strcmp(lab_devices[j].name, be->name))
				d = &lab_devices[j];
		for (size_t j = 0; !d && j < lab_ndevices; j++)
			if (lab_devices[j].key == be->key && strstr(lab_devices[j].arches, " x86_64"))
				d = &lab_devices[j];
		if (!d)
			fail_msg("back end %s: its key has no model", be->name);
		p.backend[be->key] = be->name;
		assert_ptr_equal(lab_backend_of(&p, be->key), be);
		assert_non_null(be->guest_list);
		assert_non_null(be->guest_what);
		c = config_of("tcg", "x86_64", "virtio-blk", "none", "1", "1G");
		lab_config_set(&c, be->key, d->name);
		assert_int_equal(lab_qemu_argv(&c, &p, &a, why, sizeof(why)), 0);
		/* the id the device names its back end by: drive=, netdev=, fsdev=, chardev= */
		ref = NULL;
		for (size_t j = 0; !ref && j < 4; j++) {
			static const char *const refs[] = { "drive=", "netdev=", "fsdev=", "chardev=" };
			const char *at = strstr(d->devices, refs[j]);

			ref = at && (at == d->devices || at[-1] == ',') ? at + strlen(refs[j]) : NULL;
		}
		if (be->key == LAB_BALLOON) {
			/* the guest's RAM: the device alone, no host object to name */
			assert_null(ref);
			assert_true(has_pair(&a, "-device", d->devices));
			strv_clear(&a);
			continue;
		}
		assert_non_null(ref);
		snprintf(id, sizeof(id), "%.*s", (int)strcspn(ref, ", "), ref);
		snprintf(want, sizeof(want), "id=%s", id);
		for (size_t k = 0; k < a.n; k++)
			found |= strstr(a.v[k], want) != NULL;
		if (!found)
			fail_msg("back end %s: no argument with %s for %s", be->name, want, d->name);
		strv_clear(&a);
	}
	{
		/* --disk-format qcow2 is the qcow2 row; an unknown one is no back end */
		struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/d.img", .qmp_socket = "/q",
				       .agent_socket = "/a", .console_log = "/c", .disk_cache = "writeback" };
		struct lab_config c;
		struct strv a = { 0 };

		c = config_of("tcg", "x86_64", "nvme", "virtio-net", "1", "1G");
		p.backend[LAB_DISK] = "qcow2";
		p.backend[LAB_NIC] = "user";
		assert_int_equal(lab_qemu_argv(&c, &p, &a, why, sizeof(why)), 0);
		assert_true(has_pair(&a, "-drive", "file=/d.img,format=qcow2,if=none,id=d0,cache=writeback"));
		assert_true(has_pair(&a, "-netdev", "user,id=n0,restrict=on"));
		assert_true(has_pair(&a, "-device", "virtio-net-pci,netdev=n0"));
		strv_clear(&a);
		p.backend[LAB_DISK] = "vmdk";
		assert_int_equal(lab_qemu_argv(&c, &p, &a, why, sizeof(why)), -EINVAL);
		assert_non_null(strstr(why, "no back end vmdk"));
		strv_clear(&a);
	}
}

/* The NIC's back ends: a tap handed to QEMU as a descriptor (with vhost-net
 * or not), the guest's end of the link on its kernel command line; user
 * networking with neither. The first usable row is the default, and a row
 * passed over says why. */
static void nic_backends(void **state)
{
	static const struct {
		const char *backend, *netdev, *append_tail;
	} cases[] = {
		{ "tap+vhost", "tap,id=n0,fd=10,vhost=on", " vmbench.agent=/dev/hvc0 vmbench.net=10.251.0.2/30 vmbench.disks=1" },
		{ "tap", "tap,id=n0,fd=10", " vmbench.agent=/dev/hvc0 vmbench.net=10.251.0.2/30 vmbench.disks=1" },
		{ "user", "user,id=n0,restrict=on", " vmbench.agent=/dev/hvc0 vmbench.disks=1" },
	};
	struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/d.img", .qmp_socket = "/q", .agent_socket = "/a",
			       .console_log = "/c" };
	const struct lab_backend *be;
	char why[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lab_config c = config_of("tcg", "x86_64", "virtio-blk", "pcnet", "1", "1G");
		struct strv a = { 0 };
		const char *append = NULL;

		p.backend[LAB_NIC] = cases[i].backend;
		assert_int_equal(lab_qemu_argv(&c, &p, &a, why, sizeof(why)), 0);
		if (!has_pair(&a, "-netdev", cases[i].netdev))
			fail_msg("%s: no -netdev %s", cases[i].backend, cases[i].netdev);
		assert_true(has_pair(&a, "-device", "pcnet,netdev=n0"));
		for (size_t k = 0; k + 1 < a.n; k++)
			if (!strcmp(a.v[k], "-append"))
				append = a.v[k + 1];
		assert_non_null(append);
		if (strlen(append) < strlen(cases[i].append_tail) ||
		    strcmp(append + strlen(append) - strlen(cases[i].append_tail), cases[i].append_tail))
			fail_msg("%s: -append '%s' does not end with '%s'", cases[i].backend, append, cases[i].append_tail);
		strv_clear(&a);
		/* nic=none: no link, nothing on the command line */
		lab_config_set(&c, LAB_NIC, "none");
		assert_int_equal(lab_qemu_argv(&c, &p, &a, why, sizeof(why)), 0);
		for (size_t k = 0; k < a.n; k++)
			assert_null(strstr(a.v[k], "vmbench.net="));
		assert_false(has_pair(&a, "-netdev", cases[i].netdev));
		strv_clear(&a);
	}
	/* the modules the guest loads, last on the command line when given */
	{
		struct lab_config c = config_of("tcg", "x86_64", "virtio-blk", "none", "1", "1G");
		struct strv a = { 0 };

		p.modules = "virtio.ko,virtio_blk.ko";
		assert_int_equal(lab_qemu_argv(&c, &p, &a, why, sizeof(why)), 0);
		assert_true(has_pair(&a, "-append", "console=ttyS0 earlyprintk=serial,ttyS0,115200 panic=-1 "
						     "vmbench.agent=/dev/hvc0 vmbench.disks=1 vmbench.modules=virtio.ko,virtio_blk.ko"));
		strv_clear(&a);
		p.modules = NULL;
	}
	/* the default: a usable row of the NIC key, and user networking is always usable */
	be = lab_backend_pick(LAB_NIC, why, sizeof(why));
	assert_non_null(be);
	assert_int_equal(be->key, LAB_NIC);
	if (access("/dev/vhost-net", R_OK | W_OK) < 0)
		assert_non_null(strstr(why, "tap+vhost: /dev/vhost-net: "));
	assert_true(!strcmp(be->name, "user") || be->host_addr);
	be = lab_backend_pick(LAB_DISK, why, sizeof(why));
	assert_string_equal(be->name, "raw");
	assert_string_equal(why, "");
}

/* The raw back end's setup makes the scratch disk: a new file of the size
 * asked, never one that is there already. */
static void backend_setup(void **state)
{
	char dir[] = "/tmp/vmbench-backend-XXXXXX", disk[64], why[512];
	struct lab_paths p = { .disk = disk, .disk_size = 3 << 20 };
	struct lab_config c = config_of("tcg", "x86_64", "virtio-blk", "none", "1", "1G");
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(disk, sizeof(disk), "%s/disk.img", dir);
	p.backend[LAB_DISK] = "raw";
	assert_int_equal(lab_backends_setup(&c, &p, why, sizeof(why)), 0);
	assert_int_equal(stat(disk, &st), 0);
	assert_int_equal(st.st_size, 3 << 20);
	assert_int_equal(lab_backends_setup(&c, &p, why, sizeof(why)), -EIO);
	assert_non_null(strstr(why, "creating the scratch disk"));
	lab_backends_teardown(&c, &p);
	assert_int_equal(unlink(disk), 0);
	p.backend[LAB_DISK] = "vmdk";
	assert_int_equal(lab_backends_setup(&c, &p, why, sizeof(why)), -EINVAL);
	assert_int_equal(stat(disk, &st), -1);
	assert_int_equal(rmdir(dir), 0);
}

/* The scratch disk's keys (issue 26): backend= names the disk's rows
 * (file: --disk-format's), cache= is QEMU's mode from one table, and
 * snapshot=on puts the drive behind the overlay. */
static void drive_keys(void **state)
{
	static const struct {
		const char *backend, *cache, *snapshot, *overlay, *file, *drive;
	} cases[] = {
		{ "raw", "none", "off", NULL, NULL, "file=/d.img,format=raw,if=none,id=d0,cache=none" },
		{ "qcow2", "unsafe", "off", NULL, NULL, "file=/d.img,format=qcow2,if=none,id=d0,cache=unsafe" },
		{ "block", "writethrough", "off", NULL, "/dev/loop7", "file=/dev/loop7,format=raw,if=none,id=d0,cache=writethrough" },
		{ "raw", "directsync", "on", "/o.qcow2", NULL, "file=/o.qcow2,format=qcow2,if=none,id=d0,cache=directsync" },
		{ "block", "writeback", "on", "/o.qcow2", "/dev/loop7", "file=/o.qcow2,format=qcow2,if=none,id=d0,cache=writeback" },
	};
	static const char *const disk_cache = LAB_CACHE_CHOICES;
	struct lab_config c = config_of("tcg", "x86_64", "virtio-blk", "none", "1", "1G");
	char why[512], values[128];

	(void)state;
	/* the key's values and --disk-cache's choices are the one table's */
	assert_string_equal(disk_cache, "none|writeback|writethrough|directsync|unsafe");
	lab_values_text(LAB_CACHE_NAMES, values, sizeof(values));
	assert_string_equal(values, "none, writeback, writethrough, directsync, unsafe");
	for (const char *m = LAB_CACHE_NAMES + 1; *m; m += strcspn(m, " "), m += *m == ' ') {
		char mode[32];

		snprintf(mode, sizeof(mode), "%.*s", (int)strcspn(m, " "), m);
		lab_config_set(&c, LAB_CACHE, mode);
		/* O_DIRECT: the modes whose host cache is off */
		assert_int_equal(lab_config_direct(&c), !strcmp(c.v[LAB_CACHE], "none") || !strcmp(c.v[LAB_CACHE], "directsync"));
	}
	/* every value of backend but file is a disk row of LAB_BACKENDS, none an image format */
	assert_string_equal(c.v[LAB_BACKEND], "file");
	assert_string_equal(lab_disk_backend_name(&c, "qcow2"), "qcow2");
	lab_config_set(&c, LAB_BACKEND, "block");
	assert_string_equal(lab_disk_backend_name(&c, "qcow2"), "block");
	{
		struct lab_paths p = { 0 };

		p.backend[LAB_DISK] = "block";
		assert_non_null(lab_backend_of(&p, LAB_DISK));
		assert_null(strstr(LAB_BACKEND_CHOICES(LAB_DISK), "block"));
	}
	/* an image file is a field of its row: --disk-format's choices are the disk rows that have it, and no
	 * value of the backend key has it */
	for (size_t i = 0; i < lab_nbackends; i++) {
		const struct lab_backend *be = &lab_backends[i];

		assert_int_equal(be->image_file, be->key == LAB_DISK && str_in_list(LAB_BACKEND_CHOICES(LAB_DISK), '|', be->name));
		assert_false(be->image_file && str_in_list(lab_key_values(LAB_BACKEND) + 1, ' ', be->name));
	}
	assert_string_equal(LAB_BACKEND_CHOICES(LAB_DISK), "raw|qcow2");
	assert_string_equal(c.v[LAB_SNAPSHOT], "off");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lab_host_disk h = { .fd = -1 };
		struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/d.img", .qmp_socket = "/q",
				       .agent_socket = "/a", .console_log = "/c", .overlay = cases[i].overlay };
		struct strv a = { 0 };

		if (cases[i].file) {
			snprintf(h.file, sizeof(h.file), "%s", cases[i].file);
			h.format = "raw";
			p.host_disk = &h;
		}
		p.backend[LAB_DISK] = cases[i].backend;
		p.disk_cache = cases[i].cache;
		lab_config_set(&c, LAB_CACHE, cases[i].cache);
		lab_config_set(&c, LAB_SNAPSHOT, cases[i].snapshot);
		assert_int_equal(lab_qemu_argv(&c, &p, &a, why, sizeof(why)), 0);
		if (!has_pair(&a, "-drive", cases[i].drive))
			fail_msg("case %zu: no -drive %s", i, cases[i].drive);
		strv_clear(&a);
		/* an overlay asked for and not made: no command line */
		p.overlay = NULL;
		assert_int_equal(lab_qemu_argv(&c, &p, &a, why, sizeof(why)) < 0, cases[i].overlay != NULL);
		strv_clear(&a);
	}
}

/* snapshot=on over a raw disk in a new directory dir (a mkdtemp template),
 * whose files p->disk and p->overlay (64 bytes each) name: the setup's result */
static int overlay_in(char *dir, struct lab_paths *p, struct lab_config *c, char *why, size_t len)
{
	assert_non_null(mkdtemp(dir));
	snprintf((char *)p->disk, 64, "%s/disk.img", dir);
	snprintf((char *)p->overlay, 64, "%s/overlay.qcow2", dir);
	p->backend[LAB_DISK] = "raw";
	lab_config_set(c, LAB_SNAPSHOT, "on");
	lab_config_set(c, LAB_CACHE, "writeback");
	return lab_backends_setup(c, p, why, len);
}

/* snapshot=on: the overlay qemu-img makes over the raw disk names it as
 * its backing file, in its format; backend=block binds a loop device to
 * the lab's file, autoclear, and teardown lets the kernel unbind it (or,
 * where loop devices cannot be had, the back end says why and is skipped). */
static void drive_setup(void **state)
{
	char dir[] = "/tmp/vmbench-drive-XXXXXX", disk[64], overlay[64], why[512], *text = NULL;
	struct lab_host_disk h = { .fd = -1 };
	struct lab_paths p = { .disk = disk, .disk_size = 4 << 20, .overlay = overlay, .host_disk = &h };
	struct lab_config c = config_of("tcg", "x86_64", "virtio-blk", "none", "1", "1G");
	int r;

	(void)state;
	r = overlay_in(dir, &p, &c, why, sizeof(why));
	if (r == 0) {
		/* the header's backing file name and format (qcow2's, in plain text) */
		assert_int_equal(read_file(overlay, &text), 0);
		assert_memory_equal(text, "QFI\xfb", 4);
		free(text);
		text = NULL;
	} else {
		assert_non_null(strstr(why, "qemu-img could not create the qcow2 overlay"));
	}
	lab_backends_teardown(&c, &p);
	(void)unlink(overlay);
	assert_int_equal(unlink(disk), 0);
	/* a block device: bound to our file while held, unbound once let go */
	p.backend[LAB_DISK] = "block";
	lab_config_set(&c, LAB_SNAPSHOT, "off");
	r = lab_backends_setup(&c, &p, why, sizeof(why));
	if (r == 0) {
		char sys[96], back[256];

		assert_int_equal(strncmp(h.file, "/dev/loop", 9), 0);
		assert_string_equal(h.format, "raw");
		assert_true(h.fd >= 0);
		snprintf(sys, sizeof(sys), "/sys/block/%s/loop/backing_file", h.file + 5);
		assert_int_equal(read_line_at("/", sys, back, sizeof(back)), 0);
		assert_string_equal(back, disk);
		/* cache=none (the default): the device asked for direct I/O, and
		 * the record says what the kernel did, as its sysfs says */
		snprintf(sys, sizeof(sys), "/sys/block/%s/loop/dio", h.file + 5);
		assert_int_equal(read_line_at("/", sys, back, sizeof(back)), 0);
		assert_int_equal(h.direct_io, atoi(back));
		lab_backends_teardown(&c, &p);
		assert_int_equal(h.fd, -1);
		/* autoclear: gone with its last user */
		snprintf(sys, sizeof(sys), "/sys/block/%s/loop/backing_file", h.file + 5);
		assert_true(read_line_at("/", sys, back, sizeof(back)) < 0 || strcmp(back, disk));
		(void)unlink(disk);
		/* cache=writeback: the host's page cache is wanted, no direct I/O */
		p.disk_cache = "writeback";
		assert_int_equal(lab_backends_setup(&c, &p, why, sizeof(why)), 0);
		assert_int_equal(h.direct_io, 0);
		snprintf(sys, sizeof(sys), "/sys/block/%s/loop/dio", h.file + 5);
		assert_int_equal(read_line_at("/", sys, back, sizeof(back)), 0);
		assert_string_equal(back, "0");
		lab_backends_teardown(&c, &p);
		p.disk_cache = NULL;
	} else {
		assert_int_equal(r, -EOPNOTSUPP);
		assert_non_null(strstr(why, "backend=block"));
		assert_int_equal(h.fd, -1);
	}
	(void)unlink(disk);
	assert_int_equal(rmdir(dir), 0);
}

/* snapshot=on in a relative $TMPDIR: qemu-img reads a relative backing
 * file name from the overlay's own directory, so the overlay must name the
 * disk by its absolute path, else QEMU cannot open what it was given. */
static void drive_overlay_relative_dir(void **state)
{
	char dir[] = "vmbench-drive-XXXXXX", disk[64], overlay[64], abs[4096], why[512], *text = NULL;
	char *const version[] = { "qemu-img", "--version", NULL };
	struct lab_host_disk h = { .fd = -1 };
	struct lab_paths p = { .disk = disk, .disk_size = 1 << 20, .overlay = overlay, .host_disk = &h };
	struct lab_config c = config_of("tcg", "x86_64", "virtio-blk", "none", "1", "1G");
	int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	(void)state;
	if (run_capture("qemu-img", version, NULL, NULL) < 0)
		skip(); /* no qemu-img here: nothing to check */
	assert_true(cwd >= 0);
	assert_int_equal(chdir("/tmp"), 0);
	r = overlay_in(dir, &p, &c, why, sizeof(why));
	if (r < 0)
		print_message("%s\n", why);
	assert_int_equal(r, 0);
	snprintf(abs, sizeof(abs), "/tmp/%s", disk);
	assert_int_equal(read_file(overlay, &text), 0);
	assert_non_null(memmem(text, 4096, abs, strlen(abs)));
	free(text);
	lab_backends_teardown(&c, &p);
	assert_int_equal(unlink(overlay), 0);
	assert_int_equal(unlink(disk), 0);
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(fchdir(cwd), 0);
	close(cwd);
}

/* Host write amplification: a ratio of two positive, finite counts, or
 * nothing (never a made-up value). */
static void write_amplification(void **state)
{
	static const struct {
		double host, guest, amp;
		int r;
	} cases[] = {
		{ 16384, 4096, 4, 0 },
		{ 4096, 4096, 1, 0 },
		{ 2048, 4096, 0.5, 0 },
		{ 0, 4096, -1, -EINVAL },
		{ 4096, 0, -1, -EINVAL },
		{ -4096, 4096, -1, -EINVAL },
		{ NAN, 4096, -1, -EINVAL },
		{ 4096, NAN, -1, -EINVAL },
		{ INFINITY, 4096, -1, -EINVAL },
		{ 1e308, 1e-308, -1, -EINVAL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double amp = -1;

		if (lab_write_amplification(cases[i].host, cases[i].guest, &amp) != cases[i].r || amp != cases[i].amp)
			fail_msg("case %zu: %g / %g: %g", i, cases[i].host, cases[i].guest, amp);
	}
}

/* The share key, a row per model: its QEMU arguments on each architecture
 * (the back end of its own name, as a boot names it), its guest modules
 * instead of the scratch disk's filesystem's, and the matrices refused. */
static void share_arguments(void **state)
{
	static const struct {
		const char *spec, *opt, *val; /* val NULL: opt is not on the line */
	} cases[] = {
		{ "accel=tcg share=9p", "-fsdev", "local,id=s0,path=/w/share,security_model=none" },
		{ "accel=tcg share=9p", "-device", "virtio-9p-pci,fsdev=s0,mount_tag=vmbench" },
		{ "accel=tcg share=9p arch=aarch64", "-device", "virtio-9p-pci,fsdev=s0,mount_tag=vmbench" },
		{ "accel=tcg share=9p", "-numa", NULL },
		{ "accel=tcg share=virtiofs", "-chardev", "socket,id=s0,path=/w/virtiofsd.sock" },
		{ "accel=tcg share=virtiofs", "-device", "vhost-user-fs-pci,chardev=s0,tag=vmbench" },
		{ "accel=tcg share=virtiofs mem=1G", "-object", "memory-backend-memfd,id=vmbmem,size=1G,share=on" },
		{ "accel=tcg share=virtiofs", "-numa", "node,memdev=vmbmem" },
		{ "accel=tcg share=virtiofs", "-fsdev", NULL },
		/* the pc machine of IDE, and aarch64's virt, take the shared memory too */
		{ "accel=tcg share=virtiofs disk=ide", "-numa", "node,memdev=vmbmem" },
		{ "accel=tcg share=virtiofs arch=aarch64", "-device", "vhost-user-fs-pci,chardev=s0,tag=vmbench" },
		{ "accel=tcg share=none", "-fsdev", NULL },
		{ "accel=tcg share=none", "-numa", NULL },
		{ "accel=tcg share=none", "-chardev", "socket,id=agent,path=/a,server=on,wait=off" },
	};
	static const struct {
		const char *spec, *msg;
	} refused[] = {
		{ "share=9p fs=none", "share=9p runs the file tests on the shared folder, with no filesystem of the scratch "
				      "disk, so fs=none means nothing there (raw-device tests need a block device" },
		{ "share=none,virtiofs fs=xfs", "share=virtiofs runs the file tests on the shared folder" },
		{ "share=nfs", "share=nfs is not known; valid values of share: none, 9p, virtiofs" },
	};
	struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/d.img", .qmp_socket = "/q", .agent_socket = "/a",
			       .console_log = "/c", .work_dir = "/w" };
	char why[512];
	struct lab_matrix m;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strv a = { 0 };
		int r;

		assert_int_equal(lab_matrix_parse(cases[i].spec, &m, why, sizeof(why)), 0);
		memset(p.backend, 0, sizeof(p.backend));
		lab_backends_own(&m.configs[0], p.backend);
		assert_false(lab_config_unsupported(&m.configs[0], why, sizeof(why)));
		r = lab_qemu_argv(&m.configs[0], &p, &a, why, sizeof(why));
		if (r != 0)
			fail_msg("case %zu (%s): %d (%s)", i, cases[i].spec, r, why);
		else if (cases[i].val && !has_pair(&a, cases[i].opt, cases[i].val))
			fail_msg("case %zu (%s): no %s %s", i, cases[i].spec, cases[i].opt, cases[i].val);
		else if (!cases[i].val)
			for (size_t k = 0; k < a.n; k++)
				if (!strcmp(a.v[k], cases[i].opt))
					fail_msg("case %zu (%s): %s given", i, cases[i].spec, cases[i].opt);
		strv_clear(&a);
		lab_matrix_release(&m);
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(lab_matrix_parse(refused[i].spec, &m, why, sizeof(why)), -EINVAL);
		if (!strstr(why, refused[i].msg))
			fail_msg("'%s': '%s' lacks '%s'", refused[i].spec, why, refused[i].msg);
	}
	/* share=none,9p with the default fs: one matrix, the share wins where set */
	assert_int_equal(lab_matrix_parse("share=none,9p,virtiofs", &m, why, sizeof(why)), 0);
	assert_int_equal(m.n, 3);
	for (size_t i = 0; i < m.n; i++) {
		struct strv want = { 0 };
		bool ext4 = false, p9 = false, vfs = false;

		assert_int_equal(lab_config_modules(&m.configs[i], &want), 0);
		for (size_t j = 0; j < want.n; j++) {
			ext4 |= !strcmp(want.v[j], "ext4");
			p9 |= !strcmp(want.v[j], "9p") || !strcmp(want.v[j], "9pnet_virtio");
			vfs |= !strcmp(want.v[j], "virtiofs");
		}
		/* each share's modules only where it is; ext4 only where the scratch disk gets it */
		assert_true(ext4 == (i == 0) && p9 == (i == 1) && vfs == (i == 2));
		strv_clear(&want);
	}
	assert_string_equal(lab_key_suite(LAB_SHARE), "disk");
	lab_matrix_release(&m);
	/* every share model has its back end and its mount */
	for (size_t i = 0; i < lab_ndevices; i++) {
		const char *names[LAB_KEYS_MAX] = { 0 };
		struct lab_config c = config_of("tcg", "x86_64", "virtio-blk", "none", "1", "1G");

		if (lab_devices[i].key != LAB_SHARE)
			continue;
		lab_config_set(&c, LAB_SHARE, lab_devices[i].name);
		lab_backends_own(&c, names);
		assert_non_null(names[LAB_SHARE]);
		assert_string_equal(names[LAB_SHARE], lab_devices[i].name);
		assert_non_null(lab_share_find(lab_devices[i].name));
	}
}

/* A share's host side: its directory made in the work directory, and
 * removed with everything the guest put there, links removed and never
 * followed; where QEMU or virtiofsd cannot have it, -EOPNOTSUPP with why
 * (the configuration is skipped). */
static void share_backends(void **state)
{
	static const char *const shares[] = { "9p", "virtiofs" };
	char why[512], path[256], outside[] = "/tmp/vmbench-outside-XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(outside));
	snprintf(path, sizeof(path), "%s/keep", outside);
	assert_int_equal(close(open(path, O_CREAT | O_WRONLY | O_EXCL, 0600)), 0);
	for (size_t i = 0; i < sizeof(shares) / sizeof(shares[0]); i++) {
		char dir[] = "/tmp/vmbench-share-XXXXXX", disk[64];
		pid_t helper = 0;
		struct lab_paths p = { .work_dir = dir, .arch = "x86_64", .share_helper = &helper, .disk = disk,
				       .disk_size = 1 << 20 };
		struct lab_config c = config_of("tcg", "x86_64", "virtio-blk", "none", "1", "1G");
		struct stat st;
		int r;

		assert_non_null(mkdtemp(dir));
		lab_config_set(&c, LAB_SHARE, shares[i]);
		snprintf(disk, sizeof(disk), "%s/disk.img", dir);
		lab_backends_own(&c, p.backend);
		p.backend[LAB_DISK] = "raw";
		r = lab_backends_setup(&c, &p, why, sizeof(why));
		if (r == -EOPNOTSUPP) {
			/* no QEMU with 9p, no virtiofsd here: said, nothing made (the disk's torn down by its own) */
			if (!strstr(why, shares[i]))
				fail_msg("%s: '%s' does not name the share", shares[i], why);
			snprintf(path, sizeof(path), "%s/share", dir);
			assert_int_equal(stat(path, &st), -1);
			(void)unlink(disk);
			snprintf(path, sizeof(path), "%s/" LAB_SHARE_LOG, dir);
			(void)unlink(path);
			assert_int_equal(rmdir(dir), 0);
			continue;
		}
		if (r != 0)
			fail_msg("%s: %d (%s)", shares[i], r, why);
		assert_int_equal(helper > 0, !strcmp(shares[i], "virtiofs"));
		/* what a guest leaves: a file, a directory tree, a link out of the share */
		snprintf(path, sizeof(path), "%s/share/f", dir);
		assert_int_equal(close(open(path, O_CREAT | O_WRONLY | O_EXCL, 0600)), 0);
		snprintf(path, sizeof(path), "%s/share/d", dir);
		assert_int_equal(mkdir(path, 0700), 0);
		snprintf(path, sizeof(path), "%s/share/d/e", dir);
		assert_int_equal(mkdir(path, 0700), 0);
		snprintf(path, sizeof(path), "%s/share/d/e/g", dir);
		assert_int_equal(close(open(path, O_CREAT | O_WRONLY | O_EXCL, 0600)), 0);
		snprintf(path, sizeof(path), "%s/share/out", dir);
		assert_int_equal(symlink(outside, path), 0);
		lab_backends_teardown(&c, &p);
		assert_int_equal(helper, 0);
		/* the work directory has nothing of the share's left (virtiofsd's log stays, for evidence) */
		snprintf(path, sizeof(path), "%s/share", dir);
		assert_int_equal(lstat(path, &st), -1);
		snprintf(path, sizeof(path), "%s/" LAB_SHARE_SOCKET, dir);
		assert_int_equal(lstat(path, &st), -1);
		snprintf(path, sizeof(path), "%s/" LAB_SHARE_LOG, dir);
		(void)unlink(path);
		assert_int_equal(unlink(disk), 0);
		assert_int_equal(rmdir(dir), 0);
	}
	/* the link's target is untouched */
	snprintf(path, sizeof(path), "%s/keep", outside);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(outside), 0);
}

static int never_here(const struct vmb_env *env, const char **why)
{
	(void)env;
	*why = "a toy measured from the host";
	return 0;
}

/* Host-measured suites are rows of one lab table: each lab-only suite of
 * the list has exactly one row and no run() that would only pretend (the
 * row measures it), the others none; a lab-only suite without a row is
 * refused at start-up; which of a row's tests the items ask is decided by
 * the tests' names and flags, not by their positions. */
static void host_measured_suites_are_rows(void **state)
{
	static const struct vmb_test toy_tests[] = {
		{ .name = "one", .summary = "one", .headline = "x_s" }, { .name = NULL },
	};
	static const struct vmb_suite toy_host = {
		.name = "toyhost", .summary = "toy", .abi = VMB_SUITE_ABI, .flags = VMB_SUITE_LAB_ONLY,
		.tests = toy_tests, .supported = never_here,
	};
	static const struct {
		const char *items, *suite, *test;
		bool asked;
	} cases[] = {
		{ "boot", "boot", NULL, true },
		{ "boot", "boot", "cold", true },
		{ "boot", "boot", "warm", true },
		{ "boot", "boot", "reboot", false }, /* only when named */
		{ "cpu,boot.reboot", "boot", "reboot", true },
		{ "boot.cold", "boot", "warm", false },
		{ "balloon", "balloon", "loaded", true },
		{ "balloon.idle", "balloon", "loaded", false },
		{ "cpu,vmops.savevm", "vmops", "savevm", true },
		{ "cpu,vmops.savevm", "vmops", "migrate", false },
		{ "vmops", "vmops", "snapshot", true },
		{ "cpu,disk", "vmops", NULL, false },
		{ "", "balloon", NULL, false },
	};
	const struct vmb_suite *list[64];
	char why[256];
	size_t n = 0;

	(void)state;
	assert_int_equal(lab_host_check(vmb_suites, vmb_nsuites, why, sizeof(why)), 0);
	for (size_t i = 0; i < vmb_nsuites; i++) {
		const struct vmb_suite *s = vmb_suites[i];
		const struct lab_host_row *row = lab_host_row_of(s);
		bool lab_only = s->flags & VMB_SUITE_LAB_ONLY;

		if (lab_only != (row != NULL))
			fail_msg("suite %s: lab-only %d, a row of the lab's host-measured table %d", s->name, lab_only,
				 row != NULL);
		assert_int_equal(lab_host_measured(s->name), lab_only);
		for (const struct vmb_test *t = s->tests; t->name; t++)
			if (lab_only ? t->run != NULL : t->run == NULL)
				fail_msg("%s.%s: run() %s", s->name, t->name, lab_only ? "that only pretends" : "missing");
		if (row && !row->measure)
			fail_msg("suite %s: its row has no measure function", s->name);
		list[n++] = s;
	}
	/* a lab-only suite that no row measures is refused */
	list[n++] = &toy_host;
	assert_int_equal(lab_host_check(list, n, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "toyhost"));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (lab_host_asked(suites_find(cases[i].suite), cases[i].items, cases[i].test) != cases[i].asked)
			fail_msg("case %zu: items %s, %s.%s: not %s", i, cases[i].items, cases[i].suite,
				 cases[i].test ? cases[i].test : "*", cases[i].asked ? "asked" : "unasked");
}

/* lab contend's host-measured suites are rows with their measure function
 * like the others: given what contend saw of a guest over a cell (a
 * figure not measured is NaN), each makes its suite's document, with a
 * case per item and no number made up. */
static void contend_rows_measure_what_contend_saw(void **state)
{
	const struct lab_host_contended seen[] = {
		{ .item = "cpu", .share_pct = 48.5, .promised_pct = 50, .delay_pct = 3.25, .delay_ns_per_slice = 1200,
		  .jain = 0.99 },
		{ .item = "mem.bandwidth", .share_pct = NAN, .promised_pct = 50, .delay_pct = NAN,
		  .delay_ns_per_slice = NAN, .jain = NAN },
	};
	const char *const notes[][2] = { { "policy", "equal weights" }, { "guests", "2" } };
	size_t rows = 0;

	(void)state;
	for (size_t i = 0; i < lab_host_nrows; i++) {
		const struct lab_host_row *row = &lab_host_rows[i];
		struct lab_host_req rq = { .suite = row->suite, .seen = seen, .nseen = 2, .notes = notes, .nnotes = 2 };
		const json_t *cases, *m0, *m1;
		json_t *suite = NULL;
		char err[256] = "";

		if (row->when != LAB_HOST_CONTEND)
			continue;
		rows++;
		assert_non_null(row->measure);
		assert_int_equal(row->measure(&rq, &suite, err, sizeof(err)), 0);
		assert_string_equal(json_string_value(json_object_get(suite, "name")), row->suite->name);
		cases = json_object_get(json_array_get(json_object_get(suite, "tests"), 0), "cases");
		assert_int_equal(json_array_size(cases), 2);
		assert_string_equal(json_string_value(json_object_get(json_object_get(json_array_get(cases, 0), "params"),
							      "item")), "cpu");
		assert_string_equal(json_string_value(json_object_get(json_object_get(json_array_get(cases, 1), "params"),
							      "item")), "mem.bandwidth");
		m0 = json_object_get(json_array_get(cases, 0), "metrics");
		m1 = json_object_get(json_array_get(cases, 1), "metrics");
		assert_int_equal(json_array_size(m0), 5);
		assert_int_equal(json_array_size(m1), 1); /* the promise only: nothing measured is made up */
		assert_string_equal(json_string_value(json_object_get(json_array_get(m1, 0), "name")), "promised_share");
		assert_true(fabs(json_number_value(json_object_get(json_object_get(json_array_get(m0, 0), "summary"),
								   "mean")) - 48.5) < 1e-9);
		assert_string_equal(json_string_value(json_object_get(json_object_get(suite, "notes"), "policy")), "equal weights");
		json_decref(suite);
	}
	assert_int_equal(rows, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(expansion),
		cmocka_unit_test(union_of_products),
		cmocka_unit_test(messages),
		cmocka_unit_test(httpd_rows),
		cmocka_unit_test(value_lists),
		cmocka_unit_test(naming_configurations),
		cmocka_unit_test(command_lines),
		cmocka_unit_test(device_table),
		cmocka_unit_test(usb_disks),
		cmocka_unit_test(profiles),
		cmocka_unit_test(balloon_key),
		cmocka_unit_test(cpu_side_arguments),
		cmocka_unit_test(cpu_side_tables),
		cmocka_unit_test(thp_key),
		cmocka_unit_test(net_item_opts),
		cmocka_unit_test(cpu_side_parsers),
		cmocka_unit_test(nice_in_child),
		cmocka_unit_test(long_paths),
		cmocka_unit_test(backend_table),
		cmocka_unit_test(backend_setup),
		cmocka_unit_test(drive_keys),
		cmocka_unit_test(drive_setup),
		cmocka_unit_test(drive_overlay_relative_dir),
		cmocka_unit_test(write_amplification),
		cmocka_unit_test(share_arguments),
		cmocka_unit_test(share_backends),
		cmocka_unit_test(nic_backends),
		cmocka_unit_test(module_gathering),
		cmocka_unit_test(module_selection),
		cmocka_unit_test(module_names),
		cmocka_unit_test(table_check),
		cmocka_unit_test(scratch_options),
		cmocka_unit_test(fs_table),
		cmocka_unit_test(host_measured_suites_are_rows),
		cmocka_unit_test(contend_rows_measure_what_contend_saw),
		cmocka_unit_test(deb_depends),
		cmocka_unit_test(image_filesystems),
		cmocka_unit_test(paths_with_commas),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
