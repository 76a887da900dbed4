/* vmbench: global options, the subcommand table, dispatch. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/log.h"
#include "suites/suites.h"
#include "core/banned.h"

#ifndef VMB_VERSION
#define VMB_VERSION "0"
#endif

extern const struct vmb_opt run_opts[], list_opts[], info_opts[], results_opts[], show_opts[], help_opts[],
	compare_opts[], export_opts[], report_opts[], import_opts[], agent_opts[], lab_opts[];

const struct vmb_cmd vmb_cmds[] = {
	{ .name = "run", .fn = cmd_run, .args = "[SUITE[.TEST]...] [OPTIONS]",
	  .summary = "measure this machine and store the result",
	  .description = "Runs the named suites or tests (all by default). Each test runs an uncounted warm-up, "
			 "then repetitions until the 95% confidence interval of its headline metric is within "
			 "--precision of the mean (between --min-reps and --max-reps, within --budget). The "
			 "result is printed, stored in the result store and, with --json, written as a document.",
	  .opts = run_opts, .flags = CMD_SUITE_OPTS, .max_args = -1 },
	{ .name = "list", .fn = cmd_list, .args = "", .summary = "list suites, their tests and options",
	  .opts = list_opts, .max_args = 0 },
	{ .name = "info", .fn = cmd_info, .args = "[--json]",
	  .summary = "show what this machine is: hypervisor, CPU, memory, devices and drivers",
	  .description = "The same fingerprint is stored with every result.", .opts = info_opts, .max_args = 0 },
	{ .name = "results", .fn = cmd_results, .args = "[--label KEY=VALUE]...",
	  .summary = "list stored runs, one line each", .opts = results_opts, .max_args = 0 },
	{ .name = "show", .fn = cmd_show, .args = "RUN|FILE|- [--json]",
	  .summary = "show one result from the store (run number or id prefix) or from a file",
	  .opts = show_opts, .min_args = 1, .max_args = 1 },
	{ .name = "compare", .fn = cmd_compare, .args = "A B [C...] [OPTIONS]",
	  .summary = "compare runs: mean, 95% CI, gap to the baseline and its significance, per metric",
	  .description = "Each operand is a result file, a stored run (number or id prefix), or a label selector "
			 "(hv=kvm or disk=sata,host=lab1) whose matching runs are pooled as repetitions. Metrics are "
			 "paired only when suite, test and parameters (threads, queue depth, block size...) are equal; "
			 "a metric present on one side only is listed as such. A difference is significant when the "
			 "95% confidence interval of the difference of means (Welch) excludes zero.",
	  .opts = compare_opts, .min_args = 2, .max_args = -1 },
	{ .name = "report", .fn = cmd_report, .args = "A [B...] -o FILE.html",
	  .summary = "write one self-contained HTML page: comparison tables, charts, fingerprints",
	  .description = "Operands as for compare. The page needs no network: charts are inline SVG (bars with "
			 "95% CI, curves over a swept parameter such as queue depth or threads, latency "
			 "percentiles on a log axis), and each run's fingerprint is in a collapsible section.",
	  .opts = report_opts, .min_args = 1, .max_args = -1 },
	{ .name = "export", .fn = cmd_export, .args = "RUN|FILE [--format json|csv|markdown|openmetrics]",
	  .summary = "write one run as JSON, CSV, Markdown or OpenMetrics (Prometheus textfile collector)",
	  .opts = export_opts, .min_args = 1, .max_args = 1 },
	{ .name = "import", .fn = cmd_import, .args = "FILE|- [--label KEY=VALUE]...",
	  .summary = "store fio (--output-format=json), iperf3 (-J) or sysbench cpu/memory results as vmbench runs",
	  .description = "The metrics get the names vmbench uses for the same measurement (fio randread iops ->"
			 " disk.randread iops with the same parameters), so old measurements compare with new "
			 "ones; the run is labelled source=fio (iperf3, sysbench-cpu, sysbench-memory).",
	  .opts = import_opts, .min_args = 1, .max_args = 1 },
	{ .name = "agent", .fn = cmd_agent, .args = "[--port PATH]",
	  .summary = "the guest side of the lab: run suites on a host's request over a serial port",
	  .description = "Speaks vmbench's agent protocol (version 1) on PATH or stdin/stdout: HELLO with this "
			 "machine's fingerprint, then RUN <suite> <options JSON> answered by PROGRESS heartbeats "
			 "and RESULT <length> with the result document (or ERROR <message>), until BYE.",
	  .opts = agent_opts, .max_args = 0 },
	{ .name = "lab", .fn = cmd_lab, .args = "image | run --matrix SPEC | report SELECTOR",
	  .summary = "the QEMU lab: guest image, matrix runs under QEMU, comparison with the host",
	  .description = "The image is Debian's kernel (fetched once with apt-get download into the cache), an "
			 "initramfs with a static busybox, the kernel modules of every supported disk controller and "
			 "NIC with their dependencies, this vmbench binary with its shared libraries, and an init "
			 "that loads the drivers and starts 'vmbench agent' on /dev/hvc0. It is rebuilt only when "
			 "an input changed. 'lab run' boots every configuration of --matrix, times the boot phases, "
			 "runs --suites in the guest on a scratch disk behind the configuration's controller, "
			 "measures the host, stores each result with the matrix keys as labels, prints the "
			 "comparison with the host and writes the HTML report. 'lab report SELECTOR' redraws it "
			 "from the store. x86_64 guests only so far.",
	  .opts = lab_opts, .min_args = 1, .max_args = 2 },
	{ .name = "help", .fn = cmd_help, .args = "[COMMAND] [--man]",
	  .summary = "show help for a command, or the manual page", .opts = help_opts, .max_args = 1 },
	{ .name = NULL },
};

void main_usage(FILE *f);
void main_usage(FILE *f)
{
	fprintf(f, "usage: vmbench COMMAND [OPTIONS]\n       vmbench --version\n\ncommands:\n");
	for (const struct vmb_cmd *c = vmb_cmds; c->name; c++)
		fprintf(f, "  %-9s %s\n", c->name, c->summary);
	fprintf(f, "\n'vmbench help COMMAND' or 'vmbench COMMAND --help' shows a command's options.\n");
}

/* A broken descriptor is a programming error: refuse to start (fio check_engine_ops). */
static int check_suites(void)
{
	for (size_t i = 0; i < vmb_nsuites; i++) {
		const char *why;

		if (vmb_suite_check(vmb_suites[i], &why) < 0) {
			log_error("internal error: suite '%s': %s", vmb_suites[i]->name ? vmb_suites[i]->name : "?", why);
			return -1;
		}
	}
	return 0;
}

