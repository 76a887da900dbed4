/* Report building blocks: SVG primitives, and the comparison rules (gap,
 * direction, significance, pairing on parameters, one-sided metrics). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "../../src/core/macro.h"
#include "../../src/report/compare.h"
#include "../../src/report/hostcost.h"
#include "../../src/report/html.h"
#include "../../src/report/svg.h"
#include "../../src/report/text.h"
#include "../../src/suites/suites.h"

static void ticks(void **state)
{
	static const struct {
		double lo, hi;
		bool log;
		int n;
		double first, last;
	} cases[] = {
		{ 0, 10, false, 6, 0, 10 },     /* step 2 */
		{ 0, 1, false, 6, 0, 1 },       /* step 0.2 */
		{ 0, 7.3e4, false, 4, 0, 6e4 }, /* step 2e4 */
		{ 10, 1e6, true, 6, 10, 1e6 },  /* decades */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct svg_axis a = { .lo = cases[i].lo, .hi = cases[i].hi, .log = cases[i].log, .p0 = 0, .p1 = 100 };
		double t[16];
		int n = svg_ticks(&a, t, 16);

		if (n != cases[i].n)
			fail_msg("case %zu: %d ticks, expected %d", i, n, cases[i].n);
		assert_close(t[0], cases[i].first, 1e-9);
		assert_close(t[n - 1], cases[i].last, 1e-9 * cases[i].last + 1e-12);
	}
}

static void axes_and_mapping(void **state)
{
	struct svg_axis a = { .lo = 3, .hi = 97, .p0 = 250, .p1 = 20 }, l = { .lo = 7, .hi = 4000, .log = true };
	char buf[16];

	(void)state;
	svg_axis_nice(&a, true);
	assert_close(a.lo, 0, 0);
	assert_close(a.hi, 100, 0);
	assert_close(svg_map(&a, 0), 250, 1e-9);
	assert_close(svg_map(&a, 100), 20, 1e-9);
	assert_close(svg_map(&a, 50), 135, 1e-9);
	svg_axis_nice(&l, false);
	assert_close(l.lo, 1, 0);
	assert_close(l.hi, 10000, 0);
	l.p0 = 0, l.p1 = 400;
	assert_close(svg_map(&l, 100), 200, 1e-9);
	svg_fmt_num(15000, buf, sizeof(buf));
	assert_string_equal(buf, "15k");
	svg_fmt_num(2e6, buf, sizeof(buf));
	assert_string_equal(buf, "2M");
	svg_fmt_num(0.25, buf, sizeof(buf));
	assert_string_equal(buf, "0.25");
}

static void document(void **state)
{
	const char *names[] = { "a<b", "c" };
	struct svg_axis x = { .lo = 0, .hi = 1, .p0 = 50, .p1 = 450 }, y = { .lo = 0, .hi = 10, .p0 = 250, .p1 = 20 };
	double xs[] = { 60, 100, 200 }, ys[] = { 200, 150, 30 };
	struct svg s;
	char *out;

	(void)state;
	svg_begin(&s, 500, 300, "t & \"q\"");
	svg_axes(&s, &x, &y, "x", "y", names, 2);
	svg_bar(&s, 60, 20, 250, 100, 0, "tip <1>");
	svg_errorbar(&s, 70, 120, 80);
	svg_line(&s, xs, ys, 3, 1, NULL);
	svg_legend(&s, 60, 280, names, 2);
	out = svg_end(&s);
	assert_non_null(out);
	assert_true(strncmp(out, "<svg class=\"chart\"", 18) == 0);
	assert_non_null(strstr(out, "<title>t &amp; &quot;q&quot;</title>"));
	assert_non_null(strstr(out, "a&lt;b"));
	assert_null(strstr(out, "a<b"));
	assert_non_null(strstr(out, "<rect class=\"bar\" x=\"60.0\" y=\"100.0\" width=\"20.0\" height=\"150.0\""));
	assert_non_null(strstr(out, "points=\"60.0,200.0 100.0,150.0 200.0,30.0\""));
	assert_non_null(strstr(out, "class=\"err\""));
	assert_true(strcmp(out + strlen(out) - 7, "</svg>\n") == 0);
	free(out);
}

/* A document with one metric of the given samples, params and direction. */
static json_t *doc_in(const char *unit, const char *params, const char *metric, const char *dir, const double *x,
		      size_t n)
{
	json_t *samples = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(samples, json_real(x[i]));
	return json_pack("{s:[{s:s, s:[{s:s, s:[{s:o, s:[{s:s, s:s, s:s, s:b, s:o}]}]}]}]}", "suites", "name", "disk",
			 "tests", "name", "randread", "cases", "params", json_loads(params, 0, NULL), "metrics", "name",
			 metric, "unit", unit, "direction", dir, "headline", 1, "samples", samples);
}

static json_t *doc_with(const char *params, const char *metric, const char *dir, const double *x, size_t n)
{
	return doc_in("1/s", params, metric, dir, x, n);
}

static struct cmp_row *row(struct cmp_table *t, const char *metric, const char *params)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (!strcmp(t->rows[i].metric, metric) && !strcmp(t->rows[i].params, params))
			return &t->rows[i];
	fail_msg("no row %s %s", metric, params);
	return NULL;
}

static void comparisons(void **state)
{
	/* every operand has two runs of each case: the run means are the samples */
	static const double base[] = { 100, 101, 99, 100 }, base2[] = { 102, 103, 101, 102 };
	static const double slower[] = { 80, 81, 79, 80 }, slower2[] = { 81, 82, 80, 81 };
	static const double same[] = { 100, 103, 97, 101 }, same2[] = { 101, 102, 100, 101 };
	static const double third[] = { 30, 31, 29 }, lat_lo[] = { 5, 5.1, 4.9 }, lat_hi[] = { 9, 9.1, 8.9 };
	static const double lat_lo2[] = { 5.1, 5.2, 5 }, lat_hi2[] = { 9.2, 9.1, 9 };
	struct cmp_table t;
	struct cmp_verdict v;
	struct cmp_filter all = { .all = true };
	json_t *a = json_array(), *b = json_array(), *c = json_array();
	struct cmp_row *r1, *r32, *lat;
	char words[32];

	(void)state;
	cmp_table_init(&t, suites_find);
	json_array_append_new(a, doc_with("{\"iodepth\": 1}", "iops", "higher", base, 4));
	json_array_append_new(a, doc_with("{\"iodepth\": 1}", "iops", "higher", base2, 4));
	json_array_append_new(b, doc_with("{\"iodepth\": 1}", "iops", "higher", slower, 4));
	json_array_append_new(b, doc_with("{\"iodepth\": 1}", "iops", "higher", slower2, 4));
	json_array_append_new(c, doc_with("{\"iodepth\": 1}", "iops", "higher", same, 4));
	json_array_append_new(c, doc_with("{\"iodepth\": 1}", "iops", "higher", same2, 4));
	/* an unlike case (other queue depth) and a metric on one side only */
	json_array_append_new(b, doc_with("{\"iodepth\": 32}", "iops", "higher", third, 3));
	json_array_append_new(a, doc_with("{\"iodepth\": 1}", "lat", "lower", lat_lo, 3));
	json_array_append_new(a, doc_with("{\"iodepth\": 1}", "lat", "lower", lat_lo2, 3));
	json_array_append_new(b, doc_with("{\"iodepth\": 1}", "lat", "lower", lat_hi, 3));
	json_array_append_new(b, doc_with("{\"iodepth\": 1}", "lat", "lower", lat_hi2, 3));
	assert_int_equal(cmp_add_operand(&t, "a", a), 0);
	assert_int_equal(cmp_add_operand(&t, "b", b), 0);
	assert_int_equal(cmp_add_operand(&t, "c", c), 0);
	t.margin_pct = 20;
	assert_int_equal(cmp_build(&t), 0);
	assert_int_equal(t.nrows, 3); /* iops@1, iops@32, lat@1: never iops@1 with iops@32 */
	r1 = row(&t, "iops", "{\"iodepth\":1}");
	r32 = row(&t, "iops", "{\"iodepth\":32}");
	lat = row(&t, "lat", "{\"iodepth\":1}");
	assert_int_equal(r1->cells[0].n, 8);
	assert_int_equal(r1->cells[0].nruns, 2); /* two runs of four repetitions */
	assert_int_equal(r1->cells[0].reps_min, 4);
	assert_close(r1->cells[0].run_means[1], 102, 1e-12);
	assert_false(r32->cells[0].present);
	assert_true(r32->cells[1].present);

	cmp_judge(&t, r1, 1, &v);
	assert_true(v.comparable);
	assert_close(v.gap_pct, (80.5 - 101) / 101 * 100, 1e-9);
	assert_int_equal(v.better, -1); /* higher is better, and it is lower */
	assert_true(v.w.p < 0.05);
	cmp_judge(&t, r1, 2, &v);
	assert_int_equal(v.better, 0); /* the CI of the difference contains 0 */
	assert_int_equal(v.rc.verdict, STATS_SAME); /* and its 90% CI lies within +-20% */
	cmp_judge(&t, lat, 1, &v);
	assert_int_equal(v.better, -1); /* lower is better, and it is higher */
	cmp_judge(&t, r32, 1, &v);
	assert_false(v.comparable);

	/* 100 -> 30 reads as "3.3x slower", when the verdict says worse ... */
	v = (struct cmp_verdict){ .comparable = true, .ratio = 0.3, .better = -1 };
	cmp_ratio_words(r32, &v, words, sizeof(words));
	assert_string_equal(words, "3.3x slower");
	/* ... and not at all beside "no significant difference" */
	v.better = 0;
	cmp_ratio_words(r32, &v, words, sizeof(words));
	assert_string_equal(words, "");

	/* regressions beyond 10%: iops@1 of b (-20%) and lat of b (+80%) */
	assert_int_equal(cmp_regressions(stderr, &t, &all, 10), 2);
	assert_int_equal(cmp_regressions(stderr, &t, &all, 90), 0);
	/* filters */
	assert_true(cmp_row_selected(r1, &(struct cmp_filter){ .metric_glob = "io*" }));
	assert_false(cmp_row_selected(lat, &(struct cmp_filter){ .metric_glob = "io*" }));
	assert_true(cmp_row_selected(lat, &(struct cmp_filter){ .metric_glob = "disk.*.lat" }));
	assert_false(cmp_row_selected(r1, &(struct cmp_filter){ .suite = "cpu", .all = true }));
	/* the tally: b is worse in iops@1 and lat, iops@32 is b's alone; c is the same
	 * in iops@1 and lacks lat (iops@32 is in neither a nor c: not counted) */
	{
		static const struct {
			size_t op, better, worse, same, untested, missing;
		} want[] = { { 1, 0, 2, 0, 0, 1 }, { 2, 0, 0, 1, 0, 1 } };

		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			struct cmp_tally n;

			cmp_tally(&t, &all, want[i].op, &n);
			assert_int_equal(n.better, want[i].better);
			assert_int_equal(n.worse, want[i].worse);
			assert_int_equal(n.same, want[i].same);
			assert_int_equal(n.untested, want[i].untested);
			assert_int_equal(n.missing, want[i].missing);
		}
	}
	cmp_table_release(&t);
}

