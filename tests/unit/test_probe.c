/* The probe on recorded and synthetic /proc + /sys trees of several machines,
 * its parsers fed bytes, and trees that try to hang or break it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "../../src/probe/cache.h"
#include "../../src/probe/probe.h"

struct expect {
	const char *fixture, *hv, *iface, *arch, *disk, *disk_driver, *nic, *nic_driver, *balloon;
	const char *clocksource, *thp;
	int nested, logical, sockets, numa;
};

static const struct expect machines[] = {
	{ "kvm-virtio", "KVM", NULL, "x86_64", "vda", "virtio_blk", "eth0", "virtio_net", "virtio_balloon",
	  "tsc", "madvise", 0, 2, 1, 1 },
	{ "vmware", "VMware", NULL, "x86_64", "sda", "vmw_pvscsi", "ens160", "vmxnet3", "vmw_balloon",
	  "tsc", "madvise", 0, 2, 1, 1 },
	{ "virtualbox-kvm-paravirt", "VirtualBox", "KVM", "x86_64", "sda", "ahci", "enp0s3", "e1000", "vboxguest",
	  "kvm-clock", "always", 0, 2, 1, 1 },
	{ "hyperv", "Hyper-V", NULL, "x86_64", "sda", "hv_storvsc", "eth0", "hv_netvsc", "hv_balloon",
	  "hyperv_clocksource_tsc_page", "madvise", 0, 2, 1, 1 },
	{ "qemu-tcg-ide", "QEMU TCG", NULL, "x86_64", "sda", "ata_piix", "ens3", "e1000", NULL,
	  "tsc", "never", 0, 1, 1, 1 },
	{ "kvm-hyperv-enlightened", "KVM", "Hyper-V", "x86_64", "sda", "virtio_scsi", "enp0s3", "virtio_net",
	  "virtio_balloon", "kvm-clock", "madvise", 1, 4, 1, 1 },
	{ "aarch64-tcg", "QEMU TCG", NULL, "aarch64", "vda", "virtio_blk", "eth0", "virtio_net", NULL,
	  "arch_sys_counter", "madvise", 0, 2, 1, 1 },
	{ "aarch64-tcg-virt", "QEMU TCG", NULL, "aarch64", "vda", "virtio_blk", NULL, NULL, NULL,
	  "arch_sys_counter", "madvise", 0, 1, 1, 1 },
	{ "baremetal", "none", NULL, "x86_64", "nvme0n1", "nvme", "eno1", "e1000e", NULL,
	  "tsc", "always", 0, 8, 2, 2 },
	/* QEMU before 4.0 under TCG: no signature; DMI "Bochs", the QEMU CPU model, the bit */
	{ "qemu-tcg-nosig", "QEMU TCG", NULL, "x86_64", "sda", "ata_piix", "ens3", "e1000", NULL,
	  "tsc", "never", 0, 1, 1, 1 },
	/* vmx hidden by the host, /dev/kvm working: the CPU-flag view stays false */
	{ "kvm-devkvm-no-vmx", "KVM", NULL, "x86_64", "sda", "virtio_scsi", "enp0s3", "virtio_net", "virtio_balloon",
	  "tsc", "madvise", 0, 2, 1, 1 },
	/* non-UTF-8 strings and package ids of -1: sockets unknown (0 here: null) */
	{ "odd-values", "KVM", NULL, "x86_64", "sda", "ata_piix", "ens3", "e1000", NULL,
	  "tsc", "madvise", 0, 2, 0, 1 },
};

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static const json_t *find(const json_t *arr, const char *name)
{
	size_t i;
	json_t *x;

	json_array_foreach(arr, i, x)
		if (!strcmp(str(x, "name"), name))
			return x;
	return NULL;
}

static void expect_str(const char *fixture, const char *what, const char *got, const char *want)
{
	if (!want && !got)
		return;
	if (!want || !got || strcmp(got, want))
		fail_msg("%s: %s is \"%s\", expected \"%s\"", fixture, what, got ? got : "(null)", want ? want : "(null)");
}

static void fixtures(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(machines) / sizeof(machines[0]); i++) {
		const struct expect *e = &machines[i];
		char root[512];
		json_t *fp, *hv, *cpu;
		const json_t *d;

		snprintf(root, sizeof(root), "%s/probe/%s", FIXTURES, e->fixture);
		fp = probe_fingerprint(&(struct probe_src){ .root = root });
		assert_non_null(fp);
		hv = json_object_get(fp, "hypervisor");
		cpu = json_object_get(fp, "cpu");
		expect_str(e->fixture, "hypervisor", str(hv, "name"), e->hv);
		expect_str(e->fixture, "interface", str(hv, "interface"), e->iface);
		expect_str(e->fixture, "arch", str(fp, "arch"), e->arch);
		d = find(json_object_get(fp, "block_devices"), e->disk);
		if (!d)
			fail_msg("%s: no block device %s", e->fixture, e->disk);
		expect_str(e->fixture, "disk driver", str(d, "driver"), e->disk_driver);
		assert_true(json_integer_value(json_object_get(d, "size_bytes")) > 0);
		if (e->nic) {
			d = find(json_object_get(fp, "network"), e->nic);
			if (!d)
				fail_msg("%s: no interface %s", e->fixture, e->nic);
			expect_str(e->fixture, "nic driver", str(d, "driver"), e->nic_driver);
		} else {
			/* the lab's guests have no NIC unless the matrix asks for one */
			assert_int_equal(json_array_size(json_object_get(fp, "network")), 0);
		}
		expect_str(e->fixture, "balloon", str(json_object_get(fp, "balloon"), "driver"), e->balloon);
		expect_str(e->fixture, "clocksource", str(json_object_get(fp, "clocksource"), "current"), e->clocksource);
		expect_str(e->fixture, "thp", str(json_object_get(fp, "thp"), "enabled"), e->thp);
		assert_int_equal(json_is_true(json_object_get(hv, "nested_virt_available")), e->nested);
		assert_int_equal(json_integer_value(json_object_get(cpu, "logical")), e->logical);
		assert_int_equal(json_integer_value(json_object_get(cpu, "sockets")), e->sockets);
		assert_int_equal(json_integer_value(json_object_get(cpu, "numa_nodes")), e->numa);
		/* loopback and loop devices are not listed */
		assert_null(find(json_object_get(fp, "network"), "lo"));
		json_decref(fp);
	}
}

