/* The result document: built values, JSON round trip, validation messages. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "fixture_doc.h"

static void built_values(void **state)
{
	json_t *doc = fixture_doc(), *c, *m, *h;
	char err[256];

	(void)state;
	assert_non_null(doc);
	assert_int_equal(doc_validate(doc, err, sizeof(err)), 0);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")), "vmbench-result");
	assert_int_equal(json_integer_value(json_object_get(doc, "schema_version")), DOC_SCHEMA_VERSION);
	assert_string_equal(json_string_value(json_object_get(doc, "started")), "2023-11-14T22:13:20Z");
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "labels"), "hv")), "kvm");
	c = json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(doc, "suites"), 0), "tests"), 0), "cases"), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "params"), "threads")), 2);
	m = json_array_get(json_object_get(c, "metrics"), 0);
	assert_string_equal(json_string_value(json_object_get(m, "unit")), "1/s");
	assert_true(json_is_true(json_object_get(m, "headline")));
	assert_int_equal(json_array_size(json_object_get(m, "samples")), 4);
	assert_close(json_real_value(json_object_get(json_object_get(m, "summary"), "mean")), 100.25, 1e-12);
	m = json_array_get(json_object_get(c, "metrics"), 1);
	h = json_object_get(m, "histogram");
	assert_int_equal(json_integer_value(json_object_get(h, "count")), 1000);
	/* p50 of 1..1000 us is 500 us, within the histogram's 1% */
	assert_close(json_real_value(json_object_get(json_object_get(h, "percentiles"), "p50")), 500000, 5000);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(doc, "suites"), 1), "status")),
			    "skipped");
	json_decref(doc);
}

static void round_trip(void **state)
{
	json_t *doc = fixture_doc(), *back = NULL;
	char *text, err[256], path[] = "/tmp/vmbench-doc-XXXXXX";
	int fd;

	(void)state;
	text = json_dumps(doc, JSON_REAL_PRECISION(17));
	assert_int_equal(doc_load_string(text, "test", &back, err, sizeof(err)), 0);
	assert_true(json_equal(doc, back));
	json_decref(back);
	free(text);

	/* Through a file: written once, never overwritten. */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(doc_write_file(doc, path), -EEXIST);
	unlink(path);
	assert_int_equal(doc_write_file(doc, path), 0);
	assert_int_equal(doc_load_file(path, &back, err, sizeof(err)), 0);
	assert_true(json_equal(doc, back));
	json_decref(back);
	unlink(path);
	json_decref(doc);
}

