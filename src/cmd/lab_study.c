/* vmbench lab study: the shipped studies (--list) and a study file's plan
 * (--plan): every experiment's configurations, boots and an estimated
 * time, its options checked by lab run's own parser before anything runs. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "../core/log.h"
#include "../core/opts.h"
#include "../core/runner.h"
#include "../lab/matrix.h"
#include "../lab/study.h"
#include "../suites/suites.h"
#include "../core/banned.h"

#ifndef VMB_STUDIES_DIR
#define VMB_STUDIES_DIR "studies"
#endif

/* What the plan assumes a boot takes: the lab's busybox guest under TCG on
 * a 2-CPU host boots to its agent in 5 to 10 s; a distribution takes longer. */
#define STUDY_BOOT_S 10.0

/* Where the shipped studies are: $VMBENCH_STUDIES, else the source tree's. */
static const char *studies_dir(void)
{
	const char *env = getenv("VMBENCH_STUDIES");

	return env && *env ? env : VMB_STUDIES_DIR;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The shipped studies' files, sorted. */
static int list_files(const char *dir, struct strv *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char path[4096];

		if (n <= 6 || strcmp(de->d_name + n - 6, ".study"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (strv_push(out, path) < 0) {
			closedir(d);
			return -ENOMEM;
		}
	}
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), name_cmp);
	return 0;
}

static int study_list(const struct vmb_cmd *self)
{
	struct strv files = { 0 };
	const char *dir = studies_dir();
	int r = list_files(dir, &files), ret = EXIT_OK;

	if (r < 0) {
		log_error("%s: %s (the shipped studies; $VMBENCH_STUDIES names another directory)", dir, strerror(-r));
		return EXIT_FAILED;
	}
	if (!files.n) {
		log_error("%s: no .study file", dir);
		strv_clear(&files);
		return EXIT_FAILED;
	}
	for (size_t i = 0; i < files.n; i++) {
		struct study *s = calloc(1, sizeof(*s));
		char err[1200];
		size_t run = 0;

		if (!s) {
			ret = EXIT_FAILED;
			break;
		}
		if (study_load(files.v[i], s, err, sizeof(err)) < 0) {
			log_error("%s", err);
			ret = EXIT_FAILED;
			free(s);
			continue;
		}
		for (size_t k = 0; k < s->nexp; k++)
			run += !*s->exp[k].not_run;
		printf("%-16s %s\n%-16s %zu experiments, %zu for a QEMU lab: 'vmbench lab study %s --plan'\n", s->name,
		       s->title, "", s->nexp, run, s->name);
		study_release(s);
		free(s);
	}
	(void)self;
	strv_clear(&files);
	return ret;
}

/* FILE as given, else NAME of a shipped study. */
static void study_path(const char *arg, char *buf, size_t len)
{
	struct stat st;

	if (strchr(arg, '/') || stat(arg, &st) == 0)
		snprintf(buf, len, "%s", arg);
	else
		snprintf(buf, len, "%s/%s.study", studies_dir(), arg);
}

/* The words of lab run for an experiment: what `lab study` runs. */
static int experiment_argv(const struct study_experiment *e, bool quick, struct strv *av)
{
	char num[16];
	int r = 0;

	r |= strv_push(av, "run");
	r |= strv_push(av, "--matrix");
	r |= strv_push(av, e->matrix);
	r |= strv_push(av, "--suites");
	r |= strv_push(av, e->suites);
	snprintf(num, sizeof(num), "%u", e->rounds);
	r |= strv_push(av, "--rounds");
	r |= strv_push(av, num);
	snprintf(num, sizeof(num), "%u", e->boots);
	r |= strv_push(av, "--boots");
	r |= strv_push(av, num);
	r |= strv_push(av, "--baseline");
	r |= strv_push(av, e->baseline);
	for (size_t i = 0; i < e->options.n; i++)
		r |= strv_push(av, e->options.v[i]);
	if (quick)
		r |= strv_push(av, "--quick");
	return r < 0 ? -ENOMEM : 0;
}

static void print_minutes(double s)
{
	if (s < 90)
		printf("%.0f s", s);
	else
		printf("%.0f min", s / 60);
}