static void details(void **state)
{
	char root[512];
	json_t *fp, *caches;

	(void)state;
	snprintf(root, sizeof(root), "%s/probe/vmware", FIXTURES);
	fp = probe_fingerprint(&(struct probe_src){ .root = root });
	/* steal: 1234 ticks of USER_HZ 100 */
	assert_close(json_real_value(json_object_get(json_object_get(fp, "steal"), "seconds")), 12.34, 1e-9);
	/* the data caches, each with its source (L1i is not one of them) */
	caches = json_object_get(json_object_get(fp, "cpu"), "caches");
	assert_int_equal(json_array_size(caches), 3);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(caches, 2), "size_bytes")), 22528 * 1024);
	assert_string_equal(str(json_array_get(caches, 2), "source"), "sysfs");
	assert_true(json_is_true(json_object_get(json_object_get(json_object_get(fp, "cpu"), "flags"), "invariant_tsc")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(fp, "memory"), "total_bytes")),
			 4026532LL * 1024);
	assert_string_equal(str(fp, "hostname"), "esx-guest");
	json_decref(fp);

	/* Hyper-V by its name; the raw signature in its own field */
	snprintf(root, sizeof(root), "%s/probe/hyperv", FIXTURES);
	fp = probe_fingerprint(&(struct probe_src){ .root = root });
	assert_string_equal(str(json_object_get(fp, "hypervisor"), "name"), "Hyper-V");
	assert_string_equal(str(json_object_get(fp, "hypervisor"), "cpuid_signature"), "Microsoft Hv");
	json_decref(fp);

	/* Bytes that are not UTF-8 are escaped, and a package id of -1 is no shift */
	snprintf(root, sizeof(root), "%s/probe/odd-values", FIXTURES);
	fp = probe_fingerprint(&(struct probe_src){ .root = root });
	assert_non_null(fp);
	assert_string_equal(str(fp, "hostname"), "caf\\xe9-\\xff\\xfe");
	assert_string_equal(str(json_object_get(fp, "hypervisor"), "dmi_product"), "Virtual \\xc3( Machine");
	assert_string_equal(str(json_object_get(fp, "cpu"), "model"), "Xeon\\xae \\xed\\xa0\\x80");
	assert_true(json_is_null(json_object_get(json_object_get(fp, "cpu"), "sockets")));
	assert_true(json_is_null(json_object_get(json_object_get(fp, "cpu"), "cores")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(fp, "cpu"), "logical")), 2);
	json_decref(fp);

	/* A root with nothing in it: every field null or empty, no crash. */
	fp = probe_fingerprint(&(struct probe_src){ .root = "/nonexistent-root" });
	assert_non_null(fp);
	assert_string_equal(str(json_object_get(fp, "hypervisor"), "name"), "none");
	assert_int_equal(json_array_size(json_object_get(fp, "block_devices")), 0);
	json_decref(fp);
}

static void parsers(void **state)
{
	char out[32];

	(void)state;
	assert_int_equal(probe_bracketed("always [madvise] never", out, sizeof(out)), 0);
	assert_string_equal(out, "madvise");
	assert_int_equal(probe_bracketed("none", out, sizeof(out)), -22);
	assert_string_equal(probe_hv_from_signature("KVMKVMKVM"), "KVM");
	assert_string_equal(probe_hv_from_signature("VBoxVBoxVBox"), "VirtualBox");
	assert_string_equal(probe_hv_from_signature("XenVMMXenVMM"), "Xen");
	assert_string_equal(probe_hv_from_signature("bhyve bhyve "), "bhyve");
	assert_string_equal(probe_hv_from_signature("ACRNACRNACRN"), "ACRN");
	assert_string_equal(probe_hv_from_signature(" lrpepyh  vr"), "Parallels");
	assert_null(probe_hv_from_signature("GenuineIntel"));
	assert_string_equal(probe_hv_from_dmi("Xen", "HVM domU"), "Xen");
	assert_string_equal(probe_hv_from_dmi("Parallels Software International Inc.", "Parallels Virtual Platform"),
			    "Parallels");
	assert_string_equal(probe_hv_from_dmi("Amazon EC2", "m5.large"), "KVM");
	assert_string_equal(probe_hv_from_dmi("QEMU", "KVM Virtual Machine"), "KVM");
	assert_null(probe_hv_from_dmi("Dell Inc.", "PowerEdge R640"));
	assert_int_equal(probe_parse_cache_size("32K"), 32768);
	assert_int_equal(probe_parse_cache_size("1024K"), 1 << 20);
	assert_int_equal(probe_parse_cache_size("junk"), 0);
}