/* One run a side: never a verdict from repetitions alone, unless this
 * machine's run-to-run noise is stored (calibrate). */
static void one_run_caveat(void **state)
{
	static const double base[] = { 100, 100.1, 99.9, 100 }, other[] = { 97, 97.1, 96.9, 97 };
	struct cmp_table t;
	struct cmp_verdict v;
	struct cmp_filter all = { .all = true };
	json_t *a = json_array(), *b = json_array(), *cal;
	char key[256];

	(void)state;
	cmp_table_init(&t, suites_find);
	json_array_append_new(a, doc_with("{}", "iops", "higher", base, 4));
	json_array_append_new(b, doc_with("{}", "iops", "higher", other, 4));
	assert_int_equal(cmp_add_operand(&t, "a", a), 0);
	assert_int_equal(cmp_add_operand(&t, "b", b), 0);
	assert_int_equal(cmp_build(&t), 0);
	cmp_judge(&t, &t.rows[0], 1, &v);
	/* repetitions alone would call -3% significant (Welch p < 1e-6) */
	assert_true(v.comparable);
	assert_false(v.w.valid);
	assert_int_equal(v.rc.verdict, STATS_UNTESTED);
	assert_int_equal(cmp_regressions(stderr, &t, &all, 1), 0); /* no gate fails on it */
	/* a calibration of this machine (no fingerprint: key of an empty one) */
	cmp_fingerprint_key(NULL, key, sizeof(key));
	cal = json_pack("{s:[{s:s, s:s, s:s, s:s, s:s, s:f, s:i}]}", "cases", "machine", key, "suite", "disk", "test",
			"randread", "params", "{}", "metric", "iops", "cv_between", 0.005, "runs", 5);
	t.calibration = cal;
	cmp_judge(&t, &t.rows[0], 1, &v);
	assert_true(v.rc.calibrated);
	assert_int_equal(v.rc.verdict, STATS_SAME); /* 3% against 0.5% noise: within the 5% margin */
	assert_int_equal(v.rc.significant, -1);     /* but significantly worse: a gate at 2% fails */
	assert_int_equal(cmp_regressions(stderr, &t, &all, 2), 1);
	t.margin_pct = 1;
	cmp_judge(&t, &t.rows[0], 1, &v);
	assert_int_equal(v.rc.verdict, STATS_WORSE);
	assert_close(v.rc.df, 4, 0);
	cal = json_pack("{s:[{s:s, s:s, s:s, s:s, s:s, s:f, s:i}]}", "cases", "machine", key, "suite", "disk", "test",
			"randread", "params", "{}", "metric", "iops", "cv_between", 0.05, "runs", 5);
	json_decref(t.calibration);
	t.calibration = cal;
	cmp_judge(&t, &t.rows[0], 1, &v);
	assert_int_equal(v.rc.verdict, STATS_INCONCLUSIVE); /* 3% against 5% noise */
	assert_true(v.rc.mdd_pct > 3);
	cmp_table_release(&t); /* the table owns its calibration */
}

/* An imported fio run says buffered=false and no iomem, vmbench's own
 * disk test iomem=malloc and no buffered: the same case, one row. */
static void import_pairs_with_native(void **state)
{
	static const double x[] = { 100, 101, 99 };
	struct cmp_table t;
	json_t *a = json_array(), *b = json_array();

	(void)state;
	cmp_table_init(&t, suites_find);
	json_array_append_new(a, doc_with("{\"iodepth\": 32, \"bs\": 4096, \"jobs\": 1, \"size\": 1048576, "
					  "\"iomem\": \"malloc\"}", "iops", "higher", x, 3));
	json_array_append_new(b, doc_with("{\"iodepth\": 32, \"bs\": 4096, \"jobs\": 1, \"size\": 1048576, "
					  "\"buffered\": false}", "iops", "higher", x, 3));
	/* buffered=true is another case */
	json_array_append_new(b, doc_with("{\"iodepth\": 32, \"bs\": 4096, \"jobs\": 1, \"size\": 1048576, "
					  "\"buffered\": true}", "iops", "higher", x, 3));
	assert_int_equal(cmp_add_operand(&t, "native", a), 0);
	assert_int_equal(cmp_add_operand(&t, "fio", b), 0);
	assert_int_equal(cmp_build(&t), 0);
	assert_int_equal(t.nrows, 2);
	assert_true(t.rows[0].cells[0].present && t.rows[0].cells[1].present);
	assert_false(t.rows[1].cells[0].present);
	cmp_table_release(&t);
}

/* Fingerprints that differ where labels do not say so are named. */
static void fingerprint_warnings(void **state)
{
	static const double x[] = { 100, 101, 99 };
	struct cmp_table t;
	json_t *a = json_array(), *b = json_array(), *d;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	(void)state;
	cmp_table_init(&t, suites_find);
	d = doc_with("{}", "iops", "higher", x, 3);
	json_object_set_new(d, "fingerprint", json_pack("{s:{s:s}, s:{s:s}}", "hypervisor", "name", "KVM", "cpu",
							"model", "EPYC"));
	json_object_set_new(d, "labels", json_pack("{s:s}", "hv", "vmware"));
	json_array_append_new(a, d);
	d = doc_with("{}", "iops", "higher", x, 3);
	json_object_set_new(d, "fingerprint", json_pack("{s:{s:s}, s:{s:s}}", "hypervisor", "name", "KVM", "cpu",
							"model", "Xeon"));
	json_object_set_new(d, "labels", json_pack("{s:s}", "hv", "vmware"));
	json_array_append_new(a, d);
	d = doc_with("{}", "iops", "higher", x, 3);
	json_object_set_new(d, "fingerprint", json_pack("{s:{s:s}, s:{s:s}}", "hypervisor", "name", "none", "cpu",
							"model", "EPYC"));
	json_array_append_new(b, d);
	/* an import: its fingerprint knows nothing, which is no difference */
	d = doc_with("{}", "iops", "higher", x, 3);
	json_object_set_new(d, "fingerprint", json_pack("{s:n, s:{s:s}}", "hostname", "hypervisor", "name", "unknown"));
	assert_int_equal(cmp_add_operand(&t, "a", a), 0);
	assert_int_equal(cmp_add_operand(&t, "b", b), 0);
	assert_int_equal(cmp_add_operand(&t, "imp", json_pack("[o]", d)), 0);
	assert_int_equal(cmp_build(&t), 0);
	mem = open_memstream(&text, &len);
	assert_non_null(mem);
	assert_true(cmp_caveats(mem, &t, &(struct cmp_filter){ .all = true }, "") >= 3);
	assert_int_equal(fclose(mem), 0);
	assert_null(strstr(text, "imp and"));
	assert_null(strstr(text, "and imp"));
	assert_null(strstr(text, "differ in")); /* imp's unknown hypervisor is no difference from KVM */

	assert_non_null(strstr(text, "warning: a pools runs of different CPU model: EPYC and Xeon"));
	assert_non_null(strstr(text, "warning: a is labelled hv=vmware but its fingerprint says KVM"));
	/* the operands differ in hypervisor, and the labels do say so (hv=vmware vs none): no warning for it */
	assert_null(strstr(text, "differ in hypervisor"));
	free(text);
	cmp_table_release(&t);
}