/* One experiment's plan; EXIT_OK, or the exit of lab run's own check of its options. */
static int plan_experiment(const struct vmb_cmd *self, const char *file, const struct study_experiment *e,
			   bool quick, double *total_min, double *total_max, unsigned *boots)
{
	struct optset own = { 0 }, *suite_sets = calloc(vmb_nsuites, sizeof(*suite_sets));
	struct strv av = { 0 }, pos = { 0 };
	struct lab_matrix m = { 0 };
	struct runner_estimate est = { 0 };
	char err[1024];
	int ret = EXIT_FAILED;
	bool host;
	unsigned n;

	printf("\n[experiment %s] %s\n", e->id, e->title);
	if (*e->not_run) {
		printf("  not run: %s\n", e->not_run);
		free(suite_sets);
		return EXIT_OK;
	}
	if (!suite_sets || experiment_argv(e, quick, &av) < 0)
		goto out;
	/* lab run's own parser says what is wrong with an option, after where it is */
	ret = cmd_parse(self, (int)av.n, av.v, &own, suite_sets, &pos);
	if (ret != CMD_CONTINUE) {
		log_error("%s:%u: [experiment %s]: lab run refuses its options (above)", file, e->line, e->id);
		ret = EXIT_USAGE;
		goto out;
	}
	ret = EXIT_FAILED;
	if (quick && optset_apply_quick(&own) < 0)
		goto out;
	for (size_t i = 0; quick && i < vmb_nsuites; i++)
		if (optset_apply_quick(&suite_sets[i]) < 0)
			goto out;
	if (lab_matrix_parse(e->matrix, &m, err, sizeof(err)) < 0) {
		log_error("%s:%u: %s", file, e->line, err);
		goto out;
	}
	if (run_estimate_items(e->suites, &own, suite_sets, &est) < 0) {
		log_error("%s:%u: [experiment %s]: no estimate of its suites", file, e->line, e->id);
		goto out;
	}
	host = strcmp(e->baseline, "none") != 0;
	n = (unsigned)m.n * e->rounds * e->boots;
	printf("  %zu configuration%s x %u round%s x %u boot%s = %u boot%s%s; %s of the rounds, against %s\n", m.n,
	       m.n == 1 ? "" : "s", e->rounds, e->rounds == 1 ? "" : "s", e->boots, e->boots == 1 ? "" : "s", n,
	       n == 1 ? "" : "s", host ? ", and the host measured each round" : "",
	       study_stat_name(e->stat), !strcmp(e->baseline, "host") ? "the host" : e->baseline);
	for (size_t i = 0; i < m.n; i++) {
		char name[512] = "";
		size_t off = 0;

		for (size_t k = 0; k < LAB_NKEYS; k++)
			if (m.given & (1u << k))
				off += (size_t)snprintf(name + off, sizeof(name) - off, "%s%s=%s", off ? " " : "",
							lab_key_name((enum lab_key)k), m.configs[i].v[k]);
		printf("    %s\n", name);
	}
	for (size_t i = 0; i < e->stand_in.n; i++)
		printf("  stands in: %s\n", e->stand_in.v[i]);
	printf("  suites %s: %zu case%s a run, ", e->suites, est.ncases, est.ncases == 1 ? "" : "s");
	print_minutes(est.min_s);
	printf(" to ");
	print_minutes(est.max_s);
	printf(" each\n  estimated: ");
	{
		double runs = (double)m.n * e->rounds + (host ? e->rounds : 0);
		double lo = runs * est.min_s + n * STUDY_BOOT_S, hi = runs * est.max_s + n * STUDY_BOOT_S;

		print_minutes(lo);
		printf(" to ");
		print_minutes(hi);
		printf("\n");
		*total_min += lo;
		*total_max += hi;
		*boots += n;
	}
	ret = EXIT_OK;
out:
	lab_matrix_release(&m);
	optset_release(&own);
	for (size_t i = 0; suite_sets && i < vmb_nsuites; i++)
		optset_release(&suite_sets[i]);
	free(suite_sets);
	strv_clear(&av);
	strv_clear(&pos);
	return ret;
}

int lab_study(const struct vmb_cmd *self, const struct optset *own, const char *arg)
{
	struct study *s;
	char path[4096], err[1200];
	double lo = 0, hi = 0;
	unsigned boots = 0;
	int ret = EXIT_OK, r;

	if (optset_bool(own, "list")) {
		if (arg)
			return cmd_usage_error(self, "--list lists the shipped studies: no FILE with it");
		return study_list(self);
	}
	if (!arg)
		return cmd_usage_error(self, "lab study needs a study: FILE, or NAME of 'vmbench lab study --list'");
	if (!optset_bool(own, "plan"))
		return cmd_usage_error(self, "lab study runs a study's experiments after --plan shows them; this "
				      "vmbench plans only: 'vmbench lab study %s --plan'", arg);
	study_path(arg, path, sizeof(path));
	s = calloc(1, sizeof(*s));
	if (!s)
		return EXIT_FAILED;
	r = study_load(path, s, err, sizeof(err));
	if (r < 0) {
		log_error("%s", err);
		free(s);
		return r == -ENOMEM ? EXIT_FAILED : EXIT_USAGE; /* a study that is not there, or not one */
	}
	printf("study %s: %s\n  source: %s\n", s->name, s->title, s->source);
	for (size_t i = 0; i < s->nexp && ret == EXIT_OK; i++)
		ret = plan_experiment(self, path, &s->exp[i], optset_bool(own, "quick"), &lo, &hi, &boots);
	if (ret == EXIT_OK) {
		printf("\nin all: %u boots, ", boots);
		print_minutes(lo);
		printf(" to ");
		print_minutes(hi);
		printf(" (%.0f s a boot assumed: the lab's busybox guest under TCG; the suites by their stop rule, as "
		       "'vmbench list' estimates; a guest's set-up and a slow emulation add to it)\n",
		       STUDY_BOOT_S);
	}
	study_release(s);
	free(s);
	return ret;
}