static void invalid_documents(void **state)
{
	static const struct {
		const char *path; /* a key to break, "a.b" = object a's key b */
		const char *json; /* replacement value, NULL = delete */
		const char *msg;
	} cases[] = {
		{ "schema", "\"other\"", "not a vmbench result" },
		{ "schema_version", "4", "written by a newer vmbench" },
		{ "schema_version", "0", "reads versions 1 to 3" },
		{ "run_group", "{\"id\": \"g\", \"round\": 0, \"rounds\": 2}", "run_group.round" },
		{ "run_group", "{\"id\": \"g\", \"round\": 1, \"rounds\": 2, \"order\": [1]}", "run_group.order[0]" },
		/* a lab failure's marker: numbers in range, the texts there, the paths strings or null */
		{ "lab_failure", "{\"round\": 0, \"try\": 1, \"tries\": 1, \"step\": \"boot\", \"reason\": \"r\", "
				 "\"outcome\": \"round failed\"}", "lab_failure.round: 0 is out of range" },
		{ "lab_failure", "{\"round\": 1, \"try\": 1.5, \"tries\": 1, \"step\": \"boot\", \"reason\": \"r\", "
				 "\"outcome\": \"round failed\"}", "lab_failure.try: expected an integer" },
		{ "lab_failure", "{\"round\": 1, \"try\": 1, \"tries\": 1, \"reason\": \"r\", \"outcome\": \"retried\"}",
		  "lab_failure.step: missing" },
		{ "lab_failure", "{\"round\": 1, \"try\": 1, \"tries\": 1, \"step\": \"boot\", \"reason\": \"r\", "
				 "\"outcome\": \"retried\", \"console\": 5}", "lab_failure.console: expected a string" },
		{ "lab_failure", "[]", "lab_failure: expected an object" },
		{ "suites", "[{\"name\": \"cpu\", \"status\": \"ok\", \"tests\": [{\"name\": \"p\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 1, \"metrics\": [], "
			    "\"reps\": [{\"busy\": true, \"noise\": {\"other_cpu_pct\": 400}}]}]}]}]",
		  "reps[0].noise.other_cpu_pct" },
		/* a series: refused whole, by its path */
		/* a series: refused whole, by its path */
		{ "suites", "[{\"name\": \"net\", \"status\": \"ok\", \"tests\": [{\"name\": \"t\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 2, \"metrics\": [], \"series\": [{\"name\": \"m\", \"unit\": \"Mbit/s\", \"rep\": 3, \"points\": [[1, 2]]}]}]}]}]",
		  "series[0].rep: 3 is out of range [1, 2]" },
		{ "suites", "[{\"name\": \"net\", \"status\": \"ok\", \"tests\": [{\"name\": \"t\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 2, \"metrics\": [], \"series\": [{\"name\": \"m\", \"unit\": \"furlongs\", \"rep\": 1, \"points\": [[1, 2]]}]}]}]}]",
		  "series[0].unit: unknown unit 'furlongs'" },
		{ "suites", "[{\"name\": \"net\", \"status\": \"ok\", \"tests\": [{\"name\": \"t\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 2, \"metrics\": [], \"series\": [{\"name\": \"m\", \"unit\": \"Mbit/s\", \"rep\": 1, \"points\": [[1, 2], [1, 3]]}]}]}]}]",
		  "series[0].points[1]: t_s 1 is not after the point before it" },
		{ "suites", "[{\"name\": \"net\", \"status\": \"ok\", \"tests\": [{\"name\": \"t\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 2, \"metrics\": [], \"series\": [{\"name\": \"m\", \"unit\": \"Mbit/s\", \"rep\": 1, \"points\": [[-1, 2]]}]}]}]}]",
		  "series[0].points[0]: t_s -1 is negative" },
		{ "suites", "[{\"name\": \"net\", \"status\": \"ok\", \"tests\": [{\"name\": \"t\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 2, \"metrics\": [], \"series\": [{\"name\": \"m\", \"unit\": \"Mbit/s\", \"rep\": 1, \"points\": [[1, -2]]}]}]}]}]",
		  "series[0].points[0]: -2 is negative, and Mbit/s cannot be" },
		{ "suites", "[{\"name\": \"net\", \"status\": \"ok\", \"tests\": [{\"name\": \"t\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 2, \"metrics\": [], \"series\": [{\"name\": \"m\", \"unit\": \"ns\", \"rep\": 1, \"points\": [[1, 2, 3]]}]}]}]}]",
		  "series[0].points[0]: expected [t_s, value], two numbers" },
		{ "suites", "[{\"name\": \"net\", \"status\": \"ok\", \"tests\": [{\"name\": \"t\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 2, \"metrics\": [], \"series\": [{\"name\": \"m\", \"unit\": \"ns\", \"rep\": 1, \"points\": []}]}]}]}]",
		  "series[0].points: expected 1 to 10000 points" },
		{ "suites", "[{\"name\": \"net\", \"status\": \"ok\", \"tests\": [{\"name\": \"t\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 2, \"metrics\": [], \"series\": [{\"name\": \"m\", \"unit\": \"ns\", \"rep\": 1, \"points\": [[1, 2]]}, {\"name\": \"m\", \"unit\": \"ns\", \"rep\": 1, \"points\": [[1, 2]]}]}]}]}]",
		  "series[1]: a second series 'm' of repetition 1" },
		{ "suites", "[{\"name\": \"net\", \"status\": \"ok\", \"tests\": [{\"name\": \"t\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 2, \"metrics\": [], \"series\": [{\"name\": \"\", \"unit\": \"ns\", \"rep\": 1, \"points\": [[1, 2]]}]}]}]}]",
		  "series[0].name: expected a name of 1 to 47 characters" },
		{ "suites", "[{\"name\": \"net\", \"status\": \"ok\", \"tests\": [{\"name\": \"t\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 2, \"metrics\": [], \"series\": [{\"name\": \"m\", \"unit\": \"ns\", \"rep\": 1, \"bucket\": 0, \"points\": [[1, 2]]}]}]}]}]",
		  "series[0].bucket: 0 is out of range" },
		{ "schema_version", "\"1\"", "schema_version: expected an integer" },
		{ "suites", NULL, "suites: missing" },
		{ "suites", "{}", "suites: expected an array" },
		{ "labels", "{\"a\": 1}", "labels.a: expected a string" },
		{ "fingerprint", "{}", "fingerprint.hypervisor: missing" },
		{ "suites", "[{\"name\": \"cpu\", \"status\": \"weird\", \"tests\": []}]", "suites[0].status: unknown status" },
		{ "suites", "[{\"name\": \"cpu\", \"status\": \"ok\", \"tests\": [{\"name\": \"p\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 1, \"metrics\": [{\"name\": \"m\", \"unit\": \"1/s\", "
			    "\"direction\": \"sideways\", \"samples\": [], \"summary\": {\"n\": 0}}]}]}]}]",
		  "suites[0].tests[0].cases[0].metrics[0].direction" },
		{ "suites", "[{\"name\": \"cpu\", \"status\": \"ok\", \"tests\": [{\"name\": \"p\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 1, \"metrics\": [{\"name\": \"m\", \"unit\": \"furlongs\", "
			    "\"direction\": \"higher\", \"samples\": [\"x\"], \"summary\": {\"n\": 0}}]}]}]}]",
		  "unknown unit 'furlongs'" },
		/* strict: every value of the right type and range, percentiles numbers, depth bounded */
		{ "suites", "[{\"name\": \"cpu\", \"status\": \"ok\", \"tests\": [{\"name\": \"p\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 1, \"metrics\": [{\"name\": \"m\", \"unit\": \"1/s\", "
			    "\"direction\": \"higher\", \"samples\": [\"x\"], \"summary\": {\"n\": 1}}]}]}]}]",
		  "samples[0]: expected a number" },
		{ "suites", "[{\"name\": \"cpu\", \"status\": \"ok\", \"tests\": [{\"name\": \"p\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 1, \"metrics\": [{\"name\": \"m\", \"unit\": \"1/s\", "
			    "\"direction\": \"higher\", \"samples\": [-5], \"summary\": {\"n\": 1}}]}]}]}]",
		  "samples[0]: -5 is negative" },
		{ "suites", "[{\"name\": \"cpu\", \"status\": \"ok\", \"tests\": [{\"name\": \"p\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {\"threads\": -2}, \"repetitions\": 1, \"metrics\": [{\"name\": \"m\", \"unit\": \"1/s\", "
			    "\"direction\": \"higher\", \"samples\": [1], \"summary\": {\"n\": 1}}]}]}]}]",
		  "params.threads: expected a whole number of at least 1" },
		{ "suites", "[{\"name\": \"cpu\", \"status\": \"ok\", \"tests\": [{\"name\": \"p\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {\"bs\": [1]}, \"repetitions\": 1, \"metrics\": [{\"name\": \"m\", \"unit\": \"1/s\", "
			    "\"direction\": \"higher\", \"samples\": [1], \"summary\": {\"n\": 1}}]}]}]}]",
		  "params.bs: expected a string, a number or a boolean" },
		{ "suites", "[{\"name\": \"cpu\", \"status\": \"ok\", \"tests\": [{\"name\": \"p\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 1, \"metrics\": [{\"name\": \"m\", \"unit\": \"ns\", "
			    "\"direction\": \"higher\", \"samples\": [1], \"summary\": {\"n\": 1}, \"histogram\": {\"count\": 1, \"percentiles\": {\"p50\": \"12\"}, \"buckets\": []}}]}]}]}]",
		  "histogram.percentiles.p50: expected a number" },
		{ "suites", "[{\"name\": \"cpu\", \"status\": \"ok\", \"tests\": [{\"name\": \"p\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 1, \"metrics\": [{\"name\": \"m\", \"unit\": \"ns\", "
			    "\"direction\": \"higher\", \"samples\": [1], \"summary\": {\"n\": 1}, \"histogram\": {\"count\": 1, \"percentiles\": {\"p50\": [[[1]]]}, \"buckets\": []}}]}]}]}]",
		  "histogram.percentiles.p50: expected a number" },
		{ "suites", "[{\"name\": \"cpu\", \"status\": \"ok\", \"tests\": [{\"name\": \"p\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 1, \"metrics\": [{\"name\": \"m\", \"unit\": \"ns\", "
			    "\"direction\": \"higher\", \"samples\": [1], \"summary\": {\"n\": 1}, \"histogram\": {\"count\": -1, \"percentiles\": {}, \"buckets\": []}}]}]}]}]",
		  "histogram.count: -1 is out of range" },
		{ "suites", "[{\"name\": \"cpu\", \"status\": \"ok\", \"tests\": [{\"name\": \"p\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 1, \"metrics\": [{\"name\": \"m\", \"unit\": \"ns\", "
			    "\"direction\": \"higher\", \"samples\": [1], \"summary\": {\"n\": 1}, \"summary\": {\"n\": 1, \"mean\": \"fast\"}}]}]}]}]",
		  "summary.mean: expected a number or null" },
		{ "fingerprint", "{\"hypervisor\": {\"name\": \"x\"}, \"deep\": [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]}",
		  "fingerprint: nested deeper than 16 levels" },
		{ "interrupted", "{\"a\": [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]}", "interrupted: nested deeper" },
		{ "duration_s", "\"long\"", "duration_s: expected a number" },
		/* a key this version does not know, deep inside a case */
		{ "suites", "[{\"name\": \"cpu\", \"status\": \"ok\", \"tests\": [{\"name\": \"p\", \"status\": \"ok\", "
			    "\"cases\": [{\"params\": {}, \"repetitions\": 1, \"metrics\": [], "
			    "\"extra\": [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}]}]}]", "suites: nested deeper than 16 levels" },
		{ "id", "\"\"", "id: expected a run id" },
		/* a string that would drive the terminal showing it (show, compare, results) */
		{ "suites", "[{\"name\": \"cpu\\u001b[2J\", \"status\": \"ok\", \"tests\": []}]",
		  "suites: a string with a control character (byte 3 is 0x1b)" },
		{ "labels", "{\"hv\": \"kvm\\u009b2J\"}", "labels: a string with a control character (byte 3 is 0xc2)" },
		{ "labels", "{\"h\\rv\": \"kvm\"}", "labels: a key with a control character" },
	};
	char err[256];
	json_t *back;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *doc = fixture_doc();

		if (cases[i].json)
			json_object_set_new(doc, cases[i].path, json_loads(cases[i].json, JSON_DECODE_ANY, NULL));
		else
			json_object_del(doc, cases[i].path);
		err[0] = '\0';
		if (doc_validate(doc, err, sizeof(err)) != -EINVAL)
			fail_msg("case %zu (%s) was accepted", i, cases[i].path);
		if (!strstr(err, cases[i].msg))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err, cases[i].msg);
		json_decref(doc);
	}
	/* Not JSON at all, and JSON that is not an object: named, with the position. */
	assert_int_equal(doc_load_string("{\"schema\": ", "f.json", &back, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "f.json: not valid JSON at line 1"));
	assert_int_equal(doc_load_string("[1, 2]", "g.json", &back, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "g.json: not a valid vmbench result"));
	assert_int_equal(doc_load_file("/nonexistent/x.json", &back, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/x.json"));
}

static void failures(void **state)
{
	json_t *doc = json_loads("{\"suites\": [{\"name\": \"cpu\", \"status\": \"ok\", \"tests\": ["
				 "{\"name\": \"prime\", \"status\": \"ok\"}]},"
				 "{\"name\": \"disk\", \"status\": \"ok\", \"tests\": ["
				 "{\"name\": \"randread\", \"status\": \"ok\"},"
				 "{\"name\": \"randwrite\", \"status\": \"failed\", \"reason\": \"no I/O completed\"},"
				 "{\"name\": \"iozone\", \"status\": \"skipped\", \"reason\": \"a device\"}]},"
				 "{\"name\": \"net\", \"status\": \"failed\", \"reason\": \"no peer\", \"tests\": []}]}",
				 0, NULL);
	struct strv f = { 0 };

	(void)state;
	assert_non_null(doc);
	assert_int_equal(doc_failures(doc, &f), 2);
	assert_string_equal(f.v[0], "disk.randwrite: no I/O completed"); /* skipped is not failed */
	assert_string_equal(f.v[1], "net: no peer");
	strv_clear(&f);
	json_decref(doc);
	doc = fixture_doc();
	assert_int_equal(doc_failures(doc, &f), 0);
	json_decref(doc);
}

/* One UTF-8 rule for the command line, the protocol and the document:
 * jansson's (RFC 3629). */
static void utf8_cases(void **state)
{
	static const struct {
		const char *s;
		long at;
	} cases[] = {
		{ "", -1 }, { "plain", -1 }, { "caf\xc3\xa9", -1 }, { "\xe2\x82\xac", -1 }, { "\xf0\x9f\x98\x80", -1 },
		{ "\xf4\x8f\xbf\xbf", -1 }, /* U+10FFFF */
		{ "caf\xe9", 3 },              /* Latin-1 */
		{ "caf\xe9!", 3 },
		{ "x\x80", 1 },                /* a lone continuation byte */
		{ "\xc0\xae", 0 },            /* overlong '.' */
		{ "\xe0\x80\xaf", 0 },        /* overlong '/' in three bytes */
		{ "\xed\xa0\x80", 0 },        /* a surrogate */
		{ "\xf4\x90\x80\x80", 0 },    /* above U+10FFFF */
		{ "ab\xe2\x82", 2 },           /* cut short */
		{ "\xff", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long at = str_find_bad_utf8(cases[i].s, strlen(cases[i].s));
		json_t *j = json_string(cases[i].s);

		if (at != cases[i].at)
			fail_msg("case %zu: offset %ld, expected %ld", i, at, cases[i].at);
		/* the same verdict as jansson's */
		if ((j != NULL) != (at < 0))
			fail_msg("case %zu: jansson %s it", i, j ? "takes" : "refuses");
		json_decref(j);
	}
}

/* A part jansson refuses fails the whole document with a message: nothing
 * is silently missing (a label that was not UTF-8 used to vanish). */
static void build_refuses_non_utf8(void **state)
{
	static char *good_argv[] = { "vmbench", "run", "cpu" };
	static char *bad_argv[] = { "vmbench", "run", "caf\xe9" };
	static const struct {
		char **argv;
		const char *label, *param_key, *msg;
	} cases[] = {
		{ good_argv, "x=caf\xe9", NULL, "label number 1: not KEY=VALUE in UTF-8 text" },
		{ good_argv, "caf\xe9=1", NULL, "label number 1: not KEY=VALUE in UTF-8 text" },
		{ bad_argv, "ok=1", NULL, "command_line[2]: not UTF-8 text" },
		{ good_argv, "ok=1", "thr\xe9" "ads", "suites[0] (cpu): out of memory, or a name or parameter that is not UTF-8" },
		{ good_argv, "ok=1", NULL, NULL },
	};
	json_t *fp = json_pack("{s:{s:s}}", "hypervisor", "name", "KVM");

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vmb_results res;
		struct strv labels = { 0 };
		json_t *doc = NULL;
		char err[256] = "";
		int r;

		fixture_results(&res);
		if (cases[i].param_key) {
			free(res.suites[0].tests[0].cases[0].params[0].key);
			res.suites[0].tests[0].cases[0].params[0].key = strdup(cases[i].param_key);
		}
		assert_int_equal(strv_push(&labels, cases[i].label), 0);
		r = doc_from_results(&res, &(struct doc_meta){ .argc = 3, .argv = cases[i].argv, .fingerprint = fp,
							       .labels = &labels }, &doc, err, sizeof(err));
		if (!cases[i].msg) {
			assert_int_equal(r, 0);
			assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "labels"), "ok")), "1");
		} else {
			if (r >= 0 || doc)
				fail_msg("case %zu built", i);
			if (strcmp(err, cases[i].msg))
				fail_msg("case %zu: \"%s\", expected \"%s\"", i, err, cases[i].msg);
		}
		json_decref(doc);
		vmb_results_release(&res);
		strv_clear(&labels);
	}
	json_decref(fp);
}