/* Every signature and DMI string names a product, never a raw signature. */
static void names(void **state)
{
	static const struct {
		const char *sig, *name;
	} sigs[] = {
		{ "KVMKVMKVM", "KVM" }, { "Linux KVM Hv", "KVM" }, { "Microsoft Hv", "Hyper-V" },
		{ "VMwareVMware", "VMware" }, { "VBoxVBoxVBox", "VirtualBox" }, { "XenVMMXenVMM", "Xen" },
		{ "TCGTCGTCGTCG", "QEMU TCG" }, { "bhyve bhyve ", "bhyve" }, { "ACRNACRNACRN", "ACRN" },
		{ " lrpepyh  vr", "Parallels" }, { "prl hyperv  ", "Parallels" }, { "QNXQVMBSQG", "QNX" },
		{ "Jailhouse", "Jailhouse" }, { "GenuineIntel", NULL }, { "", NULL },
	};
	static const struct {
		const char *vendor, *product, *name;
	} dmi[] = {
		{ "Xen", "HVM domU", "Xen" },
		{ "Parallels Software International Inc.", "Parallels Virtual Platform", "Parallels" },
		{ "Amazon EC2", "m5.large", "KVM" },
		{ "QEMU", "KVM Virtual Machine", "KVM" },
		{ "QEMU", "QEMU Virtual Machine", "QEMU TCG" },
		{ "QEMU", "Standard PC (Q35 + ICH9, 2009)", "QEMU" },
		{ "Bochs", "Bochs", "QEMU" },
		{ "Microsoft Corporation", "Virtual Machine", "Hyper-V" },
		{ "innotek GmbH", "VirtualBox", "VirtualBox" },
		{ "Oracle Corporation", "VirtualBox", "VirtualBox" },
		{ "VMware, Inc.", "VMware7,1", "VMware" },
		{ "FreeBSD", "BHYVE", "bhyve" },
		/* OpenStack runs on any hypervisor: DMI saying OpenStack names none */
		{ "OpenStack Foundation", "OpenStack Nova", NULL },
		{ "Microsoft Corporation", "Surface Laptop", NULL },
		{ "Dell Inc.", "PowerEdge R640", NULL },
		{ NULL, NULL, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		expect_str(sigs[i].sig, "signature name", probe_hv_from_signature(sigs[i].sig), sigs[i].name);
	for (size_t i = 0; i < sizeof(dmi) / sizeof(dmi[0]); i++)
		expect_str(dmi[i].product ? dmi[i].product : "(none)", "dmi name",
			   probe_hv_from_dmi(dmi[i].vendor, dmi[i].product), dmi[i].name);
}

/* The decision from every kind of evidence, and which sources made it. */
static void decide(void **state)
{
	static const struct {
		const char *what;
		struct probe_hv_evidence e;
		const char *name, *iface, *decided; /* decided: the sources joined by "," */
	} cases[] = {
		{ "hyper-v", { .hv_bit = 1, .sig = "Microsoft Hv", .dmi_vendor = "Microsoft Corporation",
			       .dmi_product = "Virtual Machine" }, "Hyper-V", NULL, "cpuid" },
		{ "kvm with hyper-v enlightenments, by dmi",
		  { .hv_bit = 1, .sig = "Microsoft Hv", .dmi_vendor = "QEMU", .dmi_product = "Standard PC (Q35 + ICH9, 2009)" },
		  "KVM", "Hyper-V", "cpuid,dmi" },
		{ "kvm with hyper-v enlightenments, by leaf 0x40000100",
		  { .hv_bit = 1, .sig = "Microsoft Hv", .sig2 = "KVMKVMKVM" }, "KVM", "Hyper-V", "cpuid,cpuid_0x40000100" },
		{ "kvm's own hyper-v vendor id", { .hv_bit = 1, .sig = "Linux KVM Hv" }, "KVM", "Hyper-V", "cpuid" },
		{ "virtualbox presenting kvm",
		  { .hv_bit = 1, .sig = "KVMKVMKVM", .dmi_vendor = "innotek GmbH", .dmi_product = "VirtualBox" },
		  "VirtualBox", "KVM", "cpuid,dmi" },
		{ "virtualbox presenting hyper-v",
		  { .hv_bit = 1, .sig = "Microsoft Hv", .dmi_vendor = "innotek GmbH", .dmi_product = "VirtualBox" },
		  "VirtualBox", "Hyper-V", "cpuid,dmi" },
		{ "xen with viridian",
		  { .hv_bit = 1, .sig = "Microsoft Hv", .dmi_vendor = "Xen", .dmi_product = "HVM domU" },
		  "Xen", "Hyper-V", "cpuid,dmi" },
		{ "kvm on ec2", { .hv_bit = 1, .sig = "KVMKVMKVM", .dmi_vendor = "Amazon EC2" }, "KVM", NULL, "cpuid" },
		{ "qemu tcg with signature", { .hv_bit = 1, .sig = "TCGTCGTCGTCG", .dmi_vendor = "QEMU" },
		  "QEMU TCG", NULL, "cpuid" },
		{ "old qemu tcg: bochs, model, bit",
		  { .hv_bit = 1, .sig = "", .dmi_vendor = "Bochs", .dmi_product = "Bochs",
		    .cpu_model = "QEMU Virtual CPU version 1.5.3" },
		  "QEMU TCG", NULL, "dmi,cpuid_hypervisor_bit,cpu_model" },
		{ "old qemu tcg: qemu dmi and the bit", { .hv_bit = 1, .sig = "", .dmi_vendor = "QEMU" },
		  "QEMU TCG", NULL, "dmi,cpuid_hypervisor_bit" },
		{ "old qemu under kvm: the signature decides",
		  { .hv_bit = 1, .sig = "KVMKVMKVM", .dmi_vendor = "Bochs", .cpu_model = "QEMU Virtual CPU version 1.5.3" },
		  "KVM", NULL, "cpuid" },
		{ "qemu, nothing else known", { .dmi_vendor = "QEMU" }, "QEMU", NULL, "dmi" },
		{ "arm virt under tcg", { .dmi_vendor = "QEMU", .dmi_product = "QEMU Virtual Machine" },
		  "QEMU TCG", NULL, "dmi" },
		{ "arm virt without firmware", { .dt_machine = "linux,dummy-virt", .midr_qemu = 1 },
		  "QEMU TCG", NULL, "device_tree,midr" },
		{ "xen pv", { .sys_hypervisor = "xen" }, "Xen", NULL, "sys_hypervisor" },
		{ "xen on arm", { .dt_hypervisor = "xen,xen-4.17" }, "Xen", NULL, "device_tree" },
		{ "unknown signature", { .hv_bit = 1, .sig = "SomethingNew" }, "unknown", NULL, "cpuid_hypervisor_bit" },
		{ "bare metal", { .dmi_vendor = "Dell Inc.", .dmi_product = "PowerEdge R640" }, "none", NULL, "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct probe_hv_verdict v;
		char by[256] = "";

		probe_hv_decide(&cases[i].e, &v);
		for (size_t k = 0; v.decided_by[k]; k++)
			snprintf(by + strlen(by), sizeof(by) - strlen(by), "%s%s", k ? "," : "", v.decided_by[k]);
		expect_str(cases[i].what, "name", v.name, cases[i].name);
		expect_str(cases[i].what, "interface", v.interface, cases[i].iface);
		expect_str(cases[i].what, "decided_by", by, cases[i].decided);
	}
}

/* /dev/kvm: recorded in a tree, or not probed; live on this machine it is
 * whatever it is, but consistent (creating a VM implies opening it). */
/* /dev/kvm in words, as info prints it and lab run skips accel=kvm with it:
 * usable only when it creates a VM. */
static void kvm_words(void **state)
{
	static const struct {
		const char *kvm; /* the fingerprint's "kvm" object */
		bool usable;
		const char *words;
	} cases[] = {
		{ "{\"probed\": \"live\", \"device\": true, \"opens\": true, \"api_version\": 12, \"creates_vm\": true}",
		  true, "present, opens, creates VMs (API 12)" },
		{ "{\"probed\": \"live\", \"device\": false}", false, "absent" },
		{ "{\"probed\": \"live\", \"device\": false, \"error\": \"Permission denied\"}", false,
		  "absent: Permission denied" },
		{ "{\"probed\": \"live\", \"device\": true, \"opens\": false, \"error\": \"Permission denied\"}", false,
		  "present, cannot be opened: Permission denied" },
		{ "{\"probed\": \"live\", \"device\": true, \"opens\": true, \"api_version\": 12, \"creates_vm\": false, "
		  "\"error\": \"Operation not permitted\"}", false,
		  "present, opens (API 12), cannot create a VM: Operation not permitted" },
		{ "{\"probed\": \"recorded\", \"device\": true, \"opens\": false}", false,
		  "present, cannot be opened [recorded]" },
		{ "{\"probed\": \"not probed\"}", false, "not probed (a recorded tree without a .kvm file)" },
		{ "null", false, "not probed (a recorded tree without a .kvm file)" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *k = json_loads(cases[i].kvm, JSON_DECODE_ANY, NULL);
		char buf[256];

		assert_int_equal(probe_kvm_describe(k, buf, sizeof(buf)), cases[i].usable);
		expect_str(cases[i].kvm, "words", buf, cases[i].words);
		json_decref(k);
	}
}

static void kvm_device(void **state)
{
	static const struct {
		const char *fixture, *probed;
		int device, opens, creates, api;
	} cases[] = {
		{ "kvm-devkvm-no-vmx", "recorded", 1, 1, 1, 12 },
		{ "hyperv", "not probed", -1, -1, -1, -1 },
	};
	json_t *fp, *k;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char root[512];

		snprintf(root, sizeof(root), "%s/probe/%s", FIXTURES, cases[i].fixture);
		fp = probe_fingerprint(&(struct probe_src){ .root = root });
		k = json_object_get(fp, "kvm");
		expect_str(cases[i].fixture, "kvm.probed", str(k, "probed"), cases[i].probed);
		if (cases[i].device < 0) {
			assert_true(json_is_null(json_object_get(k, "device")));
			assert_true(json_is_null(json_object_get(k, "creates_vm")));
		} else {
			assert_int_equal(json_is_true(json_object_get(k, "device")), cases[i].device);
			assert_int_equal(json_is_true(json_object_get(k, "opens")), cases[i].opens);
			assert_int_equal(json_is_true(json_object_get(k, "creates_vm")), cases[i].creates);
			assert_int_equal(json_integer_value(json_object_get(k, "api_version")), cases[i].api);
		}
		/* the CPU-flag view is kept beside it, and says what the flags say */
		assert_false(json_is_true(json_object_get(json_object_get(fp, "hypervisor"), "nested_virt_available")));
		json_decref(fp);
	}
	fp = probe_fingerprint(&(struct probe_src){ .root = "/" });
	k = json_object_get(fp, "kvm");
	assert_string_equal(str(k, "probed"), "live");
	assert_true(json_is_boolean(json_object_get(k, "device")));
	if (json_is_true(json_object_get(k, "creates_vm")))
		assert_true(json_is_true(json_object_get(k, "opens")) &&
			    json_integer_value(json_object_get(k, "api_version")) == 12);
	json_decref(fp);
}

static void cpuinfo(void **state)
{
	static const struct {
		const char *what, *text;
		const char *model, *vendor;
		size_t nflags;
		const char *has, *lacks;
		int midr; /* -1: none; else implementer << 12 | part */
	} cases[] = {
		{ "x86", "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\nflags\t\t: fpu vme  svm\n"
			 "\nprocessor\t: 1\nmodel name\t: other\nflags\t\t: vmx\n",
		  "AMD EPYC", "AuthenticAMD", 3, "svm", "vmx", -1 },
		{ "arm64", "processor\t: 0\nFeatures\t: fp asimd\nCPU implementer\t: 0x00\nCPU part\t: 0x051\n",
		  "0x051", "0x00", 2, "asimd", "fp asimd", 0x051 },
		{ "no final newline", "flags\t\t: a b hypervisor", "", "", 3, "hypervisor", "hyper", -1 },
		{ "a prefix of a flag is not the flag", "flags : avx512f\n", "", "", 1, "avx512f", "avx", -1 },
		{ "no colon anywhere", "model name\nflags\n", "", "", 0, NULL, "flags", -1 },
		{ "empty", "", "", "", 0, NULL, "fpu", -1 },
		{ "key without its space", "model name: X\nCPU implementer : 0xzz\nCPU part : 0x1\n", "X",
		  "0xzz", 0, NULL, NULL, -1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct probe_cpuinfo ci;

		probe_parse_cpuinfo(cases[i].text, strlen(cases[i].text), &ci);
		expect_str(cases[i].what, "model", ci.model, cases[i].model);
		expect_str(cases[i].what, "vendor", ci.vendor, cases[i].vendor);
		assert_int_equal(ci.nflags, cases[i].nflags);
		if (cases[i].has)
			assert_true(probe_has_flag(&ci, cases[i].has));
		if (cases[i].lacks && !strchr(cases[i].lacks, ' '))
			assert_false(probe_has_flag(&ci, cases[i].lacks));
		assert_int_equal(ci.have_midr, cases[i].midr >= 0);
		if (cases[i].midr >= 0)
			assert_int_equal(ci.implementer << 12 | ci.part, cases[i].midr);
	}
}

/* A flags line of 3.6 MB: parsed once, in linear time. When every word
 * rescanned the rest of the line, 1.2 MB took over 30 s, and this one would
 * outlast the test's timeout. */
static void long_flags_line(void **state)
{
	const size_t words = 450000;
	char *text = malloc(words * 8 + 64);
	size_t n = 0;
	struct probe_cpuinfo ci;

	(void)state;
	assert_non_null(text);
	n += (size_t)snprintf(text, 64, "flags\t\t:");
	for (size_t i = 0; i < words; i++)
		n += (size_t)snprintf(text + n, 9, " f%06zu", i);
	n += (size_t)snprintf(text + n, 16, " vmx\nx : y\n");
	probe_parse_cpuinfo(text, n, &ci);
	assert_true(n > 3600000);
	assert_int_equal(ci.nflags, words + 1);
	assert_true(probe_has_flag(&ci, "vmx"));
	assert_true(probe_has_flag(&ci, "f449999"));
	assert_false(probe_has_flag(&ci, "svm"));
	free(text);
}

static void numbers(void **state)
{
	static const char meminfo[] = "MemTotal:        4026532 kB\nMemFree: 1 kB\nHugePages_Total:       7\n"
				      "Bad:  -5 kB\nHuge: 99999999999999999999 kB\nBig: 9007199254740992 kB\n"
				      "Odd: 5 MB\nMemTotalX: 3 kB\n";
	static const struct {
		const char *key;
		int r;
		int64_t v;
	} mem[] = {
		{ "MemTotal", 0, 4026532LL * 1024 }, { "HugePages_Total", 0, 7 }, { "MemFree", 0, 1024 },
		{ "Bad", -EINVAL, 0 }, { "Huge", -ERANGE, 0 }, { "Big", -ERANGE, 0 }, { "Odd", -EINVAL, 0 },
		{ "Missing", -ENOENT, 0 }, { "Mem", -ENOENT, 0 },
	};
	static const struct {
		const char *text;
		int r;
		uint64_t steal, total;
	} stat[] = {
		{ "cpu  10000 0 5000 900000 100 0 50 1234 0 0\ncpu0 1 2\n", 0, 1234, 916384 },
		{ "cpu  1 2 3 4 5 6 7\n", -EINVAL, 0, 0 },
		{ "cpu  1 2 3 4 5 6 7 -8\n", -EINVAL, 0, 0 },
		{ "cpu0 1 2 3 4 5 6 7 8\n", -EINVAL, 0, 0 },
		{ "cpu  18446744073709551615 1 0 0 0 0 0 0\n", -ERANGE, 0, 0 },
		{ "cpu  1 2 3 4 5 6 7 8x\n", -EINVAL, 0, 0 },
		{ "", -EINVAL, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(mem) / sizeof(mem[0]); i++) {
		int64_t v = -1;

		assert_int_equal(probe_meminfo_value(meminfo, strlen(meminfo), mem[i].key, &v), mem[i].r);
		if (!mem[i].r)
			assert_int_equal(v, mem[i].v);
	}
	for (size_t i = 0; i < sizeof(stat) / sizeof(stat[0]); i++) {
		uint64_t st = 0, tot = 0;

		assert_int_equal(probe_parse_stat(stat[i].text, strlen(stat[i].text), &st, &tot), stat[i].r);
		if (!stat[i].r) {
			assert_int_equal(st, stat[i].steal);
			assert_int_equal(tot, stat[i].total);
		}
	}
}

static void strings(void **state)
{
	static const struct {
		const char *in, *out;
	} utf8[] = {
		{ "plain", "plain" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
		{ "caf\xe9", "caf\\xe9" },
		{ "\xc0\xaf", "\\xc0\\xaf" },             /* overlong '/' */
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },    /* a surrogate */
		{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" }, /* above U+10FFFF */
		{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" },
		{ "\xe2\x82", "\\xe2\\x82" },             /* cut short */
		/* a terminal control (ESC, a C1 CSI, DEL, CR) is escaped; tab and newline stay */
		{ "host\x1b[2J", "host\\x1b[2J" }, { "a\xc2\x9b" "2J", "a\\xc2\\x9b2J" }, { "x\x7fy\rz", "x\\x7fy\\x0dz" },
		{ "a\tb\nc", "a\tb\nc" }, { "\xc2\xa0nbsp", "\xc2\xa0nbsp" },
		{ "", "" },
	};
	static const char env[] = "HOME=/\0container=podman\0container\0X=1";
	static const char kv[] = "hypervisor_bit=1\nsignature=bhyve bhyve \nsignature_0x40000100=KVMKVMKVM";
	char out[64];

	(void)state;
	for (size_t i = 0; i < sizeof(utf8) / sizeof(utf8[0]); i++) {
		char *c = probe_utf8_clean(utf8[i].in, strlen(utf8[i].in));
		json_t *j = json_string(c);

		expect_str(utf8[i].in, "clean", c, utf8[i].out);
		assert_non_null(j); /* jansson takes it */
		json_decref(j);
		free(c);
	}
	assert_int_equal(probe_environ_get(env, sizeof(env) - 1, "container", out, sizeof(out)), 0);
	assert_string_equal(out, "podman");
	assert_int_equal(probe_environ_get(env, sizeof(env) - 1, "X", out, sizeof(out)), 0);
	assert_string_equal(out, "1");
	assert_int_equal(probe_environ_get(env, sizeof(env) - 1, "Y", out, sizeof(out)), -ENOENT);
	assert_int_equal(probe_kv(kv, strlen(kv), "signature", out, sizeof(out)), 0);
	assert_string_equal(out, "bhyve bhyve "); /* the trailing blank belongs to the signature */
	assert_int_equal(probe_kv(kv, strlen(kv), "signature_0x40000100", out, sizeof(out)), 0);
	assert_string_equal(out, "KVMKVMKVM");
	assert_int_equal(probe_kv(kv, strlen(kv), "hypervisor", out, sizeof(out)), -ENOENT);
}

/* A scratch tree for the cases that cannot live in git (FIFOs). */
static char scratch[64];

static void mkpath(const char *rel, mode_t fifo)
{
	char p[512];

	snprintf(p, sizeof(p), "%s%s", scratch, rel);
	for (char *s = p + strlen(scratch) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		(void)mkdir(p, 0755);
		*s = '/';
	}
	if (fifo)
		assert_int_equal(mkfifo(p, 0600), 0);
	else
		(void)mkdir(p, 0755);
}

static const char *const fifo_files[] = {
	"/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/sys/kernel/hostname", "/proc/1/environ",
	"/sys/devices/system/cpu/online", "/sys/class/dmi/id/sys_vendor", "/.cpuid", "/.kvm",
};

static void rm_scratch(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	assert_int_equal(system(cmd), 0);
}

/* FIFOs where /proc and /sys files should be: refused, never waited on
 * (`info --root` blocked forever on the first one). */
static void fifos(void **state)
{
	json_t *fp;

	(void)state;
	snprintf(scratch, sizeof(scratch), "/tmp/vmb-probe-XXXXXX");
	assert_non_null(mkdtemp(scratch));
	for (size_t i = 0; i < sizeof(fifo_files) / sizeof(fifo_files[0]); i++)
		mkpath(fifo_files[i], 1);
	fp = probe_fingerprint(&(struct probe_src){ .root = scratch });
	assert_non_null(fp);
	assert_true(json_is_null(json_object_get(fp, "hostname")));
	assert_true(json_is_null(json_object_get(json_object_get(fp, "cpu"), "logical")));
	assert_true(json_is_null(json_object_get(json_object_get(fp, "memory"), "total_bytes")));
	assert_string_equal(str(json_object_get(fp, "kvm"), "probed"), "not probed");
	json_decref(fp);
	rm_scratch();
}

/* A USB disk (the lab's disk=usb-ehci, ICH9's EHCI at 00:1d.7): the SCSI
 * disk's and the USB interface's (usb-storage) and devices' ("usb")
 * drivers are passed over, to the host controller's, which is what tells
 * an xHCI disk from an EHCI one. */
static void usb_disk_driver(void **state)
{
	static const char tree[] =
		"d=sys/devices/pci0000:00/0000:00:1d.7 && mkdir -p sys/block sys/bus/pci/drivers/ehci-pci "
		"sys/bus/usb/drivers/usb sys/bus/usb/drivers/usb-storage sys/bus/scsi/drivers/sd "
		"$d/usb1/1-1/1-1:1.0/host0/target0:0:0/0:0:0:0/block/sda && "
		"ln -s ../../../bus/pci/drivers/ehci-pci $d/driver && "
		"ln -s ../../../../bus/usb/drivers/usb $d/usb1/driver && "
		"ln -s ../../../../../bus/usb/drivers/usb $d/usb1/1-1/driver && "
		"ln -s ../../../../../../bus/usb/drivers/usb-storage $d/usb1/1-1/1-1:1.0/driver && "
		"ln -s ../../../../../../../../../bus/scsi/drivers/sd $d/usb1/1-1/1-1:1.0/host0/target0:0:0/0:0:0:0/driver && "
		"echo 2097152 > $d/usb1/1-1/1-1:1.0/host0/target0:0:0/0:0:0:0/block/sda/size && "
		"ln -s ../devices/pci0000:00/0000:00:1d.7/usb1/1-1/1-1:1.0/host0/target0:0:0/0:0:0:0/block/sda sys/block/sda";
	char cmd[2048];
	json_t *fp;
	const json_t *d;

	(void)state;
	snprintf(scratch, sizeof(scratch), "/tmp/vmb-probe-XXXXXX");
	assert_non_null(mkdtemp(scratch));
	snprintf(cmd, sizeof(cmd), "cd '%s' && %s", scratch, tree);
	assert_int_equal(system(cmd), 0);
	fp = probe_fingerprint(&(struct probe_src){ .root = scratch });
	assert_non_null(fp);
	d = find(json_object_get(fp, "block_devices"), "sda");
	assert_non_null(d);
	assert_string_equal(str(d, "driver"), "ehci-pci");
	json_decref(fp);
	rm_scratch();
}

/* A /proc/cpuinfo longer than the probe reads (4 MiB): the first
 * processor's block is still there, the rest is not read. */
static void bounded(void **state)
{
	char path[512];
	FILE *f;
	json_t *fp, *cpu;

	(void)state;
	snprintf(scratch, sizeof(scratch), "/tmp/vmb-probe-XXXXXX");
	assert_non_null(mkdtemp(scratch));
	mkpath("/proc", 0);
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", scratch);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "processor\t: 0\nmodel name\t: First\nflags\t\t: fpu vmx\n\n");
	for (int i = 1; i < 60000; i++)
		fprintf(f, "processor\t: %d\nmodel name\t: Other\nflags\t\t: fpu svm sse sse2 ssse3 sse4_1\n\n", i);
	assert_true(ftell(f) > 4 << 20);
	assert_int_equal(fclose(f), 0);
	fp = probe_fingerprint(&(struct probe_src){ .root = scratch });
	cpu = json_object_get(fp, "cpu");
	assert_string_equal(str(cpu, "model"), "First");
	assert_int_equal(json_integer_value(json_object_get(cpu, "flag_count")), 2);
	assert_true(json_is_true(json_object_get(json_object_get(cpu, "flags"), "vmx")));
	json_decref(fp);
	rm_scratch();
}

/* What --root accepts: "/", or a directory with proc/ or sys/. */
static void roots(void **state)
{
	char fixture[512], file[600];
	char err[512];
	static const struct {
		const char *rel; /* below the scratch directory */
		bool make_proc;
		int r;
	} cases[] = {
		{ "", false, -ENOENT },          /* an empty directory is no probe tree */
		{ "", true, 0 },
		{ "/missing", false, -ENOENT },
		{ "/proc/x", true, -ENOTDIR },  /* a file */
	};

	(void)state;
	assert_int_equal(probe_check_root("/", err, sizeof(err)), 0);
	snprintf(fixture, sizeof(fixture), "%s/probe/vmware", FIXTURES);
	assert_int_equal(probe_check_root(fixture, err, sizeof(err)), 0);
	assert_true(probe_check_root("/nonexistent", err, sizeof(err)) == -ENOENT);
	assert_non_null(strstr(err, "/nonexistent"));
	snprintf(scratch, sizeof(scratch), "/tmp/vmb-probe-XXXXXX");
	assert_non_null(mkdtemp(scratch));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i].make_proc) {
			FILE *f;

			mkpath("/proc", 0);
			snprintf(file, sizeof(file), "%s/proc/x", scratch);
			f = fopen(file, "w");
			assert_non_null(f);
			fclose(f);
		}
		snprintf(file, sizeof(file), "%s%s", scratch, cases[i].rel);
		assert_int_equal(probe_check_root(file, err, sizeof(err)), cases[i].r);
	}
	rm_scratch();
}

/* ---- the cache chain (src/probe/cache.c) ---- */

struct cache_expect {
	uint64_t size[CACHE_NLEVELS];
	const char *source[CACHE_NLEVELS];
	uint64_t line;
	const char *line_source;
	const char *rejected; /* "L3:sysfs,L3:cpuid": level and source of each, in order */
};

static void expect_chain(const char *name, const struct cache_info *ci, const struct cache_expect *e)
{
	char rej[256] = "";
	size_t off = 0;

	for (int lv = 0; lv < CACHE_NLEVELS; lv++) {
		if (ci->size[lv] != e->size[lv])
			fail_msg("%s: %s is %llu bytes, expected %llu", name, cache_level_names[lv],
				 (unsigned long long)ci->size[lv], (unsigned long long)e->size[lv]);
		expect_str(name, cache_level_names[lv], ci->source[lv], e->source[lv]);
	}
	if (ci->line != e->line)
		fail_msg("%s: line %llu, expected %llu", name, (unsigned long long)ci->line, (unsigned long long)e->line);
	expect_str(name, "line source", ci->line_source, e->line_source);
	for (size_t i = 0; i < ci->nrejected; i++) {
		int n = snprintf(rej + off, sizeof(rej) - off, "%s%s:%s", i ? "," : "",
				 cache_level_names[ci->rejected[i].level], ci->rejected[i].source);

		off += n > 0 && (size_t)n < sizeof(rej) - off ? (size_t)n : 0;
		if (!ci->rejected[i].why[0])
			fail_msg("%s: a rejected value without its reason", name);
	}
	expect_str(name, "rejected", rej, e->rejected);
}

#define KIB(n) ((uint64_t)(n) << 10)
#define MIB(n) ((uint64_t)(n) << 20)

/* The machine descriptions (make-cache-machines.py), through cache_read
 * and through the fingerprint that `info --json` prints and runs store. */
static void cache_machines(void **state)
{
	static const struct {
		const char *fixture;
		struct cache_expect e;
		const char *why[4]; /* the reasons, in order, by prefix */
	} cases[] = {
		/* issue 22's machine: no sysfs caches, leaves 4 and 0x8000001D zeros */
		{ "cache-amd-bhyve",
		  { { KIB(48), MIB(1), MIB(32) }, { "cpuid_legacy", "cpuid_legacy", "cpuid_legacy" }, 64, "cpuid_legacy", "" },
		  { NULL } },
		{ "cache-intel-sysfs",
		  { { KIB(48), MIB(2), MIB(36) }, { "sysfs", "sysfs", "sysfs" }, 64, "sysfs", "" }, { NULL } },
		{ "cache-none", { { 0, 0, 0 }, { NULL, NULL, NULL }, 64, "default", "" }, { NULL } },
		/* each made-up L3 falls through to the next source, reasons recorded */
		{ "cache-lying-hv",
		  { { KIB(32), MIB(1), MIB(16) }, { "sysfs", "sysfs", "cpuinfo" }, 64, "sysfs",
		    "L3:sysfs,L3:cpuid,L3:cpuid_legacy,L3:cpuid_leaf2" },
		  { "an L3 smaller than the L2", "not a whole number of 16 lines", "larger than the machine's memory",
		    "an L3 smaller than the L2" } },
		/* the older fixtures keep their sysfs answer */
		{ "kvm-virtio",
		  { { KIB(32), MIB(1), MIB(32) }, { "sysfs", "sysfs", "sysfs" }, 64, "default", "" }, { NULL } },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct cache_expect *e = &cases[i].e;
		struct cache_info ci;
		char root[512];
		json_t *fp, *cpu, *arr;

		snprintf(root, sizeof(root), "%s/probe/%s", FIXTURES, cases[i].fixture);
		cache_read(root, &ci);
		expect_chain(cases[i].fixture, &ci, e);
		for (size_t k = 0; k < 4 && cases[i].why[k]; k++)
			if (k >= ci.nrejected || strncmp(ci.rejected[k].why, cases[i].why[k], strlen(cases[i].why[k])))
				fail_msg("%s: rejection %zu says \"%s\", expected \"%s...\"", cases[i].fixture, k,
					 k < ci.nrejected ? ci.rejected[k].why : "(none)", cases[i].why[k]);

		fp = probe_fingerprint(&(struct probe_src){ .root = root });
		cpu = json_object_get(fp, "cpu");
		arr = json_object_get(cpu, "caches");
		for (size_t k = 0, lv = 0; lv < CACHE_NLEVELS; lv++) {
			const json_t *c;

			if (!e->size[lv])
				continue;
			c = json_array_get(arr, k++);
			assert_int_equal(json_integer_value(json_object_get(c, "level")), lv + 1);
			assert_int_equal(json_integer_value(json_object_get(c, "size_bytes")), e->size[lv]);
			expect_str(cases[i].fixture, "fingerprint source", str(c, "source"), e->source[lv]);
		}
		assert_int_equal(json_array_size(json_object_get(cpu, "caches_rejected")), ci.nrejected);
		expect_str(cases[i].fixture, "line source", str(json_object_get(cpu, "cache_line"), "source"),
			   e->line_source);
		json_decref(fp);
	}
}

/* One source at a time, from text: no sysfs, a CPUID recording, cpuinfo,
 * sysconf; what each gives and what the trust rules make of it. */
static void cache_sources_alone(void **state)
{
	static const char intel_ci[] = "processor\t: 0\nvendor_id\t: GenuineIntel\ncache size\t: 30720 KB\n";
	static const char amd_ci[] = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncache size\t: 512 KB\n";
	static const struct {
		const char *name, *cpuid, *cpuinfo, *sysconf;
		uint64_t memtotal;
		struct cache_expect e;
	} cases[] = {
		{ "cpuinfo on Intel: the last level", NULL, intel_ci, NULL, 0,
		  { { 0, 0, MIB(30) }, { NULL, NULL, "cpuinfo" }, 64, "default", "" } },
		{ "cpuinfo on AMD: the L2", NULL, amd_ci, NULL, 0,
		  { { 0, KIB(512), 0 }, { NULL, "cpuinfo", NULL }, 64, "default", "" } },
		{ "sysconf", NULL, NULL, "LEVEL1_DCACHE_SIZE=32768\nLEVEL2_CACHE_SIZE=262144\nLEVEL3_CACHE_SIZE=8388608\n"
		  "LEVEL1_DCACHE_LINESIZE=64", 0,
		  { { KIB(32), KIB(256), MIB(8) }, { "sysconf", "sysconf", "sysconf" }, 64, "sysconf", "" } },
		{ "sysconf 0 says nothing", NULL, NULL, "LEVEL1_DCACHE_SIZE=0\nLEVEL3_CACHE_SIZE=0", 0,
		  { { 0, 0, 0 }, { NULL, NULL, NULL }, 64, "default", "" } },
		{ "an absurdly small L1d, then cpuinfo's L3", NULL, intel_ci, "LEVEL1_DCACHE_SIZE=1024", 0,
		  { { 0, 0, MIB(30) }, { NULL, NULL, "cpuinfo" }, 64, "default", "L1d:sysconf" } },
		/* EAX 01 2c 7d 00, EBX d8 -> L1d 32K, L2 2M, L3 4M (0xff would say "see leaf 4") */
		{ "leaf 2 descriptors", "cpuid.0.0=0000000a 0 0 0\ncpuid.1.0=000006fb 0 0 0\ncpuid.2.0=007d2c01 d8 0 0",
		  NULL, NULL, 0, { { KIB(32), MIB(2), MIB(4) }, { "cpuid_leaf2", "cpuid_leaf2", "cpuid_leaf2" }, 64,
				   "cpuid_leaf2", "" } },
		/* 0x49 is an L3 on the Xeon MP family 0Fh model 06h only */
		{ "leaf 2's 0x49 on family 0Fh model 6", "cpuid.0.0=4 0 0 0\ncpuid.1.0=00000f60 0 0 0\ncpuid.2.0=00492c01 0 0 0",
		  NULL, NULL, 0, { { KIB(32), 0, MIB(4) }, { "cpuid_leaf2", NULL, "cpuid_leaf2" }, 64, "cpuid_leaf2", "" } },
		{ "leaf 2's 0x49 elsewhere", "cpuid.0.0=4 0 0 0\ncpuid.1.0=000006f6 0 0 0\ncpuid.2.0=00492c01 0 0 0",
		  NULL, NULL, 0, { { KIB(32), MIB(4), 0 }, { "cpuid_leaf2", "cpuid_leaf2", NULL }, 64, "cpuid_leaf2", "" } },
		{ "a register with bit 31 holds no descriptors", "cpuid.0.0=4 0 0 0\ncpuid.2.0=00000001 807d2c00 0 0",
		  NULL, NULL, 0, { { 0, 0, 0 }, { NULL, NULL, NULL }, 64, "default", "" } },
		/* AMD's 0x8000001D when leaf 4 is empty: L1d 32K (8 x 64 x 64), L2 512K (8 x 1024 x 64) */
		{ "0x8000001D", "cpuid.0.0=d 0 0 0\ncpuid.80000000.0=8000001f 0 0 0\n"
		  "cpuid.8000001d.0=00000121 01c0003f 0000003f 0\ncpuid.8000001d.1=00000143 01c0003f 000003ff 0",
		  NULL, NULL, 0, { { KIB(32), KIB(512), 0 }, { "cpuid", "cpuid", NULL }, 64, "cpuid", "" } },
		/* a leaf beyond the recorded maximum is not asked */
		{ "leaf 4 beyond the maximum", "cpuid.0.0=2 0 0 0\ncpuid.4.0=00000121 01c0003f 0000003f 0", NULL, NULL, 0,
		  { { 0, 0, 0 }, { NULL, NULL, NULL }, 64, "default", "" } },
		/* a malformed recording line reads as an absent leaf */
		{ "a malformed leaf", "cpuid.0.0=d 0 0 0\ncpuid.80000000.0=80000006 0 0 0\ncpuid.80000006.0=0 0 zz 0",
		  NULL, NULL, 0, { { 0, 0, 0 }, { NULL, NULL, NULL }, 64, "default", "" } },
		/* larger than memory: the legacy L3, then sysconf's */
		{ "larger than memory", "cpuid.80000000.0=80000006 0 0 0\ncpuid.80000006.0=0 0 04006040 01000000", NULL,
		  "LEVEL3_CACHE_SIZE=33554432", MIB(16),
		  { { 0, MIB(1), 0 }, { NULL, "cpuid_legacy", NULL }, 64, "cpuid_legacy", "L3:cpuid_legacy,L3:sysconf" } },
		/* an L2 smaller than the L1d, an L1d larger than a known L2 */
		{ "levels out of order", NULL, NULL, "LEVEL1_DCACHE_SIZE=65536\nLEVEL2_CACHE_SIZE=32768", 0,
		  { { KIB(64), 0, 0 }, { "sysconf", NULL, NULL }, 64, "default", "L2:sysconf" } },
		{ "an odd line size is judged by 64", NULL, NULL, "LEVEL2_CACHE_SIZE=1000000\nLEVEL1_DCACHE_LINESIZE=48", 0,
		  { { 0, 0, 0 }, { NULL, NULL, NULL }, 64, "default", "L2:sysconf" } },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cache_input in = {
			.root = NULL, .live = false,
			.cpuid = cases[i].cpuid, .cpuid_len = cases[i].cpuid ? strlen(cases[i].cpuid) : 0,
			.cpuinfo = cases[i].cpuinfo, .cpuinfo_len = cases[i].cpuinfo ? strlen(cases[i].cpuinfo) : 0,
			.sysconf = cases[i].sysconf, .sysconf_len = cases[i].sysconf ? strlen(cases[i].sysconf) : 0,
			.memtotal = cases[i].memtotal,
		};
		struct cache_info ci;

		cache_chain(&in, &ci);
		expect_chain(cases[i].name, &ci, &cases[i].e);
	}
}

static void cache_parsers(void **state)
{
	static const struct {
		const char *s;
		uint64_t want;
	} kb[] = {
		{ "1024 KB", MIB(1) }, { "30720 KB", MIB(30) }, { "1024KB", 0 }, { "1024 kB", 0 }, { " 1024 KB", 0 },
		{ "", 0 }, { "KB", 0 }, { "99999999999999999999 KB", 0 }, { "1099511627777 KB", 0 },
		{ "1024 KB trailing", 0 },
	};
	static const struct {
		const char *text;
		uint32_t leaf, sub;
		int r;
		uint32_t regs[4];
	} rec[] = {
		{ "cpuid.4.1=1 2 3 4", 4, 1, 0, { 1, 2, 3, 4 } },
		{ "cpuid.4.1=0x1 0XfF ffffffff 0", 4, 1, 0, { 1, 255, 0xffffffff, 0 } },
		{ "cpuid.4.1=1 2 3 4", 4, 0, -ENOENT, { 0 } },
		{ "cpuid.4.1=1 2 3", 4, 1, -EINVAL, { 0 } },
		{ "cpuid.4.1=1 2 3 4 5", 4, 1, -EINVAL, { 0 } },
		{ "cpuid.4.1=1 2 3 100000000", 4, 1, -EINVAL, { 0 } },
		{ "cpuid.4.1=-1 2 3 4", 4, 1, -EINVAL, { 0 } },
		{ "cpuid.80000006.0=0 0 04008140 01009140\r", 0x80000006, 0, 0, { 0, 0, 0x04008140, 0x01009140 } },
	};
	uint32_t l5[4] = { 0, 0, 0x300C0140, 0 }, l6[4] = { 0, 0, 0x04008140, 0x01009140 }, r[4];
	struct cache_cand c = { { 0 }, 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(kb) / sizeof(kb[0]); i++)
		if (cache_parse_kb(kb[i].s) != kb[i].want)
			fail_msg("\"%s\" -> %llu, expected %llu", kb[i].s, (unsigned long long)cache_parse_kb(kb[i].s),
				 (unsigned long long)kb[i].want);
	for (size_t i = 0; i < sizeof(rec) / sizeof(rec[0]); i++) {
		assert_int_equal(cache_cpuid_recorded(rec[i].text, strlen(rec[i].text), rec[i].leaf, rec[i].sub, r),
				 rec[i].r);
		assert_memory_equal(r, rec[i].regs, sizeof(r));
	}
	cache_parse_legacy(l5, l6, &c);
	assert_int_equal(c.size[CACHE_L1D], KIB(48));
	assert_int_equal(c.size[CACHE_L2], MIB(1));
	assert_int_equal(c.size[CACHE_L3], MIB(32));
	assert_int_equal(c.line, 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fixtures),
		cmocka_unit_test(details),
		cmocka_unit_test(parsers),
		cmocka_unit_test(names),
		cmocka_unit_test(decide),
		cmocka_unit_test(kvm_device),
		cmocka_unit_test(kvm_words),
		cmocka_unit_test(cpuinfo),
		cmocka_unit_test(long_flags_line),
		cmocka_unit_test(numbers),
		cmocka_unit_test(strings),
		cmocka_unit_test(fifos),
		cmocka_unit_test(usb_disk_driver),
		cmocka_unit_test(bounded),
		cmocka_unit_test(roots),
		cmocka_unit_test(cache_machines),
		cmocka_unit_test(cache_sources_alone),
		cmocka_unit_test(cache_parsers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
