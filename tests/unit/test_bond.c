/* Several NICs bonded over shaped links (the nics and linkrate keys): the
 * keys' checks, QEMU's arguments (a tap and a device per NIC, a MAC each),
 * the host's shaping of each link, the guest's bond (its kernel command
 * line word, the sysfs writes, on a recorded tree) and the host's check of
 * what the guest shows. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "test.h"
#include "test_argv.h"
#include "../../src/core/file.h"
#include "../../src/guest/bond.h"
#include "../../src/lab/labcheck.h"
#include "../../src/lab/matrix.h"
#include "../../src/lab/modules.h"
#include "../../src/lab/qemu.h"

static bool has(const struct strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

/* A matrix the keys refuse says why, and what would be right */
static void keys_refuse(void **state)
{
	static const struct {
		const char *spec, *why;
	} cases[] = {
		{ "nics=2", "nics=2 gives the guest that many of the nic model: give a nic" },
		{ "nic=virtio-net nics=2 queues=2", "several NICs take one queue pair each; give queues=1" },
		{ "nic=e1000 nics=9", "nics takes a count of NICs from 1 to 8" },
		{ "nic=e1000 nics=0", "nics takes a count of NICs from 1 to 8" },
		{ "nic=e1000 linkrate=fast", "linkrate=fast is not a rate from 1mbit to 100gbit" },
		{ "nic=e1000 linkrate=20mbps", "linkrate=20mbps is not a rate" },
		{ "nic=e1000 linkrate=999kbit", "linkrate=999kbit is not a rate from 1mbit" },
		{ "nic=e1000 linkrate=101gbit", "linkrate=101gbit is not a rate" },
		{ "linkrate=20mbit", "linkrate=20mbit shapes the links of the guest's NICs: give a nic" },
	};
	char why[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lab_matrix m;

		if (lab_matrix_parse(cases[i].spec, &m, why, sizeof(why)) == 0) {
			lab_matrix_release(&m);
			fail_msg("'%s' taken", cases[i].spec);
		}
		if (!strstr(why, cases[i].why))
			fail_msg("'%s': '%s' lacks '%s'", cases[i].spec, why, cases[i].why);
	}
}