/* What a lab configuration's name stands for (a profile: QEMU's emulation,
 * not the hypervisor) is said beside it, in text and in HTML, escaped */
static void legends(void **state)
{
	static const double x[] = { 100, 101, 99 };
	struct cmp_table t;
	json_t *d = doc_with("{}", "iops", "higher", x, 3), *e = doc_with("{}", "iops", "higher", x, 3);
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	(void)state;
	cmp_table_init(&t, suites_find);
	json_object_set_new(d, "lab_legend", json_string("profile=vbox is QEMU's emulation <of> VirtualBox's devices, "
							 "not VirtualBox itself"));
	assert_int_equal(cmp_add_operand(&t, "profile=vbox", json_pack("[o]", d)), 0);
	assert_int_equal(cmp_add_operand(&t, "profile=none", json_pack("[o]", e)), 0);
	assert_int_equal(cmp_build(&t), 0);
	mem = open_memstream(&text, &len);
	assert_non_null(mem);
	assert_true(cmp_caveats(mem, &t, &(struct cmp_filter){ .all = true }, "") >= 1);
	assert_int_equal(fclose(mem), 0);
	assert_non_null(strstr(text, "profile=vbox: profile=vbox is QEMU's emulation <of> VirtualBox's devices, not "
				     "VirtualBox itself\n"));
	assert_null(strstr(text, "profile=none:"));
	free(text);
	text = NULL;
	mem = open_memstream(&text, &len);
	assert_non_null(mem);
	assert_int_equal(html_report(mem, &t, "lab"), 0);
	assert_int_equal(fclose(mem), 0);
	assert_non_null(strstr(text, "QEMU&#39;s emulation &lt;of&gt; VirtualBox"));
	free(text);
	cmp_table_release(&t);
}

/* A seeded generator (xorshift64*) and normal deviates (Box-Muller): the
 * simulated documents are the same on every run of the test. */
static uint64_t rng_state;

static double rng_uniform(void)
{
	return test_uniform(&rng_state);
}

static double rng_normal(void)
{
	double u = rng_uniform(), v = rng_uniform();

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* An operand of `runs` documents: each run's mean drifts by drift (fraction
 * of mean, one normal deviate per run, the epoch of noise), its
 * repetitions by rep_noise around that. */
static json_t *simulated(double mean, size_t runs, size_t reps, double drift, double rep_noise)
{
	json_t *docs = json_array();

	for (size_t r = 0; r < runs; r++) {
		double x[16], m = mean * (1 + drift * rng_normal());

		for (size_t k = 0; k < reps; k++)
			x[k] = m * (1 + rep_noise * rng_normal());
		json_array_append_new(docs, doc_with("{}", "iops", "higher", x, reps));
	}
	return docs;
}

/* The verdict of b against a over `pairs` simulated pairs: how many were
 * called significant at the run level, and how many Welch on pooled
 * repetitions (the old model) would have called significant. */
static void simulate(double gap, size_t runs, size_t pairs, size_t *significant, size_t *rep_level, size_t *worse)
{
	*significant = *rep_level = *worse = 0;
	for (size_t i = 0; i < pairs; i++) {
		struct cmp_table t;
		struct cmp_verdict v;
		struct stats_welch w;

		cmp_table_init(&t, suites_find);
		assert_int_equal(cmp_add_operand(&t, "a", simulated(1000, runs, 5, 0.03, 0.005)), 0);
		assert_int_equal(cmp_add_operand(&t, "b", simulated(1000 * (1 + gap), runs, 5, 0.03, 0.005)), 0);
		assert_int_equal(cmp_build(&t), 0);
		cmp_judge(&t, &t.rows[0], 1, &v);
		*significant += v.rc.significant != 0;
		*worse += v.rc.verdict == STATS_WORSE;
		stats_welch(&t.rows[0].cells[0].sum, &t.rows[0].cells[1].sum, &w);
		*rep_level += w.ci_low > 0 || w.ci_high < 0;
		cmp_table_release(&t);
	}
}

/* A/A with drifting run means: no more than 5% called significant (the old
 * repetition-level test calls most of them significant); a true 10%
 * difference is found at least 90% of the time with 5 runs a side. */
static void aa_and_ab(void **state)
{
	size_t sig, rep, worse;

	(void)state;
	rng_state = 0x5eed2026u;
	simulate(0, 3, 1000, &sig, &rep, &worse);
	print_message("A/A 3 runs a side: %zu of 1000 significant (repetition level: %zu)\n", sig, rep);
	assert_true(sig <= 50);
	assert_true(rep > 300); /* what the one-level model got wrong */
	simulate(0, 5, 1000, &sig, &rep, &worse);
	print_message("A/A 5 runs a side: %zu of 1000 significant\n", sig);
	assert_true(sig <= 50);
	simulate(-0.10, 5, 1000, &sig, &rep, &worse);
	print_message("A/B -10%%, 5 runs a side: %zu of 1000 found worse\n", worse);
	assert_true(worse >= 900);
}

/* The report of a table, as a string the caller frees. */
static char *report_of(const struct cmp_table *t)
{
	char *html = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&html, &len);

	assert_non_null(mem);
	assert_int_equal(html_report(mem, t, "r"), 0);
	assert_int_equal(fclose(mem), 0);
	return html;
}

/* The part of html from the chart titled title to the end of its svg. */
static char *chart_of(const char *html, const char *title)
{
	const char *a = strstr(html, title), *b;

	if (!a)
		fail_msg("no chart %s", title);
	b = strstr(a, "</svg>");
	assert_non_null(b);
	return strndup(a, (size_t)(b - a));
}

/* Parameters for a reader: sizes as the options take them, as run's
 * summary prints them; CSV's exact numbers beside. */
static void params_words(void **state)
{
	json_t *p = json_pack("{s:i, s:I, s:i, s:s}", "threads", 2, "size", (json_int_t)268435456, "bs", 4096, "mode",
			      "a b");
	char buf[128];

	(void)state;
	text_params(p, buf, sizeof(buf));
	assert_string_equal(buf, "threads=2 size=256M bs=4k mode=\"a b\"");
	text_params_exact(p, buf, sizeof(buf));
	assert_string_equal(buf, "threads=2 size=268435456 bs=4096 mode=\"a b\"");
	json_decref(p);
	/* never rounded: 1048577 bytes is no "1M", 1536 no "1.5k" (no option takes that) */
	p = json_pack("{s:I, s:i, s:i}", "size", (json_int_t)1048577, "bs", 1536, "seq-bs", 1 << 20);
	text_params(p, buf, sizeof(buf));
	assert_string_equal(buf, "size=1048577 bs=1536 seq-bs=1M");
	json_decref(p);
}

/* The lead sentence: each operand not aside against the baseline (aside
 * or not: the page's one baseline), the ratio of the run means, the
 * verdict; nothing when there is no pair to state. */
