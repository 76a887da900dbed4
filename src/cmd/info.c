/* vmbench info: the environment fingerprint, as JSON or as "key  value"
 * lines for a person (no raw JSON in them, counts with their plurals,
 * control characters of probed strings escaped). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "../core/log.h"
#include "../lab/kvmguest.h"
#include "../probe/probe.h"
#include "../core/str.h"
#include "../core/sys.h"
#include "../core/banned.h"

const struct vmb_opt info_opts[] = {
	{ .name = "json", .type = OPT_BOOL, .help = "print the fingerprint as JSON" },
	{ .name = "root", .type = OPT_STRING, .def = "/", .metavar = "DIR",
	  .help = "probe a recorded /proc and /sys tree below DIR instead of this machine "
		  "(recorded by scripts/record-fixture.sh; /dev/kvm is then not probed live)" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

#define KEY_WIDTH 22

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* A probed string for the terminal: control characters become \xNN, so a
 * hostname or DMI string cannot move the cursor or change colours. */
static const char *tty(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	if (!s)
		return "-";
	for (; *s && o + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			str_appendf(buf, len, &o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	buf[o] = '\0';
	return buf;
}

static void line(FILE *f, const char *key, const char *value)
{
	char buf[1024];

	fprintf(f, "%-*s %s\n", KEY_WIDTH, key, tty(value, buf, sizeof(buf)));
}

/* "1 socket", "2 sockets", "sockets unknown" */
static void count(char *buf, size_t len, const json_t *n, const char *one, const char *many)
{
	if (!json_is_integer(n))
		snprintf(buf, len, "%s unknown", many);
	else
		snprintf(buf, len, "%lld %s", (long long)json_integer_value(n), json_integer_value(n) == 1 ? one : many);
}

/* "a, b, c" from a JSON array of strings */
static void join(char *buf, size_t len, const json_t *arr, const char *sep)
{
	size_t i, o = 0;
	const json_t *x;

	buf[0] = '\0';
	json_array_foreach(arr, i, x)
		if (json_is_string(x) && o < len)
			str_appendf(buf, len, &o, "%s%s", o ? sep : "", json_string_value(x));
}

/* The named CPU flags (vmx, svm, avx2, ...) are x86's. */
static bool is_x86(const json_t *fp)
{
	const char *arch = jstr(fp, "arch");

	return arch && (!strcmp(arch, "x86_64") || (arch[0] == 'i' && !strcmp(arch + 2, "86")));
}

static void print_hypervisor(FILE *f, const json_t *fp)
{
	const json_t *hv = json_object_get(fp, "hypervisor");
	char buf[512], src[256], by[256];

	if (jstr(hv, "interface"))
		snprintf(buf, sizeof(buf), "%s (presenting %s's paravirtual interface)", jstr(hv, "name"),
			 jstr(hv, "interface"));
	else
		snprintf(buf, sizeof(buf), "%s", jstr(hv, "name") ? jstr(hv, "name") : "-");
	line(f, "hypervisor", buf);
	join(src, sizeof(src), json_object_get(hv, "sources"), ", ");
	join(by, sizeof(by), json_object_get(hv, "decided_by"), ", ");
	snprintf(buf, sizeof(buf), "%s%s%s%s", *src ? src : "none", *by ? " (decided by " : "", by, *by ? ")" : "");
	line(f, "hypervisor sources", buf);
	if (jstr(hv, "cpuid_signature")) {
		snprintf(buf, sizeof(buf), "\"%s\"", jstr(hv, "cpuid_signature"));
		line(f, "cpuid signature", buf);
	}
	if (jstr(hv, "dmi_vendor") || jstr(hv, "dmi_product")) {
		snprintf(buf, sizeof(buf), "%s / %s", jstr(hv, "dmi_vendor") ?: "-", jstr(hv, "dmi_product") ?: "-");
		line(f, "dmi", buf);
	}
}

/* /dev/kvm as probed, beside what the CPU flags say */
static void print_kvm(FILE *f, const json_t *fp)
{
	const json_t *flags = json_object_get(json_object_get(fp, "cpu"), "flags");
	bool vmx = json_is_true(json_object_get(flags, "vmx")), svm = json_is_true(json_object_get(flags, "svm"));
	char buf[512];

	line(f, "vmx/svm flag", !is_x86(fp) ? "- (not an x86 CPU)"
				: vmx && svm ? "vmx, svm" : vmx ? "vmx" : svm ? "svm" : "none");
	(void)probe_kvm_describe(json_object_get(fp, "kvm"), buf, sizeof(buf));
	line(f, "/dev/kvm", buf);
}

/* Whether a guest runs under this machine's KVM: a /dev/kvm may create VMs
 * and still stop every guest ("KVM internal error"). Booting one takes
 * seconds, too long for info: the lab's last verdict (kvmguest.h), or how
 * to get one. This machine's only (root "/"): a recorded tree has none. */
static void print_kvm_guests(FILE *f, const json_t *fp, const char *root)
{
	struct lab_kvm_verdict v;
	bool this_boot = false, mine;
	char buf[1800], when[40], age[32], where[800];
	int r;

	if (strcmp(root, "/"))
		return;
	r = lab_kvm_verdict_load(&v, &this_boot);
	if (r < 0 && !json_is_true(json_object_get(json_object_get(fp, "kvm"), "creates_vm")))
		return;
	if (r < 0) {
		snprintf(buf, sizeof(buf), "not checked%s: 'vmbench lab run --matrix accel=kvm --suites boot' boots one "
			 "(creating a VM is not running a guest)", r == -EINVAL ? " (the lab's last verdict is unreadable)" : "");
		line(f, "KVM guests", buf);
		return;
	}
	format_utc((double)v.when, when, sizeof(when));
	lab_kvm_age(v.when, age, sizeof(age));
	mine = lab_kvm_verdict_here(&v, where, sizeof(where));
	if (v.runs)
		snprintf(buf, sizeof(buf), "run: a lab guest said HELLO under KVM at %s%s", when,
			 this_boot ? "" : ", in an earlier boot of this machine");
	else
		snprintf(buf, sizeof(buf), "fail: a lab guest did not boot under KVM at %s%s%s%s; accel=tcg emulates guests "
			 "(accel=auto moves to it)", when, this_boot ? "" : " (in an earlier boot of this machine)", *v.reason ? ": " : "",
			 v.reason);
	/* its age, and whether it is this host's, kernel's and QEMU's: the lab
	 * (accel=auto, a study's accel = kvm, a study's plan) uses it then */
	if (mine)
		str_appendf(buf, sizeof(buf), &(size_t){ strlen(buf) }, " [%s ago, on this host, kernel and QEMU%s]", age,
			    v.runs ? "" : ": the lab's accel=auto and a study's accel = kvm run under TCG without trying KVM; "
				     "'vmbench lab run --matrix accel=kvm --suites boot' tries it again");
	else
		str_appendf(buf, sizeof(buf), &(size_t){ strlen(buf) }, " [%s ago, %s: not used]", age, where);
	line(f, "KVM guests", buf);
}

/* "48 KiB", "1.25 MiB" */
static void kib_or_mib(char *buf, size_t len, json_int_t bytes)
{
	if (bytes >= 1 << 20)
		snprintf(buf, len, "%.4g MiB", (double)bytes / 1048576.0);
	else
		snprintf(buf, len, "%lld KiB", (long long)(bytes >> 10));
}

/* Each cache level with the source that gave it, then what was not trusted. */
static void print_caches(FILE *f, const json_t *cpu)
{
	const json_t *c;
	char buf[512], sz[32];
	size_t i, o = 0;

	buf[0] = '\0';
	json_array_foreach(json_object_get(cpu, "caches"), i, c) {
		json_int_t lv = json_integer_value(json_object_get(c, "level"));

		kib_or_mib(sz, sizeof(sz), json_integer_value(json_object_get(c, "size_bytes")));
		str_appendf(buf, sizeof(buf), &o, "%sL%lld%s %s (%s)", o ? ", " : "", (long long)lv, lv == 1 ? "d" : "", sz,
			    jstr(c, "source") ?: "-");
	}
	line(f, "caches", o ? buf : "unknown (no source knows them: sysfs, CPUID, /proc/cpuinfo, sysconf)");
	json_array_foreach(json_object_get(cpu, "caches_rejected"), i, c) {
		kib_or_mib(sz, sizeof(sz), json_integer_value(json_object_get(c, "size_bytes")));
		snprintf(buf, sizeof(buf), "%s %s from %s: %s", jstr(c, "level") ?: "-", sz, jstr(c, "source") ?: "-",
			 jstr(c, "why") ?: "-");
		line(f, i ? "" : "caches not trusted", buf);
	}
}

static void print_cpu(FILE *f, const json_t *fp)
{
	static const struct {
		const char *key, *name;
	} named[] = {
		{ "avx2", "avx2" }, { "avx512f", "avx512f" }, { "invariant_tsc", "invariant TSC" },
		{ "hypervisor", "hypervisor" }, { "vmx", "vmx" }, { "svm", "svm" },
	};
	const json_t *cpu = json_object_get(fp, "cpu"), *flags = json_object_get(cpu, "flags");
	/* on another CPU, lacking x86's flags says nothing */
	bool x86 = is_x86(fp);
	char buf[512], a[64], b[64], c[64], d[64], has[256] = "", lacks[256] = "";
	size_t nh = 0, nl = 0;

	if (jstr(cpu, "vendor") && jstr(cpu, "model"))
		snprintf(buf, sizeof(buf), "%s (%s)", jstr(cpu, "model"), jstr(cpu, "vendor"));
	else
		snprintf(buf, sizeof(buf), "%s", jstr(cpu, "model") ?: "-");
	line(f, "cpu", buf);
	count(a, sizeof(a), json_object_get(cpu, "logical"), "logical CPU", "logical CPUs");
	count(b, sizeof(b), json_object_get(cpu, "sockets"), "socket", "sockets");
	count(c, sizeof(c), json_object_get(cpu, "cores"), "core", "cores");
	count(d, sizeof(d), json_object_get(cpu, "numa_nodes"), "NUMA node", "NUMA nodes");
	snprintf(buf, sizeof(buf), "%s, %s, %s, %s", a, b, c, d);
	line(f, "topology", buf);
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		bool on = json_is_true(json_object_get(flags, named[i].key));

		if (on)
			str_appendf(has, sizeof(has), &nh, "%s%s", nh ? ", " : "", named[i].name);
		else if (x86)
			str_appendf(lacks, sizeof(lacks), &nl, "%s%s", nl ? ", " : "", named[i].name);
	}
	count(a, sizeof(a), json_object_get(cpu, "flag_count"), "flag", "flags");
	snprintf(buf, sizeof(buf), "%s%s%s%s%s", a, nh ? "; has " : "", has, nl ? "; lacks " : "", lacks);
	line(f, "cpu flags", buf);
	print_caches(f, cpu);
	line(f, "governor", jstr(cpu, "governor"));
}

static void print_memory(FILE *f, const json_t *fp)
{
	const json_t *mem = json_object_get(fp, "memory"), *steal = json_object_get(fp, "steal");
	const json_t *cs = json_object_get(fp, "clocksource");
	char buf[512], avail[256];

	if (json_is_integer(json_object_get(mem, "total_bytes")))
		snprintf(buf, sizeof(buf), "%.1f GiB total, %.1f GiB available",
			 json_number_value(json_object_get(mem, "total_bytes")) / 1073741824.0,
			 json_number_value(json_object_get(mem, "available_bytes")) / 1073741824.0);
	else
		snprintf(buf, sizeof(buf), "-");
	line(f, "memory", buf);
	join(avail, sizeof(avail), json_object_get(cs, "available"), ", ");
	snprintf(buf, sizeof(buf), "%s%s%s%s", jstr(cs, "current") ?: "-", *avail ? " (available: " : "", avail,
		 *avail ? ")" : "");
	line(f, "clocksource", buf);
	line(f, "thp", jstr(json_object_get(fp, "thp"), "enabled"));
	line(f, "balloon", jstr(json_object_get(fp, "balloon"), "driver"));
	if (json_is_object(steal))
		snprintf(buf, sizeof(buf), "%.2f s since boot, %.2f%% of CPU time",
			 json_number_value(json_object_get(steal, "seconds")),
			 json_number_value(json_object_get(steal, "percent")));
	else
		snprintf(buf, sizeof(buf), "-");
	line(f, "steal", buf);
}

static void print_devices(FILE *f, const json_t *fp)
{
	const json_t *d;
	char buf[512];
	size_t i;

	json_array_foreach(json_object_get(fp, "block_devices"), i, d) {
		char gib[32] = "size unknown";

		if (json_is_integer(json_object_get(d, "size_bytes")))
			snprintf(gib, sizeof(gib), "%.1f GiB",
				 (double)json_integer_value(json_object_get(d, "size_bytes")) / 1073741824.0);
		snprintf(buf, sizeof(buf), "%s: %s, driver %s, scheduler %s, %s", jstr(d, "name") ?: "-", gib,
			 jstr(d, "driver") ?: "-", jstr(d, "scheduler") ?: "-",
			 json_is_true(json_object_get(d, "rotational"))    ? "rotational"
			 : json_is_false(json_object_get(d, "rotational")) ? "non-rotational"
									    : "rotational unknown");
		line(f, i ? "" : "block devices", buf);
	}
	json_array_foreach(json_object_get(fp, "network"), i, d) {
		snprintf(buf, sizeof(buf), "%s: driver %s, %s", jstr(d, "name") ?: "-", jstr(d, "driver") ?: "-",
			 jstr(d, "state") ?: "-");
		line(f, i ? "" : "network", buf);
	}
}

static void print_fingerprint(FILE *f, const json_t *fp, const char *root)
{
	line(f, "host", jstr(fp, "hostname"));
	line(f, "arch", jstr(fp, "arch"));
	line(f, "kernel", jstr(json_object_get(fp, "kernel"), "release"));
	print_hypervisor(f, fp);
	print_kvm(f, fp);
	print_kvm_guests(f, fp, root);
	line(f, "container", jstr(json_object_get(fp, "container"), "type"));
	print_cpu(f, fp);
	print_memory(f, fp);
	print_devices(f, fp);
}

static int cmd_info(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_info_desc = {
	.name = "info",
	.fn = cmd_info,
	.args = "[--json]",
	.summary = "show what this machine is: hypervisor, CPU, memory, devices and drivers",
	.description = "The same fingerprint is stored with every result.",
	.opts = info_opts,
	.max_args = 0,
};

static int cmd_info(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	json_t *fp = NULL;
	const char *root;
	char err[512];
	int ret;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	root = optset_str(&own, "root");
	if (probe_check_root(root, err, sizeof(err)) < 0) {
		log_error("%s", err);
		ret = EXIT_USAGE;
		goto out;
	}
	fp = probe_fingerprint(&(struct probe_src){ .root = root });
	if (!fp) {
		log_error("out of memory probing the environment");
		ret = EXIT_FAILED;
		goto out;
	}
	if (optset_bool(&own, "json")) {
		if (json_dumpf(fp, stdout, JSON_INDENT(2)) < 0 || putchar('\n') == EOF) {
			ret = EXIT_FAILED;
			goto out;
		}
	} else {
		print_fingerprint(stdout, fp, root);
	}
	ret = fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
out:
	json_decref(fp);
	cmd_release(&own, NULL, &pos);
	return ret;
}