/* started, ended and each repetition's start are RFC 3339 timestamps: the
 * reports print them and sort by them. */
static void timestamps(void **state)
{
	static const struct {
		const char *key, *value;
		bool ok;
	} cases[] = {
		{ "started", "2026-11-30T03:14:00Z", true },
		{ "started", "2024-02-29T23:59:60.123+05:30", true }, /* leap day, leap second, offset */
		{ "ended", "2026-11-30t03:14:00z", true },
		{ "ended", "1999-12-31T23:59:59-00:00", true },
		{ "started", "yesterday", false },
		{ "started", "", false },
		{ "started", "2026-11-30", false },
		{ "started", "2026-11-30 03:14:00Z", false },
		{ "started", "2026-02-29T00:00:00Z", false }, /* not a leap year */
		{ "started", "1900-02-29T00:00:00Z", false },
		{ "started", "2026-04-31T00:00:00Z", false },
		{ "started", "2026-13-01T00:00:00Z", false },
		{ "ended", "2026-11-30T24:00:00Z", false },
		{ "ended", "2026-11-30T03:14:00", false },   /* no offset */
		{ "ended", "2026-11-30T03:14:00.Z", false },
		{ "ended", "2026-11-30T03:14:00+5:30", false },
		{ "ended", "2026-11-30T03:14:00Zjunk", false },
		{ "ended", "+2026-11-30T03:14:00Z", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *doc = fixture_doc();
		char err[256] = "";
		int r;

		assert_int_equal(json_object_set_new(doc, cases[i].key, json_string(cases[i].value)), 0);
		r = doc_validate(doc, err, sizeof(err));
		if ((r == 0) != cases[i].ok)
			fail_msg("case %zu: %s \"%s\" %s (%s)", i, cases[i].key, cases[i].value,
				 r == 0 ? "accepted" : "refused", err);
		if (r < 0 && !strstr(err, "expected an RFC 3339 timestamp"))
			fail_msg("case %zu: %s", i, err);
		json_decref(doc);
	}
	/* a number is not a timestamp either */
	{
		json_t *doc = fixture_doc();
		char err[256];

		json_object_set_new(doc, "started", json_integer(1700000000));
		assert_int_equal(doc_validate(doc, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "started: expected a string"));
		json_decref(doc);
	}
}

/* Every stored document this project has committed still loads. */
static void old_documents_load(void **state)
{
	static const char *const files[] = { "store/labels.json", "../fuzz/corpus/doc/imported-fio.json",
					     "../fuzz/corpus/doc/imported-iperf3.json", "../fuzz/corpus/doc/run-cpu.json" };

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[512], err[512];
		json_t *doc = NULL;

		snprintf(path, sizeof(path), "%s/%s", FIXTURES, files[i]);
		if (doc_load_file(path, &doc, err, sizeof(err)) < 0)
			fail_msg("%s", err);
		json_decref(doc);
	}
}