static void lead_sentence(void **state)
{
	static const struct {
		const char *names[3];
		double means[3]; /* per operand; 0 ends the list */
		unsigned aside;  /* bit o: operand o is aside */
		size_t baseline;
		const char *want; /* prefix of the sentence, "" for none */
	} cases[] = {
		{ { "ide", "virtio-blk" }, { 100, 140 }, 0, 0, "virtio-blk vs ide: 1.40x better disk.randread iops (p=" },
		{ { "ide", "virtio-blk" }, { 100, 140 }, 0, 1, "ide vs virtio-blk: 1.40x worse disk.randread iops (p=" },
		/* the host as baseline, aside in the charts, is the sentence's reference as the tables' (one
		 * baseline a page), the largest gap first; aside and not the baseline, it is not named */
		{ { "host", "ide", "virtio-blk" }, { 1600, 100, 140 }, 1, 0, "ide vs host: 16.0x worse disk.randread iops (" },
		{ { "ide", "<b>", "host" }, { 100, 1250, 1600 }, 4, 0, "<b> vs ide: 12.5x better disk.randread iops (p=" },
		{ { "host", "ide" }, { 1600, 100 }, 1, 0, "ide vs host: 16.0x worse disk.randread iops (" },
		{ { "ide", "virtio-blk" }, { 0, 140 }, 0, 0, "" },  /* a zero reference: no ratio */
		/* no difference to back a ratio: none is stated */
		{ { "ide", "virtio-blk" }, { 100, 100.2 }, 0, 0,
		  "virtio-blk vs ide: the same within ±5% on disk.randread iops (p=" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cmp_table t;
		char buf[512];
		bool said;

		cmp_table_init(&t, suites_find);
		for (size_t o = 0; o < 3 && cases[i].names[o]; o++) {
			double m = cases[i].means[o], r1[] = { m, m * 1.001, m * 0.999 }, r2[] = { m * 1.01, m * 1.011, m * 1.009 };
			json_t *docs = json_array();

			json_array_append_new(docs, doc_with("{}", "iops", "higher", r1, 3));
			json_array_append_new(docs, doc_with("{}", "iops", "higher", r2, 3));
			assert_int_equal(cmp_add_operand(&t, cases[i].names[o], docs), 0);
			t.ops[o].aside = cases[i].aside & (1u << o);
		}
		t.baseline = cases[i].baseline;
		assert_int_equal(cmp_build(&t), 0);
		said = cmp_lead_sentence(&t, buf, sizeof(buf));
		if (strncmp(buf, cases[i].want, strlen(cases[i].want)) || said != (*cases[i].want != '\0'))
			fail_msg("case %zu: '%s', expected '%s...'", i, buf, cases[i].want);
		if (said && (buf[strlen(buf) - 1] != '.' ||
			     (strstr(buf, "host") && strcmp(cases[i].names[cases[i].baseline], "host"))))
			fail_msg("case %zu: '%s'", i, buf);
		if (said && !strcmp(cases[i].names[1], "<b>")) {
			char *html = report_of(&t);

			assert_non_null(strstr(html, "<p class=\"lead\">&lt;b&gt; vs ide: 12.5x better"));
			free(html);
		}
		cmp_table_release(&t);
	}
}

/* The lead sentence leads with the finding: the significant differences
 * first, the largest factor first (whichever way), then what the other
 * rows say; and says so when nothing differs. Three runs per case, their
 * means given (each run's repetitions spread 0.1% around it). */
static void lead_ranks_findings(void **state)
{
	enum { NOPS = 3, NROWS = 3, NRUNS = 3 };
	static const int depth[NROWS] = { 1, 8, 32 }; /* the table's order */
	static const struct {
		const char *names[NOPS];
		double means[NOPS][NROWS][NRUNS]; /* operand, row (iodepth 1, 8, 32), run; an empty operand ends */
		const char *want[4];              /* in the sentence, in this order */
		const char *first;                /* the ranking's first row: its iodepth, "" for none significant */
	} cases[] = {
		/* the QD32 finding first, QD1's "no difference" after it */
		{ { "ide", "virtio-blk" },
		  { { { 100, 120, 80 }, { 1000, 1010, 990 }, { 1000, 1010, 990 } },
		    { { 105, 85, 118 }, { 1300, 1310, 1290 }, { 2200, 2220, 2180 } } },
		  { "virtio-blk vs ide: 2.20x better disk.randread iops at iodepth=32 (p=", ", 1.30x better at iodepth=8 (p=",
		    "; no significant difference at iodepth=1 (p=", "mdd " },
		  "32" },
		/* 2.5x worse weighs more than 2.2x better */
		{ { "ide", "sata" },
		  { { { 100, 120, 80 }, { 1000, 1010, 990 }, { 1000, 1010, 990 } },
		    { { 105, 85, 118 }, { 400, 404, 396 }, { 2200, 2220, 2180 } } },
		  { "sata vs ide: 2.50x worse disk.randread iops at iodepth=8 (p=", ", 2.20x better at iodepth=32 (p=",
		    "; no significant difference at iodepth=1 (p=" },
		  "8" },
		/* nothing differs: said once, of every metric */
		{ { "ide", "sata" },
		  { { { 100, 120, 80 }, { 1000, 1200, 800 }, { 1000, 1200, 800 } },
		    { { 105, 85, 118 }, { 1050, 850, 1180 }, { 1050, 850, 1180 } } },
		  { "sata vs ide: no significant difference on any of 3 headline metrics of disk.randread." },
		  "" },
		/* a pair whose finding is stronger goes first, whatever its place */
		{ { "ide", "sata", "nvme" },
		  { { { 100, 120, 80 }, { 1000, 1200, 800 }, { 1000, 1010, 990 } },
		    { { 105, 85, 118 }, { 1050, 850, 1180 }, { 1050, 850, 1180 } },
		    { { 105, 85, 118 }, { 1050, 850, 1180 }, { 3000, 3030, 2970 } } },
		  { "nvme vs ide: 3.00x better disk.randread iops at iodepth=32 (p=",
		    "; no significant difference at iodepth=1 and at iodepth=8.\n",
		    "sata vs ide: no significant difference on any of 3 headline metrics of disk.randread." },
		  "32" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cmp_table t;
		struct cmp_lead_item *items;
		size_t n;
		char buf[1024];
		const char *at;

		cmp_table_init(&t, suites_find);
		for (size_t o = 0; o < NOPS && cases[i].names[o]; o++) {
			json_t *docs = json_array();

			for (size_t r = 0; r < NROWS; r++)
				for (size_t k = 0; k < NRUNS; k++) {
					double m = cases[i].means[o][r][k], x[] = { m, m * 1.001, m * 0.999 };
					char params[32];

					snprintf(params, sizeof(params), "{\"iodepth\": %d}", depth[r]);
					json_array_append_new(docs, doc_with(params, "iops", "higher", x, 3));
				}
			assert_int_equal(cmp_add_operand(&t, cases[i].names[o], docs), 0);
		}
		t.pair_by = CMP_PAIR_NONE;
		assert_int_equal(cmp_build(&t), 0);
		assert_int_equal(cmp_lead_rank(&t, &items, &n), 0);
		assert_true(n > 0);
		if (*cases[i].first) {
			char p[64];

			assert_int_equal(items[0].v.better != 0, 1);
			cmp_row_params(items[0].r, p, sizeof(p));
			assert_string_equal(p + strlen("iodepth="), cases[i].first);
		} else
			assert_int_equal(items[0].v.better, 0);
		/* a significant verdict never ranks after one that is not */
		for (size_t k = 1; k < n; k++)
			assert_false(items[k].v.better && !items[k - 1].v.better);
		free(items);
		assert_true(cmp_lead_sentence(&t, buf, sizeof(buf)));
		at = buf;
		for (size_t w = 0; w < 4 && cases[i].want[w]; w++) {
			const char *hit = strstr(at, cases[i].want[w]);

			if (!hit || (w == 0 && hit != buf))
				fail_msg("case %zu: '%s' lacks '%s' (in order)", i, buf, cases[i].want[w]);
			at = hit + strlen(cases[i].want[w]);
		}
		cmp_table_release(&t);
	}
}

static void escaper(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "" },
		{ "plain text", "plain text" },
		{ "a<b>c", "a&lt;b&gt;c" },
		{ "\"'&", "&quot;&#39;&amp;" },
		{ "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;" },
		{ "&amp;", "&amp;amp;" },
		{ "gr\xc3\xbc\xc3\x9f" "e", "gr\xc3\xbc\xc3\x9f" "e" }, /* UTF-8 passes through */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&out, &len);

		assert_non_null(mem);
		html_escape(mem, cases[i].in);
		assert_int_equal(fclose(mem), 0);
		assert_string_equal(out, cases[i].out);
		free(out);
	}
	{
		struct svg s;
		char *out;

		svg_begin(&s, 10, 10, "'\"<&>");
		out = svg_end(&s);
		assert_non_null(strstr(out, "<title>&#39;&quot;&lt;&amp;&gt;</title>"));
		free(out);
	}
}

/* A chart's legend names only the operands with data in that chart, each in
 * the colour it has everywhere else. */
static void legend_of_drawn_operands(void **state)
{
	static const double x[] = { 10, 11, 9 };
	struct cmp_table t;
	json_t *a = json_array(), *b = json_array(), *c = json_array();
	char *html, *lat, *iops;

	(void)state;
	cmp_table_init(&t, suites_find);
	json_array_append_new(a, doc_with("{}", "iops", "higher", x, 3));
	json_array_append_new(a, doc_with("{}", "lat", "lower", x, 3));
	json_array_append_new(b, doc_with("{}", "iops", "higher", x, 3));
	json_array_append_new(c, doc_with("{}", "lat", "lower", x, 3));
	assert_int_equal(cmp_add_operand(&t, "opa", a), 0);
	assert_int_equal(cmp_add_operand(&t, "opb", b), 0);
	assert_int_equal(cmp_add_operand(&t, "opc", c), 0);
	assert_int_equal(cmp_build(&t), 0);
	html = report_of(&t);
	lat = chart_of(html, "<title>disk.randread lat</title>");
	iops = chart_of(html, "<title>disk.randread iops</title>");
	assert_non_null(strstr(lat, ">opa</text>"));
	assert_null(strstr(lat, ">opb</text>"));
	assert_non_null(strstr(lat, ">opc</text>"));
	assert_non_null(strstr(iops, ">opb</text>"));
	assert_null(strstr(iops, ">opc</text>"));
	/* opc keeps its own colour (the third) in a legend of two */
	{
		char want[64];

		snprintf(want, sizeof(want), "fill=\"%s\"/><text x=\"98.0\" y=\"318.0\"", svg_palette[2]);
		assert_non_null(strstr(lat, want));
	}
	/* rows some operand lacks are in their own collapsed section, not the summary */
	{
		const char *sum = strstr(html, "<table class=\"cmp\" id=\"summary\">"), *end = strstr(sum, "</table>");
		const char *one = strstr(html, "<details class=\"onesided\"><summary>2 metrics measured in only some");

		assert_non_null(one);
		assert_true(end < one);
		assert_non_null(strstr(one, "</details>"));
	}
	/* the tally says it in words */
	assert_non_null(strstr(html, "<b>opb</b> against <b>opa</b>: <span class=\"better\">0 better</span>"));
	assert_non_null(strstr(html, "<span class=\"same\">0 the same</span> (within &plusmn;5%), 0 with no significant "
				     "difference, 1 not tested (one run a side: run-to-run noise unknown), 1 measured on "
				     "one side only; of 2 headline metrics."));
	assert_non_null(strstr(html, "<p class=\"caveat\">(*) "));
	free(lat);
	free(iops);
	free(html);
	cmp_table_release(&t);
}

