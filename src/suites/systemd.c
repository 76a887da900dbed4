/* systemd suite: how a systemd machine's last boot spent its time, in
 * systemd's own words. `systemd-analyze` splits the boot into firmware,
 * loader, kernel, initrd and userspace (the parts the machine had), and
 * `systemd-analyze blame` names the units that took longest. The lab runs
 * it in a distribution guest right after the boot it timed from outside
 * (src/lab/labrun.c), so the report shows which services took the time;
 * on any systemd machine it reads that machine's own last boot. It waits
 * (bounded) until the boot has finished, which systemd-analyze needs. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "systemd.h"
#include "boot.h"
#include "../core/clock.h"
#include "../core/macro.h"
#include "../core/spawn.h"
#include "../core/str.h"
#include "../core/suite.h"
#include "../core/banned.h"

const char *const sd_part_names[SD_NPARTS] = { "firmware", "loader", "kernel", "initrd", "userspace" };

/* systemd's format_timespan units, longest first as it writes them */
static const struct {
	const char *suffix;
	double sec;
} spans[] = {
	{ "y", 31557600 }, { "month", 2629800 }, { "w", 604800 }, { "d", 86400 }, { "h", 3600 },
	{ "min", 60 },     { "ms", 1e-3 },        { "us", 1e-6 },  { "s", 1 },
};

int sd_parse_span(const char *s, size_t len, double *sec)
{
	double total = 0;
	size_t i = 0, words = 0;

	while (i < len) {
		char num[32], *end;
		size_t n = 0, k;
		double v;
		bool unit = false;

		while (i < len && s[i] == ' ')
			i++;
		if (i == len)
			break;
		while (i + n < len && n < sizeof(num) - 1 && (s[i + n] == '.' || (s[i + n] >= '0' && s[i + n] <= '9')))
			n++;
		if (n == 0 || n == sizeof(num) - 1)
			return -EINVAL;
		memcpy(num, s + i, n);
		num[n] = '\0';
		v = strtod(num, &end);
		if (*end || !isfinite(v))
			return -EINVAL;
		i += n;
		for (k = 0; k < ARRAY_SIZE(spans); k++) {
			size_t sl = strlen(spans[k].suffix);

			/* the unit ends the word: "ms" is not "m" then "s" */
			if (len - i >= sl && !memcmp(s + i, spans[k].suffix, sl) && (i + sl == len || s[i + sl] == ' ')) {
				total += v * spans[k].sec;
				i += sl;
				unit = true;
				break;
			}
		}
		if (!unit || ++words > 8)
			return -EINVAL;
	}
	if (!words)
		return -EINVAL;
	*sec = total;
	return 0;
}

int sd_parse_startup(const char *text, struct sd_startup *out)
{
	static const char lead[] = "Startup finished in ";
	const char *p = strstr(text, lead), *eol;
	struct sd_startup st;
	double sum = 0;
	size_t nparts = 0;

	if (!p)
		return -ENOENT;
	p += strlen(lead);
	eol = p + strcspn(p, "\n");
	for (size_t k = 0; k < SD_NPARTS; k++)
		st.part[k] = NAN;
	/* "SPAN (part) + SPAN (part) ... = SPAN" */
	for (;;) {
		const char *open = memchr(p, '(', (size_t)(eol - p)), *close;
		size_t k;

		if (!open || open == p || open[-1] != ' ')
			return -EINVAL;
		close = memchr(open, ')', (size_t)(eol - open));
		if (!close)
			return -EINVAL;
		for (k = 0; k < SD_NPARTS; k++)
			if ((size_t)(close - open - 1) == strlen(sd_part_names[k]) &&
			    !memcmp(open + 1, sd_part_names[k], strlen(sd_part_names[k])))
				break;
		if (k == SD_NPARTS || !isnan(st.part[k]) ||
		    sd_parse_span(p, (size_t)(open - 1 - p), &st.part[k]) < 0)
			return -EINVAL;
		sum += st.part[k];
		nparts++;
		p = close + 1;
		if (eol - p >= 3 && !memcmp(p, " + ", 3)) {
			p += 3;
			continue;
		}
		if (eol - p >= 3 && !memcmp(p, " = ", 3)) {
			p += 3;
			break;
		}
		return -EINVAL;
	}
	if (sd_parse_span(p, (size_t)(eol - p), &st.total) < 0 || !nparts)
		return -EINVAL;
	/* each part is rounded as printed; the total is their sum */
	if (fabs(st.total - sum) > 1e-3 * (double)(nparts + 1))
		return -EINVAL;
	*out = st;
	return 0;
}

int sd_parse_blame(const char *text, struct sd_blame *out, size_t max, size_t *n)
{
	size_t got = 0;

	for (const char *p = text; *p && got < max; p += strcspn(p, "\n"), p += *p == '\n') {
		size_t len = strcspn(p, "\n"), lead = strspn(p, " "), u;
		const char *unit;
		double sec;

		if (lead == len)
			continue; /* an empty line */
		/* the unit is the last word; the span is every word before it */
		unit = p + len;
		while (unit > p + lead && unit[-1] != ' ')
			unit--;
		u = (size_t)(p + len - unit);
		if (unit == p + lead || u == 0 || u >= sizeof(out->unit))
			return -EINVAL;
		for (size_t i = 0; i < u; i++)
			if (unit[i] <= ' ' || unit[i] > '~')
				return -EINVAL;
		if (sd_parse_span(p + lead, (size_t)(unit - 1 - p - lead), &sec) < 0)
			return -EINVAL;
		memcpy(out[got].unit, unit, u);
		out[got].unit[u] = '\0';
		out[got].sec = sec;
		got++;
	}
	*n = got;
	return 0;
}