/* doc_note_all: every suite's notes get the key, notes made where a suite
 * had none, another note kept */
static void note_all(void **state)
{
	json_t *doc = json_pack("{s:[{s:s, s:{s:s}}, {s:s}]}", "suites", "name", "net", "notes", "a", "b", "name", "cpu");
	size_t i;
	json_t *s;

	(void)state;
	assert_non_null(doc);
	assert_int_equal(doc_note_all(doc, "k", json_integer(7)), 0);
	json_array_foreach(json_object_get(doc, "suites"), i, s)
		assert_int_equal(json_integer_value(json_object_get(json_object_get(s, "notes"), "k")), 7);
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_array_get(json_object_get(doc,
			    "suites"), 0), "notes"), "a")), "b");
	/* a value that could not be made is out of memory, and nothing is set */
	assert_int_equal(doc_note_all(doc, "none", NULL), -ENOMEM);
	assert_null(json_object_get(json_object_get(json_array_get(json_object_get(doc, "suites"), 1), "notes"), "none"));
	json_decref(doc);
}

/* A summary is what its samples give: show and export print the summary,
 * compare recomputes it, and a document where the two differ (issue 41:
 * mean 1e18 and n 1,000,000 over samples [590.9, 791.4]) is refused, as is
 * a value no machine measures; a summary rounded to 7 digits, or with a
 * figure not given (null), is accepted. */