/* Three samples far apart: the 95% CI reaches far below zero. A bar chart
 * of a rate or a size draws its error bar down to the axis at zero, not
 * below it (the table keeps the interval); a metric without a unit may be
 * negative and keeps its axis below zero. */
static void error_bars_stop_at_zero(void **state)
{
	static const double x[] = { 1, 100, 2 };
	static const struct {
		const char *unit;
		bool clipped;
	} cases[] = {
		{ "1/s", true }, { "MB/s", true }, { "B", true }, { "", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cmp_table t;
		json_t *a = json_array();
		char *html, *chart;
		const char *err;
		double ylo, yhi;

		cmp_table_init(&t, suites_find);
		json_array_append_new(a, doc_in(cases[i].unit, "{}", "iops", "higher", x, 3));
		assert_int_equal(cmp_add_operand(&t, "opa", a), 0);
		assert_int_equal(cmp_build(&t), 0);
		assert_true(t.rows[0].cells[0].sum.ci95_low < 0); /* the numbers stay */
		html = report_of(&t);
		chart = chart_of(html, "<title>disk.randread iops</title>");
		err = strstr(chart, "class=\"err\" d=\"M");
		assert_non_null(err);
		assert_int_equal(sscanf(err, "class=\"err\" d=\"M%*f %lf V%lf", &ylo, &yhi), 2);
		/* the axis is y 20 (top) to 250 (bottom); a tick below zero reads "-" */
		if (cases[i].clipped) {
			if (ylo != 250.0 || strstr(chart, "font-size=\"11\">-"))
				fail_msg("unit '%s': error bar from y %.1f, or an axis below zero", cases[i].unit, ylo);
		} else {
			assert_true(ylo < 250.0);
			assert_non_null(strstr(chart, "font-size=\"11\">-"));
		}
		assert_true(yhi < ylo);
		free(chart);
		free(html);
		cmp_table_release(&t);
	}
}

/* lab contend's run delay against the load: a line per policy and guest
 * through its loads, from the operands' names; none without two loads. */
static void run_delay_against_load(void **state)
{
	static const char *const names[] = { "policy=fair load=50 guest=1", "policy=fair load=80 guest=1",
					     "policy=rt load=50 guest=1", "policy=rt load=80 guest=1",
					     "policy=<b> load=95 guest=1", "no load here" };
	static const double delay[] = { 30, 60, 2, 4, 70, 5 };
	struct cmp_table t;
	char *html = NULL;
	size_t len = 0;
	FILE *mem;
	const char *sec;

	(void)state;
	cmp_table_init(&t, suites_find);
	for (size_t o = 0; o < 6; o++) {
		json_t *docs = json_array();

		json_array_append_new(docs, json_pack("{s:[{s:s, s:[{s:s, s:[{s:{s:s}, s:[{s:s, s:s, s:s, s:b, s:[f, f]}]}]}]}]}",
						      "suites", "name", "contend", "tests", "name", "share", "cases",
						      "params", "item", "cpu.prime", "metrics", "name", "run_delay", "unit", "%",
						      "direction", "lower", "headline", 1, "samples", delay[o], delay[o] * 1.02));
		assert_int_equal(cmp_add_operand(&t, names[o], docs), 0);
	}
	assert_int_equal(cmp_build(&t), 0);
	mem = open_memstream(&html, &len);
	assert_int_equal(html_report(mem, &t, "contend"), 0);
	fclose(mem);
	sec = strstr(html, "<h2>Run delay against load</h2>");
	assert_non_null(sec);
	assert_non_null(strstr(sec, "</div>"));
	*strstr(sec, "</div>") = '\0'; /* the section alone */
	assert_non_null(strstr(sec, "contend.share run_delay against the load"));
	/* three groups (fair, rt, and the escaped one), each a polyline; the operand without a load in none */
	{
		size_t lines = 0;

		for (const char *p = sec; (p = strstr(p, "<polyline")); p++)
			lines++;
		assert_int_equal(lines, 3);
	}
	assert_non_null(strstr(sec, "policy=fair guest=1"));
	assert_non_null(strstr(sec, "policy=rt guest=1"));
	assert_non_null(strstr(sec, "policy=&lt;b&gt; guest=1"));
	assert_null(strstr(sec, "policy=<b>"));
	assert_null(strstr(sec, "no load here"));
	free(html);
	cmp_table_release(&t);

	/* one load only: no chart */
	cmp_table_init(&t, suites_find);
	for (size_t o = 0; o < 2; o++) {
		json_t *docs = json_array();

		json_array_append_new(docs, json_pack("{s:[{s:s, s:[{s:s, s:[{s:{}, s:[{s:s, s:s, s:s, s:b, s:[f, f]}]}]}]}]}",
						      "suites", "name", "contend", "tests", "name", "share", "cases",
						      "params", "metrics", "name", "run_delay", "unit", "%", "direction",
						      "lower", "headline", 1, "samples", 1.0 + o, 1.1 + o));
		assert_int_equal(cmp_add_operand(&t, o ? "policy=rt load=80 guest=1" : "policy=fair load=80 guest=1", docs),
				 0);
	}
	assert_int_equal(cmp_build(&t), 0);
	html = NULL;
	mem = open_memstream(&html, &len);
	assert_int_equal(html_report(mem, &t, "contend"), 0);
	fclose(mem);
	assert_null(strstr(html, "Run delay against load"));
	free(html);
	cmp_table_release(&t);
}

/* What the report draws against the load comes from the suite's descriptor
 * (load_metric), never from its name: a suite of another name that declares
 * it is drawn, one named contend that does not is not. */
static int toy_load_run(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	(void)ctx;
	(void)test;
	(void)rep;
	return 0;
}

static const struct vmb_test toy_load_tests[] = {
	{ .name = "share", .summary = "toy", .headline = "cpu_share,run_delay", .run = toy_load_run },
	{ .name = NULL },
};
static const struct vmb_suite toy_load_suite = {
	.name = "toyload", .summary = "toy", .abi = VMB_SUITE_ABI, .tests = toy_load_tests, .load_metric = "run_delay",
};
static const struct vmb_suite toy_named_contend = {
	.name = "contend", .summary = "toy", .abi = VMB_SUITE_ABI, .tests = toy_load_tests,
};

static const struct vmb_suite *toy_suite_of(const char *name)
{
	return !strcmp(name, toy_load_suite.name) ? &toy_load_suite
	     : !strcmp(name, toy_named_contend.name) ? &toy_named_contend : NULL;
}

static void load_chart_from_descriptor(void **state)
{
	static const struct {
		const char *suite;
		bool drawn;
	} cases[] = {
		{ "toyload", true },
		{ "contend", false },
		{ "nosuch", false },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cmp_table t;
		char *html = NULL;
		size_t len = 0;
		FILE *mem;

		cmp_table_init(&t, toy_suite_of);
		for (size_t o = 0; o < 2; o++) {
			json_t *docs = json_array();

			json_array_append_new(docs, json_pack("{s:[{s:s, s:[{s:s, s:[{s:{}, s:[{s:s, s:s, s:s, s:b, s:[f, f]}]}]}]}]}",
							      "suites", "name", cases[i].suite, "tests", "name", "share",
							      "cases", "params", "metrics", "name", "run_delay", "unit", "%",
							      "direction", "lower", "headline", 1, "samples", 10.0 + o, 11.0 + o));
			assert_int_equal(cmp_add_operand(&t, o ? "policy=fair load=80 guest=1" : "policy=fair load=50 guest=1",
							 docs), 0);
		}
		assert_int_equal(cmp_build(&t), 0);
		mem = open_memstream(&html, &len);
		assert_int_equal(html_report(mem, &t, "load"), 0);
		fclose(mem);
		if ((strstr(html, "<h2>Run delay against load</h2>") != NULL) != cases[i].drawn)
			fail_msg("suite %s: the chart against the load is %s", cases[i].suite,
				 cases[i].drawn ? "missing" : "drawn");
		free(html);
		cmp_table_release(&t);
	}
	/* the descriptor's metric is checked at start-up: one a test reports as headline */
	{
		struct vmb_suite bad = toy_load_suite;
		const char *why;

		assert_int_equal(vmb_suite_check(&bad, &why), 0);
		bad.load_metric = "run";
		assert_int_equal(vmb_suite_check(&bad, &why), -EINVAL);
		bad.load_metric = "nosuch";
		assert_int_equal(vmb_suite_check(&bad, &why), -EINVAL);
		assert_non_null(strstr(why, "load_metric"));
	}
}

static void boot_phases(void **state)
{
	static const char *const phases[] = { "phase_qemu", "phase_kernel", "phase_init" };
	static const double ms[2][3] = { { 50e6, 900e6, 300e6 }, { 60e6, 2500e6, 700e6 } };
	struct cmp_table t;
	char *html = NULL;
	size_t len = 0;
	FILE *mem;

	(void)state;
	cmp_table_init(&t, suites_find);
	for (int o = 0; o < 2; o++) {
		json_t *metrics = json_array(), *docs = json_array();

		for (int p = 0; p < 3; p++) {
			double x[] = { ms[o][p], ms[o][p] * 1.01 };

			json_array_append_new(metrics, json_pack("{s:s, s:s, s:s, s:b, s:[f, f]}", "name", phases[p], "unit", "ns",
								 "direction", "lower", "headline", 0, "samples", x[0], x[1]));
		}
		json_array_append_new(docs, json_pack("{s:[{s:s, s:[{s:s, s:[{s:{}, s:o}]}]}]}", "suites", "name", "boot",
						      "tests", "name", "cold", "cases", "params", "metrics", metrics));
		assert_int_equal(cmp_add_operand(&t, o ? "tcg" : "kvm", docs), 0);
	}
	assert_int_equal(cmp_build(&t), 0);
	mem = open_memstream(&html, &len);
	assert_int_equal(html_report(mem, &t, "boot"), 0);
	fclose(mem);
	/* one stacked chart: 2 operands x 3 phases */
	assert_non_null(strstr(html, "<title>boot.cold phases</title>"));
	{
		size_t segs = 0;

		for (const char *p = html; (p = strstr(p, "<g class=\"stack\">")); p++)
			segs++;
		assert_int_equal(segs, 6);
	}
	assert_non_null(strstr(html, ">kernel</text>"));
	/* nanoseconds up to 3.3 s are labelled in seconds: 0 .. 4 s, not 0 .. 4G ns */
	{
		const char *ph = strstr(html, "<title>boot.cold phases</title>");

		assert_non_null(strstr(ph, ">time (s)</text>"));
		assert_non_null(strstr(ph, ">4</text>"));
		assert_null(strstr(html, "G</text>"));
	}
	/* short operand names stand under their bars */
	assert_non_null(strstr(html, ">kvm</text>"));
	assert_null(strstr(html, "1 = kvm"));
	free(html);
	cmp_table_release(&t);
}

/* Names longer than a bar is wide: numbers under the bars, the names in the caption. */
static void boot_phases_long_names(void **state)
{
	struct cmp_table t;
	char *html = NULL, name[64];
	size_t len = 0;
	FILE *mem;

	(void)state;
	cmp_table_init(&t, suites_find);
	/* a host baseline without boot phases gets no bar */
	assert_int_equal(cmp_add_operand(&t, "host", json_pack("[{s:[{s:s, s:[{s:s, s:[{s:{}, s:[]}]}]}]}]", "suites",
							     "name", "cpu", "tests", "name", "prime", "cases", "params",
							     "metrics")), 0);
	for (int o = 0; o < 6; o++) {
		json_t *docs = json_pack("[{s:[{s:s, s:[{s:s, s:[{s:{}, s:[{s:s, s:s, s:s, s:b, s:[f, f]}]}]}]}]}]",
					 "suites", "name", "boot", "tests", "name", "cold", "cases", "params", "metrics",
					 "name", "phase_kernel", "unit", "ns", "direction", "lower", "headline", 0, "samples",
					 2e9 + o * 1e8, 2.1e9 + o * 1e8);

		snprintf(name, sizeof(name), "accel=tcg arch=aarch64 disk=virtio-blk smp=%d", o + 1);
		assert_int_equal(cmp_add_operand(&t, name, docs), 0);
	}
	assert_int_equal(cmp_build(&t), 0);
	mem = open_memstream(&html, &len);
	assert_int_equal(html_report(mem, &t, "boot"), 0);
	fclose(mem);
	assert_non_null(strstr(html, ">6</text>"));
	assert_null(strstr(html, "= host"));
	assert_non_null(strstr(html, "(1 = accel=tcg arch=aarch64 disk=virtio-blk smp=1; 2 = "));
	assert_non_null(strstr(html, "6 = accel=tcg arch=aarch64 disk=virtio-blk smp=6)</figcaption>"));
	free(html);
	cmp_table_release(&t);
}

/* Secondary metrics whose CI is wider than their value are left out of the
 * default view (and counted), shown with all; headline metrics always. */
static void text_hides_noisy_secondaries(void **state)
{
	static const struct {
		const char *name;
		bool headline;
		double mean, hi;
		bool shown;
	} m[] = {
		{ "events_per_s", true, 100, 420, true },     /* a headline, however noisy */
		{ "cpu_user_pct", false, 2.2, 9.2, false },   /* ±318% */
		{ "ctx_switches", false, 50, 60, true },      /* ±20% */
		{ "steal_pct", false, -1, 1.5, false },       /* ±250% of a negative value */
		{ "exactly_wide", false, 10, 20, true },      /* ±100%: as wide as the value, not wider */
	};
	json_t *metrics = json_array(), *doc;
	char *out;
	size_t len;
	FILE *mem;

	(void)state;
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		json_array_append_new(metrics, json_pack("{s:s, s:s, s:s, s:b, s:{s:i, s:f, s:f}}", "name", m[i].name, "unit",
							 "1/s", "direction", "higher", "headline", m[i].headline, "summary",
							 "n", 3, "mean", m[i].mean, "ci95_high", m[i].hi));
	doc = json_pack("{s:{s:s}, s:s, s:{}, s:[{s:s, s:s, s:{}, s:[{s:s, s:s, s:[{s:{}, s:i, s:b, s:o}]}]}]}", "tool",
			"version", "1", "started", "now", "fingerprint", "suites", "name", "cpu", "status", "ok", "notes",
			"tests", "name", "prime", "status", "ok", "cases", "params", "repetitions", 3, "precision_reached", 1,
			"metrics", metrics);
	assert_non_null(doc);
	for (int all = 0; all < 2; all++) {
		out = NULL;
		mem = open_memstream(&out, &len);
		text_print_result_all(mem, doc, all);
		assert_int_equal(fclose(mem), 0);
		for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
			char want[64];

			snprintf(want, sizeof(want), "  %s ", m[i].name);
			if ((strstr(out, want) != NULL) != (all || m[i].shown))
				fail_msg("all=%d: %s %s", all, m[i].name, all || m[i].shown ? "missing" : "shown");
		}
		if (all)
			assert_null(strstr(out, "not shown"));
		else
			assert_non_null(strstr(out, "(2 secondary metrics with a 95% CI wider than the value not shown; show --all"));
		free(out);
	}
	json_decref(doc);
}