/* The suite ------------------------------------------------------------- */

#define SYSTEMD_BLAME_TOP 5

static int systemd_supported(const struct vmb_env *env, const char **why)
{
	(void)env;
	/* sd_booted(): systemd made this directory as PID 1 */
	if (access("/run/systemd/system", F_OK) < 0) {
		*why = "this machine was not booted with systemd (no /run/systemd/system)";
		return 0;
	}
	return 1;
}

/* systemd-analyze's output once the boot has finished: it says "Bootup is
 * not yet finished" (and exits 1) until then; asked every 0.5 s for at
 * most wait s. */
static int analyze(struct vmb_ctx *ctx, double wait, char **text)
{
	char *const argv[] = { "systemd-analyze", "--no-pager", NULL };
	double until = clock_s() + wait;

	for (unsigned i = 0; i < 100000; i++) {
		char *out = NULL;
		int r = run_capture_all(argv[0], argv, &out);

		if (r == 0 && out && strstr(out, "Startup finished in")) {
			*text = out;
			return 0;
		}
		if (r == -ENOENT || (r < 0 && r != -ECHILD)) {
			free(out);
			return vmb_fail(ctx, r, "running systemd-analyze");
		}
		if (!out || !strstr(out, "not yet finished") || clock_s() > until || vmb_stop_requested()) {
			vmb_fail(ctx, -EIO, "systemd-analyze: %.200s", out && *out ? out : "no output");
			if (out && strstr(out, "not yet finished"))
				snprintf(ctx->reason, sizeof(ctx->reason), "the boot had not finished after %g s "
					 "(systemd-analyze: Bootup is not yet finished; systemctl list-jobs says what waits)",
					 wait);
			free(out);
			return -EIO;
		}
		free(out);
		nanosleep(&(struct timespec){ .tv_nsec = 500000000 }, NULL);
	}
	return vmb_fail(ctx, -ETIMEDOUT, "waiting for the boot to finish");
}

static int systemd_run_analyze(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	char *const blame_argv[] = { "systemd-analyze", "--no-pager", "blame", NULL };
	char *text = NULL, *blame_text = NULL, phases[128] = "", top[SYSTEMD_BLAME_TOP * 160] = "";
	struct sd_blame blame[SYSTEMD_BLAME_TOP];
	struct sd_startup st;
	size_t nb = 0, off = 0, poff = 0;
	int r;

	(void)test;
	r = analyze(ctx, (double)optset_int(ctx->opts, "wait"), &text);
	if (r < 0)
		return r;
	r = sd_parse_startup(text, &st);
	if (r < 0) {
		r = vmb_fail(ctx, -EPROTO, "systemd-analyze said what this suite cannot read: %.160s", text);
		free(text);
		return r;
	}
	free(text);
	/* the parts this machine's boot had, in systemd's order: a stacked whole */
	for (size_t k = 0; k < SD_NPARTS; k++) {
		char metric[32];

		if (isnan(st.part[k]))
			continue;
		snprintf(metric, sizeof(metric), "phase_%s", sd_part_names[k]);
		vmb_rep_value(rep, metric, VMB_UNIT_NS, VMB_LOWER, st.part[k] * 1e9);
		str_appendf(phases, sizeof(phases), &poff, "%s%s", poff ? "," : "", metric);
	}
	vmb_rep_value(rep, "startup_total", VMB_UNIT_NS, VMB_LOWER, st.total * 1e9);
	(void)vmb_note(ctx, BOOT_PHASES_NOTE, "%s", phases);
	if (run_capture_all(blame_argv[0], blame_argv, &blame_text) < 0 || !blame_text ||
	    sd_parse_blame(blame_text, blame, SYSTEMD_BLAME_TOP, &nb) < 0) {
		r = vmb_fail(ctx, -EPROTO, "systemd-analyze blame said what this suite cannot read: %.160s",
			     blame_text ? blame_text : "nothing");
		free(blame_text);
		return r;
	}
	free(blame_text);
	for (size_t i = 0; i < nb; i++)
		str_appendf(top, sizeof(top), &off, "%s%s %.3f s", i ? "; " : "", blame[i].unit, blame[i].sec);
	(void)vmb_note(ctx, "blame", "%s", nb ? top : "(no unit)");
	return 0;
}

static const struct vmb_test systemd_tests[] = {
	{ .name = "analyze", .summary = "systemd-analyze's split of the last boot, and blame's top 5 units (a note)",
	  .headline = "startup_total", .run = systemd_run_analyze },
	{ .name = NULL },
};

static const struct vmb_opt systemd_opts[] = {
	{ .name = "wait", .type = OPT_INT, .min = 0, .max = 3600, .def = "300", .metavar = "SECONDS",
	  .help = "how long to wait for the boot to finish (systemd-analyze reads a finished boot only)" },
	OPT_TABLE_END,
};

const struct vmb_suite systemd_suite = {
	.name = "systemd",
	.summary = "the last boot as systemd-analyze splits it (firmware, loader, kernel, initrd, userspace) and blame",
	.abi = VMB_SUITE_ABI,
	.flags = VMB_SUITE_ON_REQUEST,
	.tests = systemd_tests,
	.opts = systemd_opts,
	.supported = systemd_supported,
	.phase_prefix = "phase_",
};