static void summaries_checked(void **state)
{
	static const struct {
		const char *samples;
		int digits;           /* the summary stats_summarize gives, to this many digits */
		const char *key, *as; /* then summary.key set to the JSON as (NULL: left) */
		const char *msg;      /* NULL: accepted */
	} cases[] = {
		{ "[590.9, 791.4]", 17, NULL, NULL, NULL },
		{ "[590.9, 791.4]", 7, NULL, NULL, NULL },
		{ "[590.9, 791.4]", 17, "mean", "null", NULL },
		{ "[590.9, 791.4]", 17, "n", "1000000", "summary.n: 1000000, but there are 2 samples" },
		{ "[590.9, 791.4]", 17, "mean", "1e18", "summary.mean: 1e+18 is beyond what is plausible (at most 1e+13 1/s)" },
		{ "[590.9, 791.4]", 17, "mean", "1000", "summary.mean: 1000 is not what the samples give (691.15)" },
		{ "[590.9, 791.4]", 17, "median", "700", "summary.median: 700 is not what the samples give (691.15)" },
		{ "[590.9, 791.4]", 17, "stddev", "1.5", "summary.stddev: 1.5 is not what the samples give (141.77" },
		{ "[590.9, 791.4]", 17, "min", "590", "summary.min: 590 is not what the samples give (590.9)" },
		{ "[590.9, 791.4]", 17, "max", "791.5", "summary.max: 791.5 is not what the samples give (791.4)" },
		{ "[590.9, 791.4]", 17, "cv", "0.5", "summary.cv: 0.5 is not what the samples give (0.205" },
		/* an interval below its mean printed "±-100.0%" */
		{ "[590.9, 791.4]", 17, "ci95_high", "0", "summary.ci95_high: 0 is not what the samples give" },
		{ "[590.9, 791.4]", 17, "ci95_low", "-1e300", "summary.ci95_low: -1e+300 is not what the samples give" },
		{ "[1e308, 1e308]", 17, NULL, NULL, "samples[0]: 1e+308 is beyond what is plausible (at most 1e+13 1/s)" },
		{ "[9e12, 9.5e12]", 17, NULL, NULL, NULL },
		{ "[]", 17, NULL, NULL, NULL },
		{ "[5]", 17, NULL, NULL, NULL },
		{ "[5]", 17, "ci95_low", "4", "summary.ci95_low: 4 is not what the samples give (5)" },
		/* a mean of all but 0: the cv says nothing checkable */
		{ "[0, 0]", 17, "cv", "123", NULL },
		/* a null sample (not finite when measured): no mean, no interval */
		{ "[590.9, null]", 17, "mean", "null", NULL },
		{ "[590.9, null]", 17, "mean", "590.9", "summary.mean: 590.9, but a sample is null: the samples have no mean" },
		{ "[590.9, null]", 17, "max", "1e6", "summary.max: 1e+06 is outside the samples' range [590.9, 590.9]" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *doc = fixture_doc(), *m, *samples = json_loads(cases[i].samples, 0, NULL), *sum, *x;
		struct stats_summary st;
		double v[4];
		size_t nv = 0, k;
		char err[256] = "", num[40];
		int r;

		assert_non_null(samples);
		m = json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(
			json_array_get(json_object_get(doc, "suites"), 0), "tests"), 0), "cases"), 0), "metrics"), 0);
		assert_string_equal(json_string_value(json_object_get(m, "name")), "events_per_s");
		json_array_foreach(samples, k, x)
			if (json_is_number(x))
				v[nv++] = json_number_value(x);
		stats_summarize(v, nv, &st);
		/* the summary as the document writes it, each figure to `digits` */
		sum = json_pack("{s:I}", "n", (json_int_t)json_array_size(samples));
		{
			const struct {
				const char *key;
				double x;
			} f[] = { { "mean", st.mean }, { "median", st.median }, { "stddev", st.stddev }, { "cv", st.cv },
				  { "min", st.min }, { "max", st.max }, { "ci95_low", st.ci95_low },
				  { "ci95_high", st.ci95_high } };

			for (k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
				snprintf(num, sizeof(num), "%.*g", cases[i].digits, f[k].x);
				json_object_set_new(sum, f[k].key, nv == json_array_size(samples) ?
								   json_real(strtod(num, NULL)) : json_null());
			}
			if (nv < json_array_size(samples)) { /* min, max, median of the others */
				json_object_set_new(sum, "min", json_real(st.min));
				json_object_set_new(sum, "max", json_real(st.max));
			}
		}
		if (cases[i].key)
			json_object_set_new(sum, cases[i].key, json_loads(cases[i].as, JSON_DECODE_ANY, NULL));
		json_object_set_new(m, "samples", samples);
		json_object_set_new(m, "summary", sum);
		r = doc_validate(doc, err, sizeof(err));
		if (cases[i].msg ? r != -EINVAL || !strstr(err, cases[i].msg) : r != 0)
			fail_msg("case %zu (%s, %s %s): %d \"%s\"", i, cases[i].samples, cases[i].key ? cases[i].key : "-",
				 cases[i].as ? cases[i].as : "", r, err);
		json_decref(doc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(built_values),
		cmocka_unit_test(round_trip),
		cmocka_unit_test(invalid_documents),
		cmocka_unit_test(failures),
		cmocka_unit_test(utf8_cases),
		cmocka_unit_test(build_refuses_non_utf8),
		cmocka_unit_test(timestamps),
		cmocka_unit_test(old_documents_load),
		cmocka_unit_test(note_all),
		cmocka_unit_test(summaries_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
