/* Series over time: down-sampling (exact values), a repetition's points
 * joining its case, a document's series written and read back, and the
 * CSV rows of export --format csv --series. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "../../src/core/macro.h"
#include "../../src/core/rep.h"
#include "../../src/report/series.h"
#include "../../src/store/doc.h"

static void downsample_exact(void **state)
{
	static const struct {
		size_t n, max;
		size_t out;
		unsigned bucket;
		double t[4], v[4]; /* the first points after */
	} cases[] = {
		{ 5, 10, 5, 1, { 1, 2, 3, 4 }, { 10, 20, 30, 40 } },      /* within the bound: untouched */
		{ 10, 10, 10, 1, { 1, 2, 3, 4 }, { 10, 20, 30, 40 } },    /* at it */
		{ 10, 5, 5, 2, { 2, 4, 6, 8 }, { 15, 35, 55, 75 } },      /* pairs: the last time, the mean */
		{ 10, 4, 4, 3, { 3, 6, 9, 10 }, { 20, 50, 80, 100 } },    /* 3+3+3+1: the last bucket shorter */
		{ 10, 3, 3, 4, { 4, 8, 10, 0 }, { 25, 65, 95, 0 } },      /* 4+4+2 */
		{ 10, 1, 1, 10, { 10, 0, 0, 0 }, { 55, 0, 0, 0 } },       /* one point: the mean of all */
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		double t[16], v[16];
		unsigned bucket = 0;
		size_t out;

		for (size_t k = 0; k < cases[i].n; k++)
			t[k] = (double)(k + 1), v[k] = 10.0 * (double)(k + 1);
		out = vmb_series_downsample(t, v, cases[i].n, cases[i].max, &bucket);
		assert_int_equal(out, cases[i].out);
		assert_int_equal(bucket, cases[i].bucket);
		for (size_t k = 0; k < out && k < 4; k++) {
			assert_true(t[k] == cases[i].t[k]);
			assert_true(v[k] == cases[i].v[k]);
		}
	}
}

/* 25,000 points of a repetition become 8,334 buckets of 3 (the last of 1):
 * at most VMB_SERIES_MAX, each the mean of its points. */
static void rep_points_join_case(void **state)
{
	struct vmb_rep *rep = rep_new();
	struct vmb_case c;
	const struct vmb_series *s;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_non_null(rep);
	for (unsigned k = 0; k < 25000; k++)
		vmb_rep_point(rep, "iops", VMB_UNIT_PER_S, 0.001 * (k + 1), (double)k);
	vmb_rep_point(rep, "latency", VMB_UNIT_NS, 0.5, 7);
	assert_int_equal(rep_error(rep), 0);
	assert_int_equal(rep_fold(rep, &c, "iops"), 0);
	c.reps = 1;
	assert_int_equal(c.nseries, 2);
	s = &c.series[0];
	assert_string_equal(s->name, "iops");
	assert_int_equal(s->rep, 1);
	assert_int_equal(s->bucket, 3);
	assert_int_equal(s->n, 8334);
	assert_true(s->n <= VMB_SERIES_MAX);
	assert_close(s->t[0], 0.003, 1e-12);
	assert_true(s->v[0] == 1); /* (0 + 1 + 2) / 3 */
	assert_close(s->t[8333], 25.0, 1e-9);
	assert_true(s->v[8333] == 24999);
	assert_int_equal(c.series[1].n, 1);
	assert_int_equal(c.series[1].bucket, 1);
	/* the next repetition's points are its own */
	rep_reset(rep);
	vmb_rep_point(rep, "iops", VMB_UNIT_PER_S, 1, 5);
	assert_int_equal(rep_fold(rep, &c, "iops"), 0);
	assert_int_equal(c.nseries, 3);
	assert_int_equal(c.series[2].rep, 2);
	assert_int_equal(c.series[2].n, 1);
	/* out of time order, or not finite: the repetition's error */
	rep_reset(rep);
	vmb_rep_point(rep, "iops", VMB_UNIT_PER_S, 1, 5);
	vmb_rep_point(rep, "iops", VMB_UNIT_PER_S, 1, 6);
	assert_int_equal(rep_error(rep), -EDOM);
	rep_reset(rep);
	vmb_rep_point(rep, "iops", VMB_UNIT_PER_S, 1, NAN);
	assert_int_equal(rep_error(rep), -EDOM);
	vmb_case_release(&c);
	rep_free(rep);
}