/* Operands from the 32nd on had one shared number under their bars. */
static void boot_phases_40_operands(void **state)
{
	struct cmp_table t;
	char *html, *chart, name[80], want[32];

	(void)state;
	cmp_table_init(&t, suites_find);
	for (int o = 0; o < 40; o++) {
		json_t *docs = json_pack("[{s:[{s:s, s:[{s:s, s:[{s:{}, s:[{s:s, s:s, s:s, s:b, s:[f, f]}]}]}]}]}]",
					 "suites", "name", "boot", "tests", "name", "cold", "cases", "params", "metrics",
					 "name", "phase_kernel", "unit", "ns", "direction", "lower", "headline", 0, "samples",
					 2e9 + o * 1e7, 2.1e9 + o * 1e7);

		snprintf(name, sizeof(name), "configuration-%d", o + 1);
		assert_int_equal(cmp_add_operand(&t, name, docs), 0);
	}
	assert_int_equal(cmp_build(&t), 0);
	html = report_of(&t);
	chart = chart_of(html, "<title>boot.cold phases</title>");
	for (int o = 1; o <= 40; o++) {
		snprintf(want, sizeof(want), "middle\" font-size=\"11\">%d</text>", o);
		if (!strstr(chart, want))
			fail_msg("operand %d is not numbered %d", o, o);
	}
	assert_non_null(strstr(html, "; 32 = configuration-32; 33 = configuration-33; "));
	assert_non_null(strstr(html, "; 40 = configuration-40)</figcaption>"));
	free(chart);
	free(html);
	cmp_table_release(&t);
}

/* Phases come from what the document declares (a suite's notes.phases, in
 * order), whatever the suite's name or the order of its metrics. */
static void declared_phases(void **state)
{
	struct cmp_table t;
	char *html = NULL;
	size_t len = 0;
	FILE *mem;
	const char *chart, *setup, *run;

	(void)state;
	cmp_table_init(&t, suites_find);
	for (int o = 0; o < 2; o++) {
		json_t *docs = json_pack("[{s:[{s:s, s:{s:s}, s:[{s:s, s:[{s:{}, s:[{s:s, s:s, s:s, s:b, s:[f, f]}, "
					 "{s:s, s:s, s:s, s:b, s:[f, f]}, {s:s, s:s, s:s, s:b, s:[f, f]}]}]}]}]}]",
					 "suites", "name", "startup", "notes", "phases", "setup,run", "tests", "name", "go",
					 "cases", "params", "metrics",
					 "name", "run", "unit", "ns", "direction", "lower", "headline", 0, "samples", 2e9, 2.1e9,
					 "name", "total", "unit", "ns", "direction", "lower", "headline", 1, "samples", 3e9, 3.1e9,
					 "name", "setup", "unit", "ns", "direction", "lower", "headline", 0, "samples", 1e9 + o,
					 1.1e9);

		assert_int_equal(cmp_add_operand(&t, o ? "b" : "a", docs), 0);
	}
	assert_int_equal(cmp_build(&t), 0);
	mem = open_memstream(&html, &len);
	assert_int_equal(html_report(mem, &t, "declared"), 0);
	fclose(mem);
	chart = strstr(html, "<title>startup.go phases</title>");
	assert_non_null(chart);
	{
		size_t segs = 0;

		for (const char *p = html; (p = strstr(p, "<g class=\"stack\">")); p++)
			segs++;
		assert_int_equal(segs, 4); /* 2 operands x 2 declared phases; total is not one */
	}
	/* the legend in the declared order, not the rows' */
	setup = strstr(chart, ">setup</text>");
	run = strstr(chart, ">run</text>");
	assert_non_null(setup);
	assert_non_null(run);
	assert_true(setup < run);
	free(html);
	cmp_table_release(&t);
}