/* Output that did not reach its file is a failure like any other: the
 * last buffered bytes are only written here (a full disk shows only now).
 * A command that failed has said why; one that succeeded learns it here. */
static int finish_stdout(int ret)
{
	int err = 0;

	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		err = errno ? errno : EIO;
	errno = 0;
	if (fclose(stdout) != 0 && !err)
		err = errno ? errno : EIO;
	if (!err || ret != EXIT_OK)
		return ret;
	/* a reader that went away (| head) is no news to the user */
	if (err != EPIPE)
		log_error("writing the output: %s", strerror(err));
	return EXIT_FAILED;
}

static int run_main(int argc, char **argv)
{
	const struct vmb_cmd *c;

	cmd_argc = argc;
	cmd_argv = argv;
	log_set_level(LOG_INFO);
	if (check_suites() < 0)
		return EXIT_FAILED;
	if (argc < 2) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("vmbench %s\n", VMB_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		main_usage(stdout);
		return EXIT_OK;
	}
	c = cmd_find(argv[1]);
	if (!c) {
		const struct vmb_cmd *best = NULL;
		size_t bd = 3;

		for (const struct vmb_cmd *k = vmb_cmds; k->name; k++)
			if (str_distance(argv[1], k->name) < bd)
				bd = str_distance(argv[1], k->name), best = k;
		fprintf(stderr, "vmbench: error: unknown command '%s'%s%s%s\n", argv[1],
			best ? "; did you mean '" : "", best ? best->name : "", best ? "'?" : "");
		main_usage(stderr);
		return EXIT_USAGE;
	}
	return c->fn(c, argc - 2, argv + 2);
}

int main(int argc, char **argv)
{
	return finish_stdout(run_main(argc, argv));
}
