/* The probe on recorded and synthetic /proc + /sys trees of several machines. */
#include <string.h>

#include "test.h"
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
	{ "hyperv", "Microsoft Hv", NULL, "x86_64", "sda", "hv_storvsc", "eth0", "hv_netvsc", "hv_balloon",
	  "hyperv_clocksource_tsc_page", "madvise", 0, 2, 1, 1 },
	{ "qemu-tcg-ide", "QEMU TCG", NULL, "x86_64", "sda", "ata_piix", "ens3", "e1000", NULL,
	  "tsc", "never", 0, 1, 1, 1 },
	{ "kvm-hyperv-enlightened", "KVM", "Microsoft Hv", "x86_64", "sda", "virtio_scsi", "enp0s3", "virtio_net",
	  "virtio_balloon", "kvm-clock", "madvise", 1, 4, 1, 1 },
	{ "aarch64-tcg", "QEMU TCG", NULL, "aarch64", "vda", "virtio_blk", "eth0", "virtio_net", NULL,
	  "arch_sys_counter", "madvise", 0, 2, 1, 1 },
	{ "aarch64-tcg-virt", "QEMU TCG", NULL, "aarch64", "vda", "virtio_blk", NULL, NULL, NULL,
	  "arch_sys_counter", "madvise", 0, 1, 1, 1 },
	{ "baremetal", "none", NULL, "x86_64", "nvme0n1", "nvme", "eno1", "e1000e", NULL,
	  "tsc", "always", 0, 8, 2, 2 },
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
	caches = json_object_get(json_object_get(fp, "cpu"), "caches");
	assert_int_equal(json_array_size(caches), 4);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(caches, 3), "size_bytes")), 22528 * 1024);
	assert_true(json_is_true(json_object_get(json_object_get(json_object_get(fp, "cpu"), "flags"), "invariant_tsc")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(fp, "memory"), "total_bytes")),
			 4026532LL * 1024);
	assert_string_equal(str(fp, "hostname"), "esx-guest");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fixtures),
		cmocka_unit_test(details),
		cmocka_unit_test(parsers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
