/* Importers on real outputs of fio, iperf3 and sysbench made on this
 * project's machine (tests/fixtures/import), and on malformed input. */
#include <errno.h>
#include <string.h>

#include "test.h"
#include "../../src/store/import.h"

static json_t *import_file(const char *file, const char **tool)
{
	char path[512], err[512];
	char *text;
	json_t *doc = NULL;

	snprintf(path, sizeof(path), "%s/import/%s", FIXTURES, file);
	assert_int_equal(read_file(path, &text), 0);
	if (import_parse(text, file, NULL, &doc, tool, err, sizeof(err)) < 0)
		fail_msg("%s: %s", file, err);
	free(text);
	return doc;
}

/* The value of metric `name` in the first case of suites[0].tests[0]. */
static double first(const json_t *doc, const char *name, const char **unit)
{
	json_t *c = json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(doc, "suites"), 0),
		"tests"), 0), "cases"), 0), *m;
	size_t i;

	json_array_foreach(json_object_get(c, "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")), name)) {
			*unit = json_string_value(json_object_get(m, "unit"));
			return json_number_value(json_object_get(json_object_get(m, "summary"), "mean"));
		}
	fail_msg("no metric %s", name);
	return 0;
}

static void formats(void **state)
{
	static const struct {
		const char *file, *tool, *suite, *test, *metric, *unit;
		double value, tol;
	} cases[] = {
		{ "sysbench-cpu.txt", "sysbench-cpu", "cpu", "prime", "events_per_s", "1/s", 8961.59, 1e-9 },
		{ "sysbench-memory.txt", "sysbench-memory", "mem", "sysbench_memory", "mb_per_s", "MB/s",
		  31085.12 * 1.048576, 1e-6 },
		{ "fio-randread.json", "fio", "disk", "randread", "iops", "1/s", 0, 0 },
		{ "fio-randrw.json", "fio", "disk", "randrw", "read_iops", "1/s", 0, 0 },
		{ "iperf3-tcp.json", "iperf3", "net", "tcp_stream", "mbit_per_s", "Mbit/s", 0, 0 },
		{ "iperf3-udp.json", "iperf3", "net", "udp_stream", "mbit_per_s", "Mbit/s", 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *tool, *unit = NULL;
		json_t *doc = import_file(cases[i].file, &tool);
		json_t *s = json_array_get(json_object_get(doc, "suites"), 0);
		double v = first(doc, cases[i].metric, &unit);

		assert_string_equal(tool, cases[i].tool);
		assert_string_equal(json_string_value(json_object_get(s, "name")), cases[i].suite);
		assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(s, "tests"), 0), "name")),
				    cases[i].test);
		assert_string_equal(unit, cases[i].unit);
		assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "labels"), "source")), cases[i].tool);
		if (cases[i].tol)
			assert_close(v, cases[i].value, cases[i].tol * cases[i].value);
		else
			assert_true(v > 0);
		json_decref(doc);
	}
}

static void exact_values(void **state)
{
	const char *tool, *unit;
	json_t *doc = import_file("fio-randread.json", &tool), *c;
	char path[512], *text;
	json_t *raw;

	(void)state;
	/* the same numbers as fio's own JSON */
	snprintf(path, sizeof(path), "%s/import/fio-randread.json", FIXTURES);
	assert_int_equal(read_file(path, &text), 0);
	raw = json_loads(text, 0, NULL);
	free(text);
	assert_close(first(doc, "iops", &unit),
		     json_number_value(json_object_get(json_object_get(json_array_get(json_object_get(raw, "jobs"), 0), "read"), "iops")),
		     1e-9);
	c = json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(doc, "suites"), 0),
		"tests"), 0), "cases"), 0);
	/* the parameters vmbench's disk.randread records */
	assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "params"), "iodepth")), 8);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "params"), "bs")), 4096);
	assert_true(json_is_false(json_object_get(json_object_get(c, "params"), "buffered")));
	json_decref(raw);
	json_decref(doc);
	/* iperf3: one sample per interval */
	doc = import_file("iperf3-tcp.json", &tool);
	c = json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(doc, "suites"), 0),
		"tests"), 0), "cases"), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_array_get(json_object_get(c, "metrics"), 0),
		"summary"), "n")), 3);
	json_decref(doc);
}

static void malformed(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "{\"fio version\": \"fio-3.33\", \"jobs\": [", "not valid JSON at line 1" },
		{ "{\"fio version\": \"fio-3.33\"}", "jobs: missing" },
		{ "{\"fio version\": \"x\", \"jobs\": [{\"job options\": {\"rw\": \"randread\"}, \"read\": {\"bw_bytes\": 1, "
		  "\"lat_ns\": {\"mean\": 1}}}]}", "jobs[0].read.iops: missing" },
		{ "{\"fio version\": \"x\", \"jobs\": [{\"job options\": {\"rw\": \"trim\"}}]}", "'trim' has no vmbench counterpart" },
		{ "{\"fio version\": \"x\", \"jobs\": [{\"job options\": {\"rw\": \"read\", \"bs\": \"4q\"}}]}", "'4q' is not a size" },
		{ "{\"start\": {}, \"intervals\": [], \"end\": {}, \"error\": \"unable to connect\"}", "unable to connect" },
		{ "{\"start\": {\"test_start\": {}}, \"intervals\": [], \"end\": {}}", "start.test_start.protocol: missing" },
		{ "sysbench 1.0.20\nNumber of threads: 1\nPrime numbers limit: 10000\nCPU speed:\n    events per second: abc\n",
		  "line 5: expected a number after 'events per second:'" },
		{ "sysbench 1.0.20\nNumber of threads: 1\nCPU speed:\n", "no line with 'Prime numbers limit:'" },
		{ "{\"something\": 1}", "neither fio's" },
		{ "hello", "not a format vmbench imports" },
	};
	char err[512];
	const char *tool;
	json_t *doc;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		if (import_parse(cases[i].text, "in", NULL, &doc, &tool, err, sizeof(err)) != -EINVAL)
			fail_msg("case %zu accepted", i);
		if (!strstr(err, cases[i].msg))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err, cases[i].msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(formats),
		cmocka_unit_test(exact_values),
		cmocka_unit_test(malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