/* The table's numbers: scaled times, plain digits from 10000 on (never
 * 1.632e+04 beside 100478). */
static void text_values(void **state)
{
	static const struct {
		double v;
		const char *unit, *s;
	} cases[] = {
		{ 16320, "1/s", "16320 1/s" }, { 100478, "1/s", "100478 1/s" }, { 9999.5, "1/s", "1e+04 1/s" },
		{ 1234.5, "1/s", "1234 1/s" }, { 0.5, "ratio", "0.500" }, { 1234567, "ns", "1.23 ms" },
		{ 999, "ns", "999 ns" }, { NAN, "1/s", "-" }, { -25000, "B/s", "-25000 B/s" },
		/* digits while a double has them; beyond, never a row of digits cut to the buffer */
		{ 123456789012345, "1/s", "123456789012345 1/s" }, { 1.5e20, "Mbit/s", "1.5e+20 Mbit/s" },
		{ 1e308, "1/s", "1e+308 1/s" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[32]; /* as show --series gives it */

		text_format_value(cases[i].v, cases[i].unit, buf, sizeof(buf));
		if (strcmp(buf, cases[i].s))
			fail_msg("text_format_value(%g, %s) = \"%s\", expected \"%s\"", cases[i].v, cases[i].unit, buf,
				 cases[i].s);
	}
}

/* One unit per metric in every view: a rate named after what it counts,
 * the document's unit otherwise. */
static void text_unit_labels(void **state)
{
	static const struct {
		const char *metric, *unit, *label;
	} cases[] = {
		{ "iops", "1/s", "IOPS" }, { "events_per_s", "1/s", "events/s" },
		{ "requests_per_s", "1/s", "requests/s" }, { "_per_s", "1/s", "1/s" }, { "m", "1/s", "1/s" },
		{ "iops", "ns", "ns" }, { "latency", "ns", "ns" }, { NULL, "1/s", "1/s" }, { "iops", NULL, "" },
	};
	char buf[40];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		text_unit_label(cases[i].metric, cases[i].unit, buf, sizeof(buf));
		if (strcmp(buf, cases[i].label))
			fail_msg("text_unit_label(%s, %s) = \"%s\", expected \"%s\"", cases[i].metric ?: "NULL",
				 cases[i].unit ?: "NULL", buf, cases[i].label);
	}
	text_format_metric(17907, "iops", "1/s", buf, sizeof(buf));
	assert_string_equal(buf, "17907 IOPS");
}

/* An interrupted run (Ctrl-C) lists what it finished: the tests of an
 * interrupted suite and the cases of an interrupted test, then the status;
 * a skipped suite stays one line. */
static void text_lists_interrupted(void **state)
{
	json_t *doc = json_pack("{s:{s:s}, s:s, s:{}, s:[{s:s, s:s, s:{}, s:[{s:s, s:s, s:[{s:{s:i}, s:i, s:b, "
				"s:[{s:s, s:s, s:s, s:b, s:{s:i, s:f, s:f}}]}]}]}, {s:s, s:s, s:s, s:[]}]}",
				"tool", "version", "1", "started", "now", "fingerprint", "suites", "name", "cpu", "status",
				"interrupted", "notes", "tests", "name", "prime", "status", "interrupted", "cases", "params",
				"threads", 1, "repetitions", 2, "precision_reached", 0, "metrics", "name", "events_per_s",
				"unit", "1/s", "direction", "higher", "headline", 1, "summary", "n", 2, "mean", 16320.0,
				"ci95_high", 16400.0, "name", "disk", "status", "skipped", "reason", "no room", "tests");
	char *out = NULL;
	size_t len;
	FILE *mem;

	(void)state;
	assert_non_null(doc);
	mem = open_memstream(&out, &len);
	text_print_result(mem, doc);
	assert_int_equal(fclose(mem), 0);
	assert_non_null(strstr(out, "cpu.prime  threads=1\n  events_per_s "));
	assert_non_null(strstr(out, " 16320 events/s ")); /* as run's summary and compare say it */
	assert_non_null(strstr(out, "cpu.prime        interrupted\n"));
	assert_non_null(strstr(out, "cpu              interrupted\n"));
	assert_non_null(strstr(out, "disk             skipped: no room\n"));
	free(out);
	json_decref(doc);
}

/* Lines wrap, never cut: at spaces, within the width, continuations
 * indented, every word kept; a word longer than a line stays whole. */
static void lines_wrap_never_cut(void **state)
{
	static const struct {
		const char *in;
		size_t width, indent;
		const char *want;
	} cases[] = {
		{ "short", 20, 4, "short\n" },
		{ "", 20, 4, "\n" },
		{ "aaaa bbbb cccc dddd", 10, 2, "aaaa bbbb\n  cccc\n  dddd\n" },
		{ "aaaa bbbb cccc", 9, 0, "aaaa bbbb\ncccc\n" },
		{ "aaaaaaaaaaaaaa bb", 6, 2, "aaaaaaaaaaaaaa\n  bb\n" },      /* whole, never cut */
		{ "x: ±5% µs µs µs", 9, 1, "x: ±5% µs\n µs µs\n" },            /* columns, not bytes */
		{ "one\ntwo three four", 9, 2, "one\ntwo three\n  four\n" },   /* a newline starts a line */
		{ "b vs a: 0 better, 2 worse, 0 same, 0 inconclusive, 0 missing", 40, 4,
		  "b vs a: 0 better, 2 worse, 0 same, 0\n    inconclusive, 0 missing\n" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&out, &len);

		assert_non_null(mem);
		text_wrap(mem, cases[i].in, cases[i].width, cases[i].indent);
		assert_int_equal(fclose(mem), 0);
		if (strcmp(out, cases[i].want))
			fail_msg("case %zu: '%s', expected '%s'", i, out, cases[i].want);
		free(out);
	}
	/* show: a long note and many labels, whole, within 100 columns off a terminal */
	{
		static const char note[] = "the guest ran under TCG although KVM was asked for: /dev/kvm is not "
					   "accessible to this user, so every figure is that of an emulated CPU";
		json_t *doc = json_pack("{s:{s:s}, s:s, s:{s:s, s:s, s:s, s:s}, s:{}, s:[{s:s, s:s, s:{s:s, s:i}, "
					"s:[]}]}", "tool", "version", "1", "started", "now", "labels", "accel", "tcg", "disk",
					"virtio-blk", "nic", "virtio-net", "lab", "20261201-120000-bbbb-a-long-session-name",
					"fingerprint", "suites", "name", "cpu", "status", "ok", "notes", "why", note,
					"threads", 2, "tests");
		char *out = NULL, *joined, *line, *save = NULL;
		size_t len = 0, j = 0;
		FILE *mem = open_memstream(&out, &len);

		assert_non_null(doc);
		text_print_result(mem, doc);
		assert_int_equal(fclose(mem), 0);
		joined = calloc(1, len + 1);
		for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			const char *p = line;

			if (strlen(line) > 100 + 2) /* ± µ: bytes, not columns */
				fail_msg("a line over 100 columns: '%s'", line);
			while (*p == ' ' && j)
				p++;
			j += (size_t)snprintf(joined + j, len + 1 - j, "%s%s", j ? " " : "", p);
		}
		assert_non_null(strstr(joined, "labels accel=tcg disk=virtio-blk nic=virtio-net "
					   "lab=20261201-120000-bbbb-a-long-session-name"));
		assert_non_null(strstr(joined, "cpu              why=\"the guest ran"));
		assert_non_null(strstr(joined, "an emulated CPU\" threads=2"));
		free(joined);
		free(out);
		json_decref(doc);
	}
}

/* show prints a metric's interval only where it is one: a stored summary
 * whose ci95_high is below its mean (issue 41: "1e+18 events/s ±-100.0%")
 * or beyond a double's range gets none, never a negative or infinite one. */