/* A case with a series, as a document: stored, validated, and its CSV rows. */
static json_t *doc_with_series(void)
{
	static const double t[] = { 0.5, 1.0, 1.5 }, v[] = { 100, 200.25, 300 };
	struct vmb_suite_result sr = { .name = "net", .status = VMB_OK };
	struct vmb_test_result tr = { .name = "tcp_stream", .status = VMB_OK };
	struct vmb_case c;
	struct vmb_results res = { .suites = &sr, .nsuites = 1 };
	struct doc_meta m = { .started = 1e9, .ended = 1e9 + 1 };
	json_t *fp = json_pack("{s:{s:s}}", "hypervisor", "name", "none"), *doc = NULL;
	char err[256];

	memset(&c, 0, sizeof(c));
	assert_int_equal(vmb_params_add(&c.params, &c.nparams, "streams", "2"), 0);
	assert_non_null(vmb_case_add_metric(&c, "mbit_per_s", VMB_UNIT_MBIT_PER_S, VMB_HIGHER));
	assert_int_equal(vmb_metric_push(&c.metrics[0], 200), 0);
	stats_summarize(c.metrics[0].samples, c.metrics[0].n, &c.metrics[0].sum); /* as the runner does */
	c.reps = 1;
	assert_int_equal(vmb_case_add_series(&c, "mbit_per_s", VMB_UNIT_MBIT_PER_S, 1, t, v, 3, VMB_SERIES_MAX), 0);
	tr.cases = &c;
	tr.ncases = 1;
	sr.tests = &tr;
	sr.ntests = 1;
	m.fingerprint = fp;
	assert_int_equal(doc_from_results(&res, &m, &doc, err, sizeof(err)), 0);
	assert_int_equal(doc_validate(doc, err, sizeof(err)), 0);
	assert_int_equal(json_integer_value(json_object_get(doc, "schema_version")), 3);
	json_object_set_new(doc, "id", json_string("run-1"));
	vmb_case_release(&c);
	json_decref(fp);
	return doc;
}

static void csv_rows(void **state)
{
	json_t *doc = doc_with_series();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(series_print_csv(f, doc), 0);
	fclose(f);
	assert_string_equal(buf, "run,suite,test,params,repetition,t_s,metric,value,unit\n"
				 "\"run-1\",\"net\",\"tcp_stream\",\"streams=2\",1,0.5,\"mbit_per_s\",100,\"Mbit/s\"\n"
				 "\"run-1\",\"net\",\"tcp_stream\",\"streams=2\",1,1,\"mbit_per_s\",200.25,\"Mbit/s\"\n"
				 "\"run-1\",\"net\",\"tcp_stream\",\"streams=2\",1,1.5,\"mbit_per_s\",300,\"Mbit/s\"\n");
	assert_int_equal(series_count(doc), 1);
	free(buf);
	json_decref(doc);
}

/* show --series on finite values whose sum is not (a document stored
 * before doc_validate bounded a value by its unit): the mean and the
 * sparkline's levels are still the values' own. */
static void text_of_huge_values(void **state)
{
	json_t *doc = doc_with_series(), *pts = json_array();
	char *buf = NULL, spark[40 * 3 + 1] = "▅";
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	/* 80 points: 1e308, then 1.7e308; the sparkline's 40 levels average two each */
	for (int i = 0; i < 80; i++)
		json_array_append_new(pts, json_pack("[f, f]", 0.5 * (i + 1), i ? 1.7e308 : 1e308));
	json_object_set_new(json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(
		json_array_get(json_object_get(doc, "suites"), 0), "tests"), 0), "cases"), 0), "series"), 0), "points", pts);
	series_print_text(f, doc);
	fclose(f);
	for (int b = 1; b < 40; b++)
		strcat(spark, "█");
	if (strstr(buf, "mean -") || !strstr(buf, spark))
		fail_msg("%s", buf);
	free(buf);
	json_decref(doc);
}

/* A document of version 2 has no series and still loads; a version-3 one
 * whose series is out of order is refused by its path. */
static void old_and_bad_documents(void **state)
{
	json_t *doc = doc_with_series(), *se;
	char err[256];

	(void)state;
	json_object_set_new(doc, "schema_version", json_integer(2));
	se = json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(
		json_object_get(doc, "suites"), 0), "tests"), 0), "cases"), 0), "series");
	assert_non_null(se);
	json_incref(se);
	json_object_del(json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(
		json_object_get(doc, "suites"), 0), "tests"), 0), "cases"), 0), "series");
	assert_int_equal(doc_validate(doc, err, sizeof(err)), 0);
	assert_int_equal(series_count(doc), 0);
	json_array_set_new(json_object_get(json_array_get(se, 0), "points"), 2, json_pack("[f, f]", 0.75, 1.0));
	json_object_set_new(json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(
		json_object_get(doc, "suites"), 0), "tests"), 0), "cases"), 0), "series", se);
	assert_int_equal(doc_validate(doc, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "suites[0].tests[0].cases[0].series[0].points[2]: t_s 0.75 is not after the point before it"));
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(downsample_exact),
		cmocka_unit_test(rep_points_join_case),
		cmocka_unit_test(csv_rows),
		cmocka_unit_test(text_of_huge_values),
		cmocka_unit_test(old_and_bad_documents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
