/* vmbench list: suites, tests and options, from the descriptors; with
 * --lab the lab's tables (matrix keys, device models, back ends, images),
 * from their rows, which is also what the docs' lists are checked against
 * (tests/cli/tables.sh). */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "../core/runner.h"
#include "../core/str.h"
#include "../core/sys.h"
#include "../lab/matrix.h"
#include "../lab/qemu.h"
#include "../suites/suites.h"
#include "../core/banned.h"

const struct vmb_opt list_opts[] = {
	{ .name = "lab", .type = OPT_BOOL,
	  .help = "list the lab's tables instead: the matrix keys with their values, the device models (their "
		  "architectures, the guest driver checked behind each, the modules the image loads, QEMU's "
		  "devices), the back ends, images, profiles and filesystems" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

/* " a b c" as "a,b,c", as a matrix gives a key's values */
static void commas(const char *spaced, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (const char *p = spaced + strspn(spaced, " "); *p; p += strspn(p, " ")) {
		size_t n = strcspn(p, " ");

		str_appendf(buf, len, &off, "%s%.*s", off ? "," : "", (int)n, p);
		p += n;
	}
}

static void print_lab(void)
{
	char a[256], b[256];

	printf("Matrix keys (lab run --matrix \"KEY=V1,V2 ...\"; 'vmbench lab --help' says what each does):\n");
	for (int k = 0; k < (int)lab_nkeys; k++) {
		const char *values = lab_key_values((enum lab_key)k), *range = lab_key_range((enum lab_key)k);

		commas(values, a, sizeof(a));
		if (*values)
			printf("  %s=%s (default %s)\n", lab_key_name((enum lab_key)k), a, lab_key_default((enum lab_key)k));
		else
			printf("  %s: %s (default %s)\n", lab_key_name((enum lab_key)k), range + strspn(range, " "),
			       lab_key_default((enum lab_key)k));
	}

	printf("\nDevice models (LAB_DEVICES, src/lab/matrix.h): where the lab runs each, the guest driver it checks "
	       "behind it, the modules the image loads for it, QEMU's devices:\n");
	printf("  %-22s %-15s %-15s %-24s %s\n", "MODEL", "ARCHITECTURES", "DRIVER", "MODULES", "QEMU");
	for (size_t i = 0; i < lab_ndevices; i++) {
		const struct lab_device *d = &lab_devices[i];

		char devices[256];
		size_t off = 0;

		devices[0] = '\0';
		for (const char *p = d->devices + strspn(d->devices, " "); *p; p += strspn(p, " ")) {
			size_t n = strcspn(p, " ");

			str_appendf(devices, sizeof(devices), &off, "%s-device %.*s", off ? " " : "", (int)n, p);
			p += n;
		}
		snprintf(b, sizeof(b), "%s=%s", lab_key_name(d->key), d->name);
		commas(d->arches, a, sizeof(a));
		printf("  %-22s %-15s %-15s %-24s %s%s%s%s\n", b, a, d->driver, d->modules, devices,
		       d->x86_machine ? " (x86_64 machine " : "", d->x86_machine ? d->x86_machine : "",
		       d->x86_machine ? ")" : "");
	}

	printf("\nBack ends (LAB_BACKENDS, src/lab/qemu.h): what a model sits on, on the host; a key's first row this "
	       "host can use is its default:\n");
	for (size_t i = 0; i < lab_nbackends; i++) {
		const struct lab_backend *be = &lab_backends[i];
		size_t off = 0;

		b[0] = '\0';
		if (be->image_file)
			str_appendf(b, sizeof(b), &off, "an image file (--disk-format %s)", be->name);
		else if (be->key == LAB_DISK)
			str_appendf(b, sizeof(b), &off, "backend=%s", be->name);
		if (be->host_addr)
			str_appendf(b, sizeof(b), &off, "%sa link, the host %s, the guest %s", off ? "; " : "", be->host_addr,
				    be->guest_addr ? be->guest_addr : "-");
		if (be->usable)
			str_appendf(b, sizeof(b), &off, "%swhere this host permits it", off ? "; " : "");
		printf("  %-8s %-10s %s%sthe guest shows its %s in its fingerprint's %s\n", lab_key_name(be->key), be->name,
		       b, off ? "; " : "", be->guest_what, be->guest_list);
	}

	printf("\nImages (LAB_IMAGES, src/lab/matrix.h):\n");
	for (size_t i = 0; i < lab_nimages; i++) {
		const struct lab_image_row *im = &lab_images[i];

		snprintf(b, sizeof(b), "image=%s", im->name);
		if (!im->distro)
			printf("  %-19s the lab's initramfs (lab image)\n", b);
		else
			printf("  %-19s lab image --distro %s%s%s, its root disk %s%s\n", b, im->distro,
			       im->packages ? " --distro-packages " : "", im->packages ? im->packages : "",
			       im->root ? im->root : "-", im->ssh ? ", booted to its SSH server" : "");
	}

	printf("\nProfiles (LAB_PROFILES, src/lab/matrix.h): QEMU's emulations of a hypervisor's default devices:\n");
	for (size_t i = 0; i < lab_nprofiles; i++) {
		snprintf(b, sizeof(b), "profile=%s", lab_profiles[i].name);
		printf("  %-19s %s:%s, x86_64 machine %s\n", b, lab_profiles[i].hypervisor, lab_profiles[i].keys,
		       lab_profiles[i].x86_machine);
	}

	printf("\nFilesystems (LAB_FILESYSTEMS, src/lab/matrix.h) the guest makes on the scratch disk:\n");
	for (size_t i = 0; i < lab_nfilesystems; i++) {
		snprintf(b, sizeof(b), "fs=%s", lab_filesystems[i].name);
		printf("  %-19s mkfs from Debian's %s, modules %s\n", b, lab_filesystems[i].package,
		       lab_filesystems[i].modules);
	}
}

static void duration_text(double s, char *buf, size_t len)
{
	if (s < 89.5)
		snprintf(buf, len, "%.0f s", s);
	else
		snprintf(buf, len, "%.0f min", s / 60);
}

/* How long a run of everything takes, from the option defaults: the stop
 * rule's bounds, not a promise (set-up and iozone take what the disk needs). */
static void print_durations(void)
{
	static const struct {
		bool quick;
		const char *what;
	} runs[] = { { false, "vmbench run" }, { true, "vmbench run --quick" } };

	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		struct runner_estimate e;
		char lo[32], hi[32];

		if (run_estimate(runs[i].quick, &e) < 0)
			continue;
		duration_text(e.min_s, lo, sizeof(lo));
		duration_text(e.max_s, hi, sizeof(hi));
		printf("%-20s %zu cases on this machine's %u CPUs, %s to %s by the option defaults\n", runs[i].what,
		       e.ncases, cpus_available(), lo, hi);
	}
	printf("%-20s (a test whose repetitions have a length of their own, as net's and vmexit's, takes less; the\n"
	       "%-20s disk suite's set-up and iozone passes take as long as the disk takes)\n\n", "", "");
}

static int cmd_list(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_list_desc = {
	.name = "list",
	.fn = cmd_list,
	.args = "",
	.summary = "list suites, their tests and options (--lab: the lab's tables)",
	.opts = list_opts,
	.max_args = 0,
};

static int cmd_list(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	int ret;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	if (optset_bool(&own, "lab")) {
		print_lab();
		ret = EXIT_OK;
		goto out;
	}
	print_durations();
	for (size_t i = 0; i < vmb_nsuites; i++) {
		const struct vmb_suite *s = vmb_suites[i];
		char prefix[48];

		printf("%s — %s\n", s->name, s->summary);
		for (const struct vmb_test *t = s->tests; t->name; t++)
			printf("  %s.%-12s %s [%s%s]\n", s->name, t->name, t->summary, t->headline,
			       t->flags & VMB_TEST_THREADED ? ", per --threads" : "");
		if (s->opts && s->opts[0].name) {
			snprintf(prefix, sizeof(prefix), "%s.", s->name);
			printf(" options:\n");
			opts_print_help(stdout, s->opts, prefix);
		}
		if (i + 1 < vmb_nsuites)
			putchar('\n');
	}
	ret = EXIT_OK;
out:
	cmd_release(&own, NULL, &pos);
	return ret;
}