/* linkrate's rate in bit/s */
static void rates(void **state)
{
	static const struct {
		const char *v;
		int r;
		uint64_t bps;
	} cases[] = {
		{ "20mbit", 0, 20000000 }, { "1gbit", 0, 1000000000 }, { "1000kbit", 0, 1000000 },
		{ "100gbit", 0, 100000000000ull }, { "1000000bit", 0, 1000000 }, { "off", -EINVAL, 0 },
		{ "999999bit", -EINVAL, 0 }, { "20", -EINVAL, 0 }, { "mbit", -EINVAL, 0 }, { "-1mbit", -EINVAL, 0 },
		{ "1.5gbit", -EINVAL, 0 }, { "20Mbit", -EINVAL, 0 }, { "99999999999999999gbit", -EINVAL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t bps = 0;
		int r = lab_rate_parse(cases[i].v, &bps);

		if (r != cases[i].r || (r == 0 && bps != cases[i].bps))
			fail_msg("'%s': %d %llu", cases[i].v, r, (unsigned long long)bps);
	}
}

static const char *append_of(const struct strv *a)
{
	for (size_t k = 0; k + 1 < a->n; k++)
		if (!strcmp(a->v[k], "-append"))
			return a->v[k + 1];
	return NULL;
}

/* N NICs: a tap each (-netdev nI on descriptor 10+I), a device each on
 * its own netdev with a MAC of its own; the guest told to bond them */
static void qemu_arguments(void **state)
{
	static const struct {
		const char *spec, *backend, *model;
		unsigned nics;
		const char *extra; /* the netdevs' own words after fd= */
	} cases[] = {
		{ "accel=tcg nic=e1000 nics=2", "tap", "e1000", 2, "" },
		{ "accel=tcg nic=vmxnet3 nics=4", "tap", "vmxnet3", 4, "" },
		{ "accel=tcg nic=e1000-82545em nics=4 linkrate=1gbit", "tap", "e1000-82545em", 4, "" },
		{ "accel=tcg nic=virtio-net nics=3", "tap+vhost", "virtio-net-pci", 3, ",vhost=on" },
		{ "accel=tcg nic=e1000 nics=8", "tap", "e1000", 8, "" },
	};
	struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/d.img", .qmp_socket = "/q", .agent_socket = "/a",
			       .console_log = "/c" };
	char why[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lab_matrix m;
		struct strv a = { 0 }, macs = { 0 };
		unsigned netdevs = 0, devices = 0;
		char want[128];

		assert_int_equal(lab_matrix_parse(cases[i].spec, &m, why, sizeof(why)), 0);
		p.backend[LAB_NIC] = cases[i].backend;
		if (lab_qemu_argv(&m.configs[0], &p, &a, why, sizeof(why)) < 0)
			fail_msg("%s: %s", cases[i].spec, why);
		for (unsigned n = 0; n < cases[i].nics; n++) {
			snprintf(want, sizeof(want), "tap,id=n%u,fd=%u%s", n, LAB_TAP_FD + n, cases[i].extra);
			if (!has_pair(&a, "-netdev", want))
				fail_msg("%s: no -netdev %s", cases[i].spec, want);
			snprintf(want, sizeof(want), "%s,netdev=n%u,mac=" LAB_NIC_MAC "%02x", cases[i].model, n, n);
			if (!has_pair(&a, "-device", want))
				fail_msg("%s: no -device %s", cases[i].spec, want);
		}
		for (size_t k = 0; k + 1 < a.n; k++) {
			const char *mac = strstr(a.v[k + 1], "mac=");

			netdevs += !strcmp(a.v[k], "-netdev");
			if (strcmp(a.v[k], "-device") || !strstr(a.v[k + 1], "netdev=n"))
				continue;
			devices++;
			assert_non_null(mac);
			if (has(&macs, mac))
				fail_msg("%s: %s twice", cases[i].spec, mac);
			assert_int_equal(strv_push(&macs, mac), 0);
		}
		assert_int_equal(netdevs, cases[i].nics);
		assert_int_equal(devices, cases[i].nics);
		snprintf(want, sizeof(want), " vmbench.bond=" LAB_BOND_MODE ",%u", cases[i].nics);
		assert_non_null(append_of(&a));
		if (!strstr(append_of(&a), want))
			fail_msg("%s: -append '%s' lacks '%s'", cases[i].spec, append_of(&a), want);
		strv_clear(&a);
		strv_clear(&macs);
		lab_matrix_release(&m);
	}
	{
		/* one NIC: as before, no bond; QEMU's own network takes neither
		 * several NICs nor a shaped link */
		struct lab_matrix m;
		struct strv a = { 0 };

		assert_int_equal(lab_matrix_parse("accel=tcg nic=e1000 linkrate=20mbit", &m, why, sizeof(why)), 0);
		p.backend[LAB_NIC] = "tap";
		assert_int_equal(lab_qemu_argv(&m.configs[0], &p, &a, why, sizeof(why)), 0);
		assert_true(has_pair(&a, "-netdev", "tap,id=n0,fd=10"));
		assert_true(has_pair(&a, "-device", "e1000,netdev=n0"));
		assert_null(strstr(append_of(&a), "vmbench.bond"));
		strv_clear(&a);
		p.backend[LAB_NIC] = "user";
		assert_int_equal(lab_qemu_argv(&m.configs[0], &p, &a, why, sizeof(why)), -EOPNOTSUPP);
		assert_non_null(strstr(why, "linkrate=20mbit"));
		strv_clear(&a);
		lab_matrix_release(&m);
		assert_int_equal(lab_matrix_parse("accel=tcg nic=e1000 nics=2", &m, why, sizeof(why)), 0);
		assert_int_equal(lab_qemu_argv(&m.configs[0], &p, &a, why, sizeof(why)), -EOPNOTSUPP);
		assert_non_null(strstr(why, "nics=2"));
		strv_clear(&a);
		lab_matrix_release(&m);
	}
}

/* The bonding driver goes into every image, and is loaded where nics is above 1 */
static void bond_module(void **state)
{
	struct lab_matrix m;
	struct strv mods = { 0 };
	char why[256];

	(void)state;
	assert_int_equal(lab_image_modules("x86_64", &mods), 0);
	assert_true(has(&mods, LAB_BOND_MODULES));
	strv_clear(&mods);
	assert_int_equal(lab_matrix_parse("accel=tcg nic=e1000 nics=1,2", &m, why, sizeof(why)), 0);
	assert_int_equal(lab_config_modules(&m.configs[0], &mods), 0);
	assert_false(has(&mods, LAB_BOND_MODULES));
	strv_clear(&mods);
	assert_int_equal(lab_config_modules(&m.configs[1], &mods), 0);
	assert_true(has(&mods, LAB_BOND_MODULES));
	assert_true(has(&mods, "e1000"));
	strv_clear(&mods);
	lab_matrix_release(&m);
}

/* Each link shaped both ways: tbf on the tap (to the guest), and the tap's
 * ingress through an ifb with a tbf of its own (from the guest) */