static void text_ci_never_negative(void **state)
{
	static const struct {
		double mean, hi;
		const char *want; /* NULL: no interval at all */
	} cases[] = {
		{ 100, 110, "±10.0%" },
		{ 100, 100, "±0.0%" },
		{ 1e18, 0, NULL },
		{ 100, 50, NULL },
		{ -100, -90, "±10.0%" }, /* a negative mean (a cost as a difference) */
		{ 1e-300, 1e300, NULL }, /* beyond a double */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *doc = json_pack("{s:{s:s}, s:s, s:{}, s:[{s:s, s:s, s:{}, s:[{s:s, s:s, s:[{s:{}, s:i, s:b, "
					"s:[{s:s, s:s, s:s, s:b, s:{s:i, s:f, s:f}}]}]}]}]}",
					"tool", "version", "1", "started", "now", "fingerprint", "suites", "name", "cpu",
					"status", "ok", "notes", "tests", "name", "prime", "status", "ok", "cases", "params",
					"repetitions", 2, "precision_reached", 1, "metrics", "name", "events_per_s", "unit",
					"1/s", "direction", "higher", "headline", 1, "summary", "n", 2, "mean", cases[i].mean,
					"ci95_high", cases[i].hi);
		char *out = NULL;
		size_t len;
		FILE *mem;

		assert_non_null(doc);
		mem = open_memstream(&out, &len);
		text_print_result(mem, doc);
		assert_int_equal(fclose(mem), 0);
		if (cases[i].want ? !strstr(out, cases[i].want) : strstr(out, "±") != NULL)
			fail_msg("case %zu (mean %g, ci95_high %g): %s", i, cases[i].mean, cases[i].hi, out);
		assert_null(strstr(out, "±-"));
		assert_null(strstr(out, "inf"));
		free(out);
		json_decref(doc);
	}
}

/* A suite entry with the lab's notes: test NULL for a suite of two tests
 * (its item is the suite), notes "{}" for none. */
static json_t *cost_suite(const char *name, const char *test, const char *notes)
{
	json_t *tests = test ? json_pack("[{s:s}]", "name", test) : json_pack("[{s:s}, {s:s}]", "name", "a", "name", "b");

	return json_pack("{s:s, s:o, s:o}", "name", name, "tests", tests, "notes", json_loads(notes, 0, NULL));
}

static void host_cost_rows(void **state)
{
	/* every note valid or each one way of being left out */
	static const struct {
		const char *notes;
		bool counted;
	} notes[] = {
		{ "{\"qemu_cpu_user_s\": 0.6, \"qemu_cpu_system_s\": 0.2, \"qemu_wall_s\": 2.0}", true },
		{ "{\"qemu_cpu_user_s\": 1, \"qemu_cpu_system_s\": 0, \"qemu_wall_s\": 4}", true }, /* integers */
		{ "{\"qemu_cpu_user_s\": -0.1, \"qemu_cpu_system_s\": 0.2, \"qemu_wall_s\": 2.0}", false },
		{ "{\"qemu_cpu_user_s\": 0.1, \"qemu_cpu_system_s\": -0.2, \"qemu_wall_s\": 2.0}", false },
		{ "{\"qemu_cpu_user_s\": 0.1, \"qemu_cpu_system_s\": 0.2, \"qemu_wall_s\": 0}", false },
		{ "{\"qemu_cpu_user_s\": 0.1, \"qemu_cpu_system_s\": 0.2}", false },
		{ "{\"qemu_cpu_user_s\": \"0.1\", \"qemu_cpu_system_s\": 0.2, \"qemu_wall_s\": 2.0}", false },
		{ "{\"qemu_cpu_user_s\": 1e308, \"qemu_cpu_system_s\": 0.2, \"qemu_wall_s\": 1e-10}", false },
		{ "{}", false },
	};
	struct hostcost_row *rows;
	struct cmp_table t;
	size_t n;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(notes); i++) {
		cmp_table_init(&t, suites_find);
		assert_int_equal(cmp_add_operand(&t, "x", json_pack("[{s:[o]}]", "suites",
								     cost_suite("net", "tcp_rr", notes[i].notes))), 0);
		assert_int_equal(hostcost_rows(&t, &rows, &n), 0);
		if (n != (notes[i].counted ? 1 : 0))
			fail_msg("notes %zu: %zu rows", i, n);
		free(rows);
		cmp_table_release(&t);
	}

	/* two operands, two runs each; items in the order the runs list them;
	 * the host (no notes) gets no row */
	cmp_table_init(&t, suites_find);
	assert_int_equal(cmp_add_operand(&t, "host", json_pack("[{s:[o]}]", "suites", cost_suite("net", "tcp_rr", "{}"))),
			 0);
	assert_int_equal(cmp_add_operand(&t, "nic=e1000", json_pack("[{s:[o, o]}, {s:[o, o]}]",
		"suites", cost_suite("net", "tcp_rr", notes[0].notes),
		cost_suite("disk", NULL, "{\"qemu_cpu_user_s\": 3, \"qemu_cpu_system_s\": 1, \"qemu_wall_s\": 4, "
					 "\"host_write_amplification\": 15.5}"),
		"suites", cost_suite("disk", NULL, "{\"qemu_cpu_user_s\": 1, \"qemu_cpu_system_s\": 1, \"qemu_wall_s\": 2, "
						   "\"host_write_amplification\": -1}"),
		cost_suite("net", "tcp_rr", notes[1].notes))), 0);
	assert_int_equal(cmp_add_operand(&t, "nic=virtio-net", json_pack("[{s:[o]}, {s:[o]}]",
		"suites", cost_suite("net", "tcp_rr", notes[1].notes),
		"suites", cost_suite("net", "tcp_rr", notes[2].notes))), 0);
	assert_int_equal(hostcost_rows(&t, &rows, &n), 0);
	assert_int_equal(n, 3);
	/* (0.6/2 + 1/4) / 2 = 0.275 user, (0.2/2 + 0) / 2 = 0.05 system */
	assert_string_equal(rows[0].config, "nic=e1000");
	assert_string_equal(rows[0].item, "net.tcp_rr");
	assert_close(rows[0].user, 0.275, 1e-12);
	assert_close(rows[0].sys, 0.05, 1e-12);
	assert_close(rows[0].cpu, 0.325, 1e-12);
	assert_int_equal(rows[0].runs, 2);
	/* (3/4 + 1/2) / 2 = 0.625 user, (1/4 + 1/2) / 2 = 0.375 system */
	assert_string_equal(rows[1].item, "disk");
	assert_close(rows[1].user, 0.625, 1e-12);
	assert_close(rows[1].sys, 0.375, 1e-12);
	assert_close(rows[1].cpu, 1.0, 1e-12);
	assert_int_equal(rows[1].runs, 2);
	/* the write amplification of the one run whose value is valid; none for net */
	assert_int_equal(rows[1].wamp_runs, 1);
	assert_close(rows[1].wamp, 15.5, 1e-12);
	assert_int_equal(rows[0].wamp_runs, 0);
	assert_true(isnan(rows[0].wamp));
	/* one run of two counted */
	assert_string_equal(rows[2].config, "nic=virtio-net");
	assert_close(rows[2].user, 0.25, 1e-12);
	assert_close(rows[2].sys, 0.0, 1e-12);
	assert_int_equal(rows[2].runs, 1);
	free(rows);
	cmp_table_release(&t);

	/* two finite amplifications whose sum is not: their mean still is */
	cmp_table_init(&t, suites_find);
	assert_int_equal(cmp_add_operand(&t, "snapshot=on", json_pack("[{s:[o]}, {s:[o]}]",
		"suites", cost_suite("disk", NULL, "{\"qemu_cpu_user_s\": 1, \"qemu_cpu_system_s\": 1, \"qemu_wall_s\": 2, "
						   "\"host_write_amplification\": 1e308}"),
		"suites", cost_suite("disk", NULL, "{\"qemu_cpu_user_s\": 1, \"qemu_cpu_system_s\": 1, \"qemu_wall_s\": 2, "
						   "\"host_write_amplification\": 1.5e308}"))), 0);
	assert_int_equal(hostcost_rows(&t, &rows, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].wamp_runs, 2);
	assert_true(isfinite(rows[0].wamp));
	assert_close(rows[0].wamp / 1e308, 1.25, 1e-12);
	free(rows);
	cmp_table_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ticks),
		cmocka_unit_test(axes_and_mapping),
		cmocka_unit_test(document),
		cmocka_unit_test(comparisons),
		cmocka_unit_test(error_bars_stop_at_zero),
		cmocka_unit_test(one_run_caveat),
		cmocka_unit_test(aa_and_ab),
		cmocka_unit_test(import_pairs_with_native),
		cmocka_unit_test(fingerprint_warnings),
		cmocka_unit_test(legends),
		cmocka_unit_test(params_words),
		cmocka_unit_test(lead_sentence),
		cmocka_unit_test(lead_ranks_findings),
		cmocka_unit_test(boot_phases),
		cmocka_unit_test(run_delay_against_load),
		cmocka_unit_test(load_chart_from_descriptor),
		cmocka_unit_test(boot_phases_long_names),
		cmocka_unit_test(boot_phases_40_operands),
		cmocka_unit_test(escaper),
		cmocka_unit_test(text_hides_noisy_secondaries),
		cmocka_unit_test(legend_of_drawn_operands),
		cmocka_unit_test(declared_phases),
		cmocka_unit_test(text_values),
		cmocka_unit_test(lines_wrap_never_cut),
		cmocka_unit_test(text_unit_labels),
		cmocka_unit_test(text_lists_interrupted),
		cmocka_unit_test(text_ci_never_negative),
		cmocka_unit_test(host_cost_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
