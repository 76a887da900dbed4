/* Fuzz target: the lab's matrix parser, and the QEMU command line of what
 * it accepts (the device table's arguments for any configuration); the
 * KEY=VALUE pairs of --baseline and the lab's label selectors, with what
 * they promise; the guest's reading of vmbench.queues=N and
 * vmbench.bond=MODE,N from its kernel command line, a topology's three
 * numbers and a link's rate. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/guest/bond.h"
#include "../../src/guest/channels.h"
#include "../../src/lab/qemu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* --baseline's pairs: each one '=' between a matrix key and a non-empty
 * value, no separator left inside; matched against a configuration. */
static void pairs(const char *spec, const struct lab_matrix *m)
{
	struct strv p = { 0 };
	char err[512];

	if (lab_pairs_parse(spec, &p, err, sizeof(err)) == 0) {
		if (!p.n)
			abort();
		for (size_t i = 0; i < p.n; i++) {
			const char *eq = strchr(p.v[i], '=');
			char key[128];

			if (!eq || eq == p.v[i] || !eq[1] || strchr(eq + 1, '=') || strpbrk(p.v[i], ", "))
				abort();
			snprintf(key, sizeof(key), "%.*s", (int)(eq - p.v[i]), p.v[i]);
			if (lab_key_find(key) < 0)
				abort();
		}
		for (size_t i = 0; m && i < m->n; i++)
			(void)lab_config_matches(&m->configs[i], &p);
	} else if (!*err) {
		abort(); /* a refusal always says why */
	}
	strv_clear(&p);
}

/* The selector: the input's words, single commas between, none at the ends. */
static void selector(const char *spec)
{
	char *s = lab_selector(spec);
	size_t n;

	if (!s)
		return;
	n = strlen(s);
	if (strchr(s, ' ') || strstr(s, ",,") || (n && (s[0] == ',' || s[n - 1] == ',')) || n > strlen(spec))
		abort();
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/d", .qmp_socket = "/q", .agent_socket = "/a",
			       .console_log = "/c" };
	struct lab_matrix m;
	char *spec = malloc(size + 1), err[512], why[512];

	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (lab_matrix_parse(spec, &m, err, sizeof(err)) == 0) {
		/* a few configurations: the first, the last and one between */
		for (size_t k = 0; k < 3 && m.n; k++) {
			struct lab_config c = m.configs[k == 0 ? 0 : k == 1 ? m.n - 1 : m.n / 2];
			struct strv argv = { 0 };

			if (!strcmp(c.v[LAB_ACCEL], "auto"))
				lab_config_set(&c, LAB_ACCEL, "tcg");
			(void)lab_config_unsupported(&c, why, sizeof(why));
			(void)lab_qemu_argv(&c, &p, &argv, why, sizeof(why));
			(void)lab_expected_disk_driver(&c);
			strv_clear(&argv);
		}
		pairs(spec, &m);
		lab_matrix_release(&m);
	} else {
		pairs(spec, NULL);
	}
	selector(spec);
	{
		unsigned n = 0, t[3];

		/* a count from 1 to 256, from inside the given length only */
		if (lab_cmdline_queues((const char *)data, size, &n) == 0 && (n < 1 || n > 256))
			abort();
		if (lab_topology_parse(spec, t) == 0 && (!t[0] || !t[1] || !t[2] || t[0] > 256 || t[1] > 256 || t[2] > 256))
			abort();
	}
	{
		/* a mode of the driver's spelling and 2 to 8 NICs; a rate from 1mbit to 100gbit */
		struct lab_bond b;
		uint64_t bps;

		if (lab_cmdline_bond((const char *)data, size, &b) == 0 &&
		    (b.n < 2 || b.n > 8 || !b.mode[0] || strspn(b.mode, "abcdefghijklmnopqrstuvwxyz0123456789.-") !=
		     strlen(b.mode) || memchr(b.addr, ' ', strlen(b.addr))))
			abort();
		if (lab_rate_parse(spec, &bps) == 0 && (bps < 1000000 || bps > 100000000000ull))
			abort();
	}
	free(spec);
	return 0;
}