static void link_shaping(void **state)
{
	static const char *const want[] = {
		"tc qdisc add dev vmbtap1 root tbf rate 20000000bit burst 25000 latency 50ms",
		"ip link add vmbifb1 type ifb",
		"ip link set vmbifb1 up",
		"tc qdisc add dev vmbtap1 handle ffff: ingress",
		"tc filter add dev vmbtap1 parent ffff: protocol all u32 match u32 0 0 action mirred egress redirect dev vmbifb1",
		"tc qdisc add dev vmbifb1 root tbf rate 20000000bit burst 25000 latency 50ms",
	};
	struct strv lines = { 0 };

	(void)state;
	assert_int_equal(lab_link_shaping(1, 20000000, &lines), 0);
	assert_int_equal(lines.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < lines.n; i++)
		assert_string_equal(lines.v[i], want[i]);
	strv_clear(&lines);
	/* a slow link's bucket still holds a frame's worth at the kernel's tick */
	assert_int_equal(lab_link_shaping(0, 1000000, &lines), 0);
	assert_non_null(strstr(lines.v[0], "rate 1000000bit burst 16384 "));
	strv_clear(&lines);
}

/* The guest's side: vmbench.bond=MODE,N with vmbench.net's address */
static void bond_cmdline(void **state)
{
	static const struct {
		const char *cmdline;
		int r;
		const char *mode;
		unsigned n;
		const char *addr;
	} cases[] = {
		{ "console=ttyS0 vmbench.net=10.251.0.2/30 vmbench.bond=balance-rr,4 panic=-1\n", 0, "balance-rr", 4,
		  "10.251.0.2/30" },
		{ "vmbench.bond=802.3ad,2", 0, "802.3ad", 2, "" },
		{ "vmbench.bond=balance-alb,2", 0, "balance-alb", 2, "" },
		{ "vmbench.bond=balance-rr,1", -EINVAL, NULL, 0, NULL },
		{ "vmbench.bond=balance-rr,9", -EINVAL, NULL, 0, NULL },
		{ "vmbench.bond=balance-rr", -EINVAL, NULL, 0, NULL },
		{ "vmbench.bond=,2", -EINVAL, NULL, 0, NULL },
		{ "vmbench.bond=Balance,2", -EINVAL, NULL, 0, NULL },
		{ "vmbench.bond=a-mode-name-far-too-long-here,2", -EINVAL, NULL, 0, NULL },
		{ "vmbench.queues=2", -ENOENT, NULL, 0, NULL },
		{ "xvmbench.bond=balance-rr,2", -ENOENT, NULL, 0, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lab_bond b = { .n = 77 };
		int r = lab_cmdline_bond(cases[i].cmdline, strlen(cases[i].cmdline), &b);

		if (r != cases[i].r)
			fail_msg("'%s': %d, expected %d", cases[i].cmdline, r, cases[i].r);
		if (r < 0 && b.n != 77)
			fail_msg("'%s': written on failure", cases[i].cmdline);
		if (r == 0 && (strcmp(b.mode, cases[i].mode) || b.n != cases[i].n || strcmp(b.addr, cases[i].addr)))
			fail_msg("'%s': %s,%u %s", cases[i].cmdline, b.mode, b.n, b.addr);
	}
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *slurp(const char *path)
{
	char *text = NULL;

	assert_int_equal(read_file(path, &text), 0);
	return text;
}

/* The NICs found and bonded on a recorded /sys/class/net: the driver's
 * files written in order, the bond made only where the driver made none */
static void bond_writes(void **state)
{
	static const char *const want[] = {
		"bonding_masters +bond0", "bond0/bonding/mode balance-rr", "bond0/bonding/miimon 100",
		"bond0/bonding/slaves +eth0", "bond0/bonding/slaves +eth1",
	};
	char root[] = "/tmp/vmb-bond-XXXXXX", p[512], why[256];
	struct lab_bond b = { .mode = "balance-rr", .n = 2 };
	struct strv nics = { 0 }, writes = { 0 };
	char *text;

	(void)state;
	assert_non_null(mkdtemp(root));
	/* eth1 before eth0 in the directory: sorted; lo and the bond have no device */
	static const char *const dirs[] = { "/sys", "/sys/class", "/sys/class/net", "/sys/class/net/eth1",
					    "/sys/class/net/eth1/device", "/sys/class/net/eth0", "/sys/class/net/eth0/device",
					    "/sys/class/net/lo", "/sys/class/net/bond0", "/sys/class/net/bond0/bonding" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", root, dirs[i]);
		assert_int_equal(mkdir(p, 0700), 0);
	}
	snprintf(p, sizeof(p), "%s/sys/class/net/bonding_masters", root);
	put(p, "");
	for (const char *const *f = (const char *const[]){ "mode", "miimon", "slaves", NULL }; *f; f++) {
		snprintf(p, sizeof(p), "%s/sys/class/net/bond0/bonding/%s", root, *f);
		put(p, "");
	}
	assert_int_equal(lab_bond_nics(root, &nics), 0);
	assert_int_equal(nics.n, 2);
	assert_string_equal(nics.v[0], "eth0");
	assert_string_equal(nics.v[1], "eth1");
	assert_int_equal(lab_bond_plan(&b, &nics, &writes), 0);
	assert_int_equal(writes.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < writes.n; i++)
		assert_string_equal(writes.v[i], want[i]);
	assert_int_equal(lab_bond_apply(root, &writes, why, sizeof(why)), 0);
	/* bond0 was there: bonding_masters untouched */
	snprintf(p, sizeof(p), "%s/sys/class/net/bonding_masters", root);
	text = slurp(p);
	assert_string_equal(text, "");
	free(text);
	snprintf(p, sizeof(p), "%s/sys/class/net/bond0/bonding/mode", root);
	text = slurp(p);
	assert_string_equal(text, "balance-rr");
	free(text);
	snprintf(p, sizeof(p), "%s/sys/class/net/bond0/bonding/slaves", root);
	text = slurp(p);
	assert_string_equal(text, "+eth1"); /* the last write (sysfs takes each one alone) */
	free(text);
	/* a driver file missing: said, with its path */
	assert_int_equal(unlink(p), 0);
	assert_true(lab_bond_apply(root, &writes, why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "bond0/bonding/slaves"));
	strv_clear(&nics);
	strv_clear(&writes);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		assert_int_equal(system(cmd), 0);
	}
}

/* The host's check of the guest's fingerprint: nics slaves of one bond,
 * up; the bond in balance-rr, up, with the link's address */
static void guest_check(void **state)
{
	static const char slave[] = "{\"name\":\"eth%d\",\"driver\":\"e1000\",\"state\":\"%s\",\"master\":%s,\"ipv4\":[]}";
	static const struct {
		const char *s0, *m0, *s1, *m1, *mode, *bond_state;
		int r;
		const char *why;
	} cases[] = {
		{ "up", "\"bond0\"", "up", "\"bond0\"", "balance-rr", "up", 0, NULL },
		{ "up", "\"bond0\"", "down", "\"bond0\"", "balance-rr", "up", -ENETDOWN, "eth1, a slave of bond0, is down" },
		{ "up", "\"bond0\"", "up", "null", "balance-rr", "up", -ENETDOWN, "eth1 is not a slave of its bond" },
		{ "up", "\"bond0\"", "up", "\"bond0\"", "active-backup", "up", -ENETDOWN, "not in mode balance-rr" },
		{ "up", "\"bond0\"", "up", "\"bond0\"", "balance-rr", "down", -ENETDOWN, "bond bond0 is down" },
	};
	struct lab_paths p = { .backend = { [LAB_NIC] = "tap" } };
	struct lab_matrix m;
	char why[512];

	(void)state;
	assert_int_equal(lab_matrix_parse("accel=tcg nic=e1000 nics=2 disk=virtio-blk", &m, why, sizeof(why)), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char s0[256], s1[256], text[2048];
		const char *scratch;
		json_t *fp;
		int r;

		snprintf(s0, sizeof(s0), slave, 0, cases[i].s0, cases[i].m0);
		snprintf(s1, sizeof(s1), slave, 1, cases[i].s1, cases[i].m1);
		snprintf(text, sizeof(text),
			 "{\"arch\":\"x86_64\",\"cpu\":{\"logical\":1},\"kernel\":{\"efi\":false},"
			 "\"block_devices\":[{\"name\":\"vda\",\"driver\":\"virtio_blk\"}],"
			 "\"network\":[{\"name\":\"bond0\",\"driver\":null,\"state\":\"%s\",\"bond_mode\":\"%s\","
			 "\"ipv4\":[\"" LAB_NET_GUEST "/" LAB_NET_PREFIX "\"]},%s,%s]}",
			 cases[i].bond_state, cases[i].mode, s0, s1);
		fp = json_loads(text, 0, NULL);
		assert_non_null(fp);
		why[0] = '\0';
		r = lab_check_guest(&m.configs[0], fp, &p, &scratch, why, sizeof(why));
		if (r != cases[i].r || (cases[i].why && !strstr(why, cases[i].why)))
			fail_msg("case %zu: %d '%s', expected %d '%s'", i, r, why, cases[i].r, cases[i].why ? cases[i].why : "");
		json_decref(fp);
	}
	lab_matrix_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keys_refuse),  cmocka_unit_test(rates),        cmocka_unit_test(qemu_arguments),
		cmocka_unit_test(bond_module),  cmocka_unit_test(link_shaping), cmocka_unit_test(bond_cmdline),
		cmocka_unit_test(bond_writes),  cmocka_unit_test(guest_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
