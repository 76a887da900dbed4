/* vmbench help: per-command help, and the man page generated from the same
 * command, option and suite tables (docs/vmbench.1 is its output). */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "../suites/suites.h"
#include "../core/banned.h"

#ifndef VMB_VERSION
#define VMB_VERSION "0"
#endif

const struct vmb_opt help_opts[] = {
	{ .name = "man", .type = OPT_BOOL, .help = "print the whole manual page (roff) on stdout" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static int cmd_help(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_help_desc = {
	.name = "help",
	.fn = cmd_help,
	.args = "[COMMAND] [--man]",
	.summary = "show help for a command, or the manual page",
	.opts = help_opts,
	.max_args = 1,
};

/* roff: a leading '.' or '\'' starts a request, '-' must be '\-', '\' is '\e'. */
static void roff(const char *s)
{
	for (; s && *s; s++) {
		if (*s == '-')
			fputs("\\-", stdout);
		else if (*s == '\\')
			fputs("\\e", stdout);
		else
			putchar(*s);
	}
}

static void man_options(const struct vmb_opt *opts, const char *prefix)
{
	for (size_t i = 0; opts && opts[i].name; i++) {
		char cons[160];

		opt_format_constraints(&opts[i], cons, sizeof(cons));
		fputs(".TP\n.B ", stdout);
		if (opts[i].short_name)
			printf("\\-%c, ", opts[i].short_name);
		fputs("\\-\\-", stdout);
		roff(prefix);
		roff(opts[i].name);
		if (opts[i].type != OPT_BOOL) {
			fputs(" \\fI", stdout);
			roff(opts[i].metavar ? opts[i].metavar : "VALUE");
			fputs("\\fR", stdout);
		}
		putchar('\n');
		if (opts[i].refused)
			roff("not taken here: ");
		roff(opts[i].help);
		if (*cons) {
			fputs(" (", stdout);
			roff(cons);
			putchar(')');
		}
		fputs(".\n", stdout);
	}
}

/* Command lines that work as written, what each does: the man page's
 * EXAMPLES (tests/cli/man.sh parses every one with the real options). */
static const struct {
	const char *line, *what;
} examples[] = {
	{ "vmbench info", "What this machine is: hypervisor, CPU, memory, disks and NICs with their drivers." },
	{ "vmbench run --quick --label hv=kvm", "A short run of every suite, stored with the label hv=kvm." },
	{ "vmbench run cpu.prime --threads 1,4 --cpu.max-prime 20000",
	  "sysbench's prime test at 1 and 4 threads, with sysbench's --cpu-max-prime=20000." },
	{ "vmbench run disk --disk.dir /mnt/scratch --disk.iodepth 1,32 --json disk.json",
	  "The storage suite on a file in /mnt/scratch at queue depths 1 and 32, also written to disk.json." },
	{ "vmbench results --label hv=kvm --format csv", "The stored runs labelled hv=kvm, as CSV." },
	{ "vmbench compare hv=kvm hv=tcg --fail-if-worse 5",
	  "The runs labelled hv=tcg against the baseline, the runs labelled hv=kvm (the first operand), metric by "
	  "metric; exit 1 when a metric is significantly worse than the baseline by more than 5%." },
	{ "vmbench report hv=kvm hv=tcg -o kvm-tcg.html", "The same comparison as one self-contained HTML page." },
	{ "vmbench import fio.json --label host=old", "A fio --output-format=json result, stored as a vmbench run." },
	{ "vmbench export 3 --format openmetrics", "Run 3 for Prometheus's textfile collector." },
	{ "vmbench lab run --matrix \"accel=kvm,tcg disk=ide,virtio-blk\" --quick",
	  "Four QEMU guests (KVM and TCG, each with an IDE and a virtio-blk disk), booted, timed, measured and "
	  "compared with the host." },
	{ "vmbench lab run --matrix \"accel=tcg disk=ide,virtio-blk\" --suites disk.randread --disk.iodepth 1,4,16,64 "
	  "--time 5",
	  "fio's queue-depth sweep with a fixed runtime, in a guest behind each controller and on the host, with the "
	  "same options in each." },
};

/* The NAME line from the suite table: it names what exists. */
static void man_name(void)
{
	fputs(".SH NAME\nvmbench \\- virtualization benchmark lab: ", stdout);
	for (size_t i = 0; i < vmb_nsuites; i++)
		printf("%s%s", i ? (i + 1 < vmb_nsuites ? ", " : " and ") : "", vmb_suites[i]->name);
	printf(" suite%s, QEMU guests with boot timing, statistics\n", vmb_nsuites == 1 ? "" : "s");
}

static void man_examples(void)
{
	puts(".SH EXAMPLES");
	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		fputs(".TP\n.B ", stdout);
		roff(examples[i].line);
		putchar('\n');
		roff(examples[i].what);
		putchar('\n');
	}
}

static void man_page(void)
{
	printf(".TH VMBENCH 1 \"\" \"vmbench %s\" \"User Commands\"\n", VMB_VERSION);
	man_name();
	puts(".SH SYNOPSIS\n.B vmbench\n.I command\n[\\fIoptions\\fR]");
	puts(".SH DESCRIPTION\nvmbench measures a machine, virtual or not, with the metric definitions of "
	     "sysbench, fio and iozone, repeats each measurement until its 95% confidence interval is tight "
	     "enough, and stores every run with a fingerprint of the environment (hypervisor, devices, drivers, "
	     "kernel knobs) so that runs made on different configurations can be compared. Results of fio, "
	     "iperf3 and sysbench can be imported and compared with them.");
	puts(".SH COMMANDS");
	for (const struct vmb_cmd *const *p = vmb_cmds; *p; p++) {
		const struct vmb_cmd *c = *p;

		printf(".SS \"vmbench %s ", c->name);
		roff(c->args);
		puts("\"");
		roff(c->summary);
		puts(".");
		if (c->description) {
			puts(".PP");
			roff(c->description);
			putchar('\n');
		}
		if (c->subcmds) {
			/* every verb's options, each saying which verbs take it */
			struct vmb_opt *all = cmd_sub_opts(c);

			man_options(all, "");
			cmd_sub_opts_free(all);
		} else {
			man_options(c->opts, "");
		}
	}
	puts(".SH SUITES\nSuite options are given to \\fBvmbench run\\fR as \\fB\\-\\-\\fISUITE\\fB.\\fIOPTION\\fR.");
	for (size_t i = 0; i < vmb_nsuites; i++) {
		const struct vmb_suite *s = vmb_suites[i];
		char prefix[48];

		printf(".SS %s\n", s->name);
		roff(s->summary);
		puts(".");
		for (const struct vmb_test *t = s->tests; t->name; t++) {
			printf(".TP\n.B %s.%s\n", s->name, t->name);
			roff(t->summary);
			printf("; headline metric \\fB%s\\fR", t->headline);
			puts(t->flags & VMB_TEST_THREADED ? ", measured for every \\fB\\-\\-threads\\fR count." : ".");
		}
		snprintf(prefix, sizeof(prefix), "%s.", s->name);
		man_options(s->opts, prefix);
	}
	man_examples();
	puts(".SH EXIT STATUS\n.TP\n.B 0\nsuccess\n.TP\n.B 1\na measurement or an operation failed, or nothing "
	     "was measured (every selected test was skipped)\n"
	     ".TP\n.B 2\nusage error: a bad option, value or argument\n.TP\n.B 130\ninterrupted (Ctrl\\-C): "
	     "the cases finished are stored, marked interrupted (nothing when none had finished)");
	puts(".SH ENVIRONMENT\n.TP\n.B VMBENCH_DB\nthe result store, when \\fB\\-\\-db\\fR is not given\n"
	     ".TP\n.B XDG_DATA_HOME\nthe store defaults to \\fI$XDG_DATA_HOME/vmbench/results.db\\fR "
	     "(\\fI~/.local/share/vmbench/results.db\\fR)");
	puts(".SH SEE ALSO\n.BR sysbench (1),\n.BR fio (1),\n.BR iozone (1),\n.BR iperf3 (1),\n.BR qemu (1)");
}

static int cmd_help(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	const struct vmb_cmd *c;
	int ret;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	ret = EXIT_OK;
	if (optset_bool(&own, "man")) {
		man_page();
	} else if (pos.n == 0) {
		cmd_main_usage(stdout);
	} else if ((c = cmd_find(pos.v[0]))) {
		cmd_print_help(c);
	} else {
		ret = cmd_usage_error(self, "no command '%s'; 'vmbench help' lists them", pos.v[0]);
	}
out:
	cmd_release(&own, NULL, &pos);
	return ret;
}
