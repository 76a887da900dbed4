/* Importers on real outputs of fio, iperf3 and sysbench made on this
 * project's machine (tests/fixtures/import: several jobs, group_reporting,
 * json+, psync/libaio/io_uring, randrw; iperf3 -P, -R, --bidir, -u;
 * sysbench cpu with threads, memory with each operation), and on malformed
 * input. The imported headline must equal the tool's own summary figure. */
#include <errno.h>
#include <string.h>

#include "test.h"
#include "../../src/store/doc.h"
#include "../../src/store/import.h"

static char *fixture(const char *file)
{
	char path[512], *text;

	snprintf(path, sizeof(path), "%s/import/%s", FIXTURES, file);
	assert_int_equal(read_file(path, &text), 0);
	return text;
}

static struct import_result import_text(const char *text, const char *name)
{
	struct import_result res = { 0 };
	char err[1024];

	if (import_parse(text, name, NULL, &res, err, sizeof(err)) < 0)
		fail_msg("%s: %s", name, err);
	return res;
}

static struct import_result import_file(const char *file)
{
	char *text = fixture(file);
	struct import_result res = import_text(text, file);

	free(text);
	return res;
}

/* The raw JSON of a fixture, after the lines fio printed before it. */
static json_t *raw_json(const char *file)
{
	char *text = fixture(file), *p = text;
	json_t *j;

	while (*p && *p != '{')
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p);
	j = json_loads(p, JSON_DISABLE_EOF_CHECK, NULL);
	free(text);
	assert_non_null(j);
	return j;
}

/* A value at a dotted path ("jobs.1.read.iops"); array items by number. */
static double raw_at(const json_t *j, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
		j = json_is_array(j) ? json_array_get(j, strtoul(k, NULL, 10)) : json_object_get(j, k);
	if (!json_is_number(j))
		fail_msg("no number at %s", path);
	return json_number_value(j);
}

/* The case of suite.test whose params include every key of `params`. */
static json_t *find_case(const json_t *doc, const char *suite, const char *test, const char *params, size_t *ncases)
{
	json_t *want = json_loads(params, 0, NULL), *s, *t, *c, *found = NULL;
	size_t i, j, k;

	assert_non_null(want);
	*ncases = 0;
	json_array_foreach(json_object_get(doc, "suites"), i, s) {
		if (strcmp(json_string_value(json_object_get(s, "name")), suite))
			continue;
		json_array_foreach(json_object_get(s, "tests"), j, t) {
			if (strcmp(json_string_value(json_object_get(t, "name")), test))
				continue;
			*ncases = json_array_size(json_object_get(t, "cases"));
			json_array_foreach(json_object_get(t, "cases"), k, c) {
				const char *key;
				json_t *v;
				bool all = true;

				json_object_foreach(want, key, v)
					all &= json_equal(v, json_object_get(json_object_get(c, "params"), key));
				if (all && !found)
					found = c;
			}
		}
	}
	json_decref(want);
	return found;
}

static json_t *find_metric(const json_t *c, const char *name)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(c, "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")), name))
			return m;
	return NULL;
}

static void formats(void **state)
{
	static const struct {
		const char *file, *tool, *suite, *test, *params, *metric;
		bool headline;
		const char *raw;        /* the tool's figure in its JSON ... */
		double scale;           /* ... times this */
		double printed, prec;   /* or as the tool printed it, to its precision */
		size_t ncases;          /* cases of that test; 0: not checked */
		unsigned skipped;
	} cases[] = {
		/* fio: the headline is fio's own iops (MB/s for sequential) */
		{ "fio-randread.json", "fio", "disk", "randread", "{\"iodepth\": 8, \"bs\": 4096, \"buffered\": false}",
		  "iops", true, "jobs.0.read.iops", 1, 0, 0, 1, 0 },
		{ "fio-randrw.json", "fio", "disk", "randrw", "{}", "read_iops", false, "jobs.0.read.iops", 1, 0, 0, 1, 0 },
		{ "fio-multijob.json", "fio", "disk", "randread", "{\"bs\": 4096}", "iops", true, "jobs.0.read.iops", 1, 0, 0,
		  2, 2 },
		{ "fio-multijob.json", "fio", "disk", "randread", "{\"bs\": 16384}", "iops", true, "jobs.1.read.iops", 1, 0,
		  0, 2, 2 },
		{ "fio-multijob.json", "fio", "disk", "randwrite", "{\"bs\": 4096}", "iops", true, "jobs.2.write.iops", 1, 0,
		  0, 1, 2 },
		{ "fio-group.json", "fio", "disk", "randread", "{\"jobs\": 2}", "iops", true, "jobs.0.read.iops", 1, 0, 0, 1,
		  0 },
		{ "fio-jsonplus.json", "fio", "disk", "randread", "{\"iodepth\": 1}", "iops", true, "jobs.0.read.iops", 1, 0,
		  0, 1, 0 },
		{ "fio-libaio.json", "fio", "disk", "randread", "{\"iodepth\": 8, \"buffered\": false}", "iops", true,
		  "jobs.0.read.iops", 1, 0, 0, 1, 0 },
		{ "fio-iouring.json", "fio", "disk", "randread", "{\"iodepth\": 8}", "latency", false,
		  "jobs.0.read.lat_ns.mean", 1, 0, 0, 1, 0 },
		{ "fio-randrw-libaio.json", "fio", "disk", "randrw", "{\"rwmix\": 70, \"iodepth\": 4}", "write_iops", false,
		  "jobs.0.write.iops", 1, 0, 0, 1, 0 },
		{ "fio-seqread.json", "fio", "disk", "seqread", "{\"seq-bs\": 131072}", "mb_per_s", true,
		  "jobs.0.read.bw_bytes", 1e-6, 0, 0, 1, 0 },
		{ "fio-warning.json", "fio", "disk", "randread", "{\"iodepth\": 8}", "iops", true, "jobs.0.read.iops", 1, 0,
		  0, 1, 1 },
		/* iperf3: the receiver's figure is the headline, the sender's beside it */
		{ "iperf3-tcp.json", "iperf3", "net", "tcp_stream", "{}", "mbit_per_s", true,
		  "end.sum_received.bits_per_second", 1e-6, 0, 0, 1, 0 },
		{ "iperf3-tcp-1.json", "iperf3", "net", "tcp_stream", "{\"streams\": 1, \"reverse\": false, \"bidir\": false}",
		  "mbit_per_s", true, "end.sum_received.bits_per_second", 1e-6, 0, 0, 1, 0 },
		{ "iperf3-tcp-1.json", "iperf3", "net", "tcp_stream", "{}", "sender_mbit_per_s", false,
		  "end.sum_sent.bits_per_second", 1e-6, 0, 0, 1, 0 },
		{ "iperf3-tcp-1.json", "iperf3", "net", "tcp_stream", "{}", "retransmits", false, "end.sum_sent.retransmits",
		  1, 0, 0, 1, 0 },
		{ "iperf3-tcp-P2.json", "iperf3", "net", "tcp_stream", "{\"streams\": 2}", "mbit_per_s", true,
		  "end.sum_received.bits_per_second", 1e-6, 0, 0, 1, 0 },
		{ "iperf3-tcp-R.json", "iperf3", "net", "tcp_stream", "{\"reverse\": true, \"bidir\": false}", "mbit_per_s",
		  true, "end.sum_received.bits_per_second", 1e-6, 0, 0, 1, 0 },
		{ "iperf3-tcp-bidir.json", "iperf3", "net", "tcp_stream", "{\"reverse\": false, \"bidir\": true}",
		  "mbit_per_s", true, "end.sum_received.bits_per_second", 1e-6, 0, 0, 2, 0 },
		{ "iperf3-tcp-bidir.json", "iperf3", "net", "tcp_stream", "{\"reverse\": true, \"bidir\": true}",
		  "mbit_per_s", true, "end.sum_received_bidir_reverse.bits_per_second", 1e-6, 0, 0, 2, 0 },
		{ "iperf3-tcp-bidir.json", "iperf3", "net", "tcp_stream", "{\"reverse\": true, \"bidir\": true}",
		  "sender_mbit_per_s", false, "end.sum_sent_bidir_reverse.bits_per_second", 1e-6, 0, 0, 2, 0 },
		{ "iperf3-udp.json", "iperf3", "net", "udp", "{}", "mbit_per_s", true, "end.sum_received.bits_per_second", 1e-6,
		  0, 0, 1, 0 },
		{ "iperf3-udp-1.json", "iperf3", "net", "udp", "{\"rate\": 50, \"udp-size\": 32768}", "mbit_per_s", true,
		  "end.sum_received.bits_per_second", 1e-6, 0, 0, 1, 0 },
		{ "iperf3-udp-1.json", "iperf3", "net", "udp", "{}", "jitter", false, "end.sum_received.jitter_ms",
		  1e6, 0, 0, 1, 0 },
		{ "iperf3-udp-1.json", "iperf3", "net", "udp", "{}", "lost_pct", false,
		  "end.sum_received.lost_percent", 1, 0, 0, 1, 0 },
		{ "iperf3-udp-P2.json", "iperf3", "net", "udp", "{\"streams\": 2}", "mbit_per_s", true,
		  "end.sum_received.bits_per_second", 1e-6, 0, 0, 1, 0 },
		{ "iperf3-udp-bidir.json", "iperf3", "net", "udp", "{\"reverse\": true, \"bidir\": true}", "jitter",
		  false, "end.sum_received_bidir_reverse.jitter_ms", 1e6, 0, 0, 2, 0 },
		/* sysbench: the figures as printed */
		{ "sysbench-cpu.txt", "sysbench-cpu", "cpu", "prime", "{\"max-prime\": 10000}", "events_per_s", true, NULL,
		  0, 8961.59, 0.005, 1, 0 },
		{ "sysbench-cpu-t2.txt", "sysbench-cpu", "cpu", "prime", "{\"threads\": 2, \"max-prime\": 10000}",
		  "events_per_s", true, NULL, 0, 2995.79, 0.005, 1, 0 },
		{ "sysbench-cpu-t2.txt", "sysbench-cpu", "cpu", "prime", "{}", "latency", false, NULL, 0, 0.66e6, 0.005e6, 1,
		  0 },
		{ "sysbench-memory.txt", "sysbench-memory", "mem", "sysbench_memory",
		  "{\"oper\": \"write\", \"block-size\": 1048576, \"total-size\": 2147483648, \"scope\": \"global\"}",
		  "mb_per_s", true, NULL, 0, 31085.12 * 1.048576, 0.005 * 1.048576, 1, 0 },
		{ "sysbench-memory.txt", "sysbench-memory", "mem", "sysbench_memory", "{}", "ops_per_s", false, NULL, 0,
		  31085.12, 0.005, 1, 0 },
		{ "sysbench-mem-read-seq-1K.txt", "sysbench-memory", "mem", "sysbench_memory",
		  "{\"oper\": \"read\", \"block-size\": 1024, \"threads\": 1}", "mb_per_s", true, NULL, 0,
		  4980.40 * 1.048576, 0.005 * 1.048576, 1, 0 },
		{ "sysbench-mem-read-seq-1K.txt", "sysbench-memory", "mem", "sysbench_memory", "{}", "ops_per_s", false,
		  NULL, 0, 5099929.81, 0.005, 1, 0 },
		{ "sysbench-mem-write-rnd-1M.txt", "sysbench-memory", "mem", "sysbench_memory",
		  "{\"oper\": \"write\", \"block-size\": 1048576}", "mb_per_s", true, NULL, 0, 3413.29 * 1.048576,
		  0.005 * 1.048576, 1, 0 },
		{ "sysbench-mem-none-seq-4K.txt", "sysbench-memory", "mem", "sysbench_memory",
		  "{\"oper\": \"none\", \"block-size\": 4096, \"threads\": 2}", "ops_per_s", true, NULL, 0, 13956695.77,
		  0.005, 1, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct import_result res = import_file(cases[i].file);
		size_t n;
		json_t *c = find_case(res.doc, cases[i].suite, cases[i].test, cases[i].params, &n), *m;
		double got, want;

		if (!c)
			fail_msg("row %zu: %s: no %s.%s case with %s", i, cases[i].file, cases[i].suite, cases[i].test,
				 cases[i].params);
		m = find_metric(c, cases[i].metric);
		if (!m)
			fail_msg("row %zu: %s: no metric %s", i, cases[i].file, cases[i].metric);
		assert_string_equal(res.tool, cases[i].tool);
		assert_string_equal(json_string_value(json_object_get(json_object_get(res.doc, "labels"), "source")),
				    cases[i].tool);
		if (cases[i].ncases && n != cases[i].ncases)
			fail_msg("row %zu: %s: %zu cases of %s, expected %zu", i, cases[i].file, n, cases[i].test,
				 cases[i].ncases);
		if (json_is_true(json_object_get(m, "headline")) != cases[i].headline)
			fail_msg("row %zu: %s: %s headline is %d", i, cases[i].file, cases[i].metric, !cases[i].headline);
		if (res.skipped != cases[i].skipped)
			fail_msg("row %zu: %s: skipped %u lines, expected %u", i, cases[i].file, res.skipped,
				 cases[i].skipped);
		got = json_number_value(json_array_get(json_object_get(m, "samples"), 0));
		assert_int_equal(json_array_size(json_object_get(m, "samples")), 1);
		if (cases[i].raw) {
			json_t *raw = raw_json(cases[i].file);

			want = raw_at(raw, cases[i].raw) * cases[i].scale;
			json_decref(raw);
			assert_close(got, want, 1e-9 * fabs(want));
		} else {
			assert_close(got, cases[i].printed, cases[i].prec);
		}
		json_decref(res.doc);
	}
}

/* Several jobs of one test: every case keeps its own fio percentiles (they
 * were keyed by a case's address, which moves when the case array grows). */
static void multijob_histograms(void **state)
{
	static const struct {
		const char *test, *params, *raw;
	} cases[] = {
		{ "randread", "{\"bs\": 4096}", "jobs.0.read.clat_ns.percentile" },
		{ "randread", "{\"bs\": 16384}", "jobs.1.read.clat_ns.percentile" },
		{ "randwrite", "{\"bs\": 4096}", "jobs.2.write.clat_ns.percentile" },
	};
	struct import_result res = import_file("fio-multijob.json");
	json_t *raw = raw_json("fio-multijob.json");

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n;
		json_t *c = find_case(res.doc, "disk", cases[i].test, cases[i].params, &n);
		json_t *h = json_object_get(find_metric(c, "latency"), "histogram");
		if (!h)
			fail_msg("case %zu (%s %s) has no histogram", i, cases[i].test, cases[i].params);
		/* the dotted path would split "99.000000": the last keys directly */
		{
			char obj[128];
			const json_t *pct;

			snprintf(obj, sizeof(obj), "%s", cases[i].raw);
			pct = raw;
			for (char *save = NULL, *k = strtok_r(obj, ".", &save); k; k = strtok_r(NULL, ".", &save))
				pct = json_is_array(pct) ? json_array_get(pct, strtoul(k, NULL, 10)) : json_object_get(pct, k);
			assert_close(json_number_value(json_object_get(json_object_get(h, "percentiles"), "p99")),
				     json_number_value(json_object_get(pct, "99.000000")), 0);
			assert_close(json_number_value(json_object_get(json_object_get(h, "percentiles"), "p50")),
				     json_number_value(json_object_get(pct, "50.000000")), 0);
		}
		assert_string_equal(json_string_value(json_object_get(h, "source")), "fio clat percentiles");
	}
	json_decref(raw);
	json_decref(res.doc);
}

/* fio json+: its bins become the histogram's buckets, every count kept. */
static void jsonplus_buckets(void **state)
{
	struct import_result res = import_file("fio-jsonplus.json");
	json_t *raw = raw_json("fio-jsonplus.json"), *bins, *h, *b, *x;
	json_int_t want = 0, got = 0, prev = -1;
	const char *k;
	size_t n, i;

	(void)state;
	bins = json_object_get(json_object_get(json_object_get(json_array_get(json_object_get(raw, "jobs"), 0), "read"),
					       "clat_ns"), "bins");
	assert_true(json_object_size(bins) > 10);
	json_object_foreach(bins, k, x)
		want += json_integer_value(x);
	h = json_object_get(find_metric(find_case(res.doc, "disk", "randread", "{}", &n), "latency"), "histogram");
	assert_int_equal(json_integer_value(json_object_get(h, "sub_buckets")), 64);
	json_array_foreach(json_object_get(h, "buckets"), i, b) {
		assert_true(json_integer_value(json_array_get(b, 0)) > prev);
		prev = json_integer_value(json_array_get(b, 0));
		got += json_integer_value(json_array_get(b, 1));
	}
	assert_true(want > 0);
	assert_int_equal(got, want);
	/* plain json has no bins: no buckets */
	json_decref(res.doc);
	res = import_file("fio-randread.json");
	h = json_object_get(find_metric(find_case(res.doc, "disk", "randread", "{}", &n), "latency"), "histogram");
	assert_int_equal(json_array_size(json_object_get(h, "buckets")), 0);
	json_decref(res.doc);
	json_decref(raw);
}

/* The I/O engine of each fio shape, noted as the disk suite notes its own. */
static void fio_engines(void **state)
{
	static const struct {
		const char *file, *engine;
	} cases[] = {
		{ "fio-multijob.json", "psync" }, { "fio-libaio.json", "libaio" }, { "fio-iouring.json", "io_uring" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct import_result res = import_file(cases[i].file);
		json_t *notes = json_object_get(json_array_get(json_object_get(res.doc, "suites"), 0), "notes");

		assert_string_equal(json_string_value(json_object_get(notes, "engine")), cases[i].engine);
		json_decref(res.doc);
	}
}

/* fio output as users save it: with a byte-order mark, with lines before. */
static void saved_as_users_do(void **state)
{
	char *text = fixture("fio-randread.json"), *bom;
	struct import_result res;
	size_t n = strlen(text);

	(void)state;
	bom = malloc(n + 4);
	assert_non_null(bom);
	memcpy(bom, "\xEF\xBB\xBF", 3);
	memcpy(bom + 3, text, n + 1);
	res = import_text(bom, "bom.json");
	assert_string_equal(res.tool, "fio");
	assert_int_equal(res.skipped, 0);
	json_decref(res.doc);
	free(bom);
	free(text);
	/* warnings before and after the JSON (stderr into the same file) */
	text = fixture("fio-warning.json");
	n = strlen(text);
	bom = malloc(n + 64);
	assert_non_null(bom);
	snprintf(bom, n + 64, "%sfio: file hash not empty on exit\n", text);
	res = import_text(bom, "w.json");
	assert_int_equal(res.skipped, 2);
	json_decref(res.doc);
	free(bom);
	free(text);
}

/* vmbench's own documents: taken whole, validated like any other import. */
static void vmbench_documents(void **state)
{
	struct import_result a = import_file("fio-multijob.json"), b;
	struct strv labels = { 0 };
	char *text, err[1024];
	json_t *h;

	(void)state;
	text = json_dumps(a.doc, JSON_INDENT(2));
	assert_int_equal(strv_push(&labels, "from=colleague"), 0);
	assert_int_equal(import_parse(text, "colleague.json", &(struct import_opts){ .labels = &labels }, &b, err,
				      sizeof(err)), 0);
	assert_string_equal(b.tool, "vmbench");
	assert_string_equal(json_string_value(json_object_get(b.doc, "id")), json_string_value(json_object_get(a.doc, "id")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(b.doc, "labels"), "from")), "colleague");
	assert_string_equal(json_string_value(json_object_get(json_object_get(b.doc, "labels"), "source")), "fio");
	json_object_del(json_object_get(b.doc, "labels"), "from");
	assert_true(json_equal(a.doc, b.doc));
	json_decref(b.doc);
	free(text);
	/* a percentile that is not a number: refused, with its path */
	h = json_object_get(find_metric(json_array_get(json_object_get(json_array_get(json_object_get(
		json_array_get(json_object_get(a.doc, "suites"), 0), "tests"), 0), "cases"), 0), "latency"), "histogram");
	assert_non_null(h);
	json_object_set_new(json_object_get(h, "percentiles"), "p99", json_string("slow"));
	text = json_dumps(a.doc, 0);
	assert_int_equal(import_parse(text, "bad.json", NULL, &b, err, sizeof(err)), -EINVAL);
	if (!strstr(err, "bad.json: vmbench: suites[0].tests[0].cases[0].metrics[2].histogram.percentiles.p99: expected a number"))
		fail_msg("%s", err);
	free(text);
	strv_clear(&labels);
	json_decref(a.doc);
}

/* fio percentiles that are not numbers, down to a 2,040-deep array: never stored. */
static void hostile_percentiles(void **state)
{
	static const char head[] = "{\"fio version\": \"x\", \"jobs\": [{\"job options\": {\"rw\": \"randread\"}, "
				   "\"read\": {\"iops\": 1, \"bw_bytes\": 1, \"total_ios\": 1, \"lat_ns\": {\"min\": 1, "
				   "\"max\": 1, \"mean\": 1, \"stddev\": 0}, \"clat_ns\": {\"percentile\": "
				   "{\"99.000000\": ";
	static const char tail[] = "}}}}]}";
	static const char *const values[] = { "\"12\"", "[1, 2]", "null", "-3", NULL /* 2,040 deep */ };
	char buf[8192], err[1024];
	struct import_result res;

	(void)state;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		if (values[i]) {
			snprintf(buf, sizeof(buf), "%s%s%s", head, values[i], tail);
		} else {
			size_t off = (size_t)snprintf(buf, sizeof(buf), "%s", head);

			for (int d = 0; d < 2040; d++)
				buf[off++] = '[';
			for (int d = 0; d < 2040; d++)
				buf[off++] = ']';
			snprintf(buf + off, sizeof(buf) - off, "%s", tail);
		}
		assert_int_equal(import_parse(buf, "p.json", NULL, &res, err, sizeof(err)), -EINVAL);
		if (!strstr(err, "p.json: fio: jobs[0].read.clat_ns.percentile.\"99.000000\": expected a latency in ns"))
			fail_msg("value %zu: %s", i, err);
	}
}

static void malformed(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "{\"fio version\": \"fio-3.33\", \"jobs\": [", "not valid JSON at line 1" },
		{ "job: (g=0): rw=read\n{\"fio version\": \"fio-3.33\",\n \"jobs\": [", "not valid JSON at line 3" },
		{ "{\"fio version\": \"fio-3.33\"}", "jobs: missing" },
		{ "{\"fio version\": \"x\", \"jobs\": [{\"job options\": {\"rw\": \"randread\"}, \"read\": {\"bw_bytes\": 1, "
		  "\"lat_ns\": {\"mean\": 1}}}]}", "in: fio: jobs[0].read.iops: missing" },
		{ "{\"fio version\": \"x\", \"jobs\": [{\"job options\": {\"rw\": \"randread\"}, \"read\": {\"bw_bytes\": 1, "
		  "\"iops\": 1, \"lat_ns\": {}}}]}", "in: fio: jobs[0].read.lat_ns.mean: missing" },
		{ "{\"fio version\": \"x\", \"jobs\": [{\"job options\": {\"rw\": \"randread\"}, \"read\": {\"bw_bytes\": 1, "
		  "\"iops\": -5, \"lat_ns\": {\"mean\": 1}}}]}", "jobs[0].read.iops: -5 is not a measured value" },
		{ "{\"fio version\": \"x\", \"jobs\": [{\"job options\": {\"rw\": \"randread\", \"numjobs\": \"-2\"}}]}",
		  "numjobs: '-2' is not a whole number" },
		{ "{\"fio version\": \"x\", \"jobs\": [{\"job options\": {\"rw\": \"trim\"}}]}", "'trim' has no vmbench counterpart" },
		{ "{\"fio version\": \"x\", \"jobs\": [{\"job options\": {\"rw\": \"read\", \"bs\": \"4q\"}}]}", "'4q' is not a size" },
		{ "{\"fio version\": \"x\", \"jobs\": [{\"job options\": {\"rw\": \"read\"}, \"read\": {\"bw_bytes\": 1, "
		  "\"iops\": 1, \"total_ios\": 1, \"lat_ns\": {\"mean\": 1}, \"clat_ns\": {\"min\": 1, \"max\": 1, "
		  "\"mean\": 1, \"stddev\": 0, \"percentile\": {}, \"bins\": {\"12ms\": 1}}}}]}",
		  "jobs[0].read.clat_ns.bins.\"12ms\": expected a latency in ns as the key" },
		{ "{\"fio version\": \"x\", \"jobs\": [{\"error\": 5, \"job options\": {\"rw\": \"read\"}}]}",
		  "jobs[0].error: fio reported error 5" },
		{ "{\"start\": {}, \"intervals\": [], \"end\": {}, \"error\": \"unable to connect\"}", "unable to connect" },
		{ "{\"start\": {\"test_start\": {}}, \"intervals\": [], \"end\": {}}", "start.test_start.protocol: missing" },
		{ "{\"start\": {\"test_start\": {\"protocol\": \"TCP\", \"num_streams\": -1}}, \"intervals\": [], \"end\": {}}",
		  "num_streams: -1 is not a number of streams" },
		{ "{\"start\": {\"test_start\": {\"protocol\": \"TCP\", \"num_streams\": 1}}, \"intervals\": [], \"end\": "
		  "{\"sum_sent\": {\"bits_per_second\": 1}}}", "end.sum_received: missing" },
		{ "{\"start\": {\"test_start\": {\"protocol\": \"TCP\", \"num_streams\": 1}}, \"intervals\": [], \"end\": "
		  "{\"sum_sent\": {\"bits_per_second\": 1}, \"sum_received\": {\"bits_per_second\": -1}}}",
		  "end.sum_received.bits_per_second: -1 is not a measured value" },
		{ "sysbench 1.0.20\nNumber of threads: 1\nPrime numbers limit: 10000\nCPU speed:\n    events per second: abc\n",
		  "line 5: expected a number after 'events per second:'" },
		/* plausibility: each figure within its documented bound, named by its path */
		{ "{\"start\": {\"test_start\": {\"protocol\": \"TCP\", \"num_streams\": 1}}, \"intervals\": [], \"end\": "
		  "{\"sum_sent\": {\"bits_per_second\": 1}, \"sum_received\": {\"bits_per_second\": 1e300}}}",
		  "iperf3: end.sum_received.bits_per_second: 1e+300 is beyond what is plausible (at most 10 Tbit/s" },
		{ "{\"start\": {\"test_start\": {\"protocol\": \"UDP\", \"num_streams\": 1}}, \"intervals\": [], \"end\": "
		  "{\"sum_received\": {\"bits_per_second\": 1e6, \"jitter_ms\": 0.1, \"lost_percent\": 5000}}}",
		  "iperf3: end.sum_received.lost_percent: 5000 is beyond what is plausible (at most 100%" },
		{ "{\"start\": {\"test_start\": {\"protocol\": \"TCP\", \"num_streams\": 1}}, \"intervals\": "
		  "[{\"sum\": {\"bits_per_second\": 1e6}}, {\"sum\": {\"bits_per_second\": 1e300}}], \"end\": "
		  "{\"sum_sent\": {\"bits_per_second\": 1}, \"sum_received\": {\"bits_per_second\": 1}}}",
		  "iperf3: intervals[1].sum.bits_per_second: 1e+300 is beyond what is plausible" },
		{ "{\"start\": {\"test_start\": {\"protocol\": \"TCP\", \"num_streams\": 1}}, \"intervals\": "
		  "[{\"sum\": {}}], \"end\": "
		  "{\"sum_sent\": {\"bits_per_second\": 1}, \"sum_received\": {\"bits_per_second\": 1}}}",
		  "iperf3: intervals[0].sum.bits_per_second: missing" },
		{ "{\"start\": {\"test_start\": {\"protocol\": \"UDP\", \"num_streams\": 1, \"target_bitrate\": -1}}, "
		  "\"intervals\": [], \"end\": {}}", "start.test_start.target_bitrate: expected a rate in bit/s" },
		{ "{\"fio version\": \"x\", \"jobs\": [{\"job options\": {\"rw\": \"randread\"}, \"read\": {\"bw_bytes\": 1, "
		  "\"iops\": 1e300, \"lat_ns\": {\"mean\": 1}}}]}",
		  "fio: jobs[0].read.iops: 1e+300 is beyond what is plausible (at most 10^9 IOPS" },
		{ "{\"fio version\": \"x\", \"jobs\": [{\"job options\": {\"rw\": \"read\"}, \"read\": {\"bw_bytes\": 2e12, "
		  "\"iops\": 1, \"lat_ns\": {\"mean\": 1}}}]}", "jobs[0].read.bw_bytes: 2e+12 is beyond what is plausible (at most 1 TB/s" },
		{ "{\"fio version\": \"x\", \"jobs\": [{\"job options\": {\"rw\": \"read\"}, \"read\": {\"bw_bytes\": 1, "
		  "\"iops\": 1, \"lat_ns\": {\"mean\": 1e20}}}]}", "jobs[0].read.lat_ns.mean: 1e+20 is beyond what is plausible (at most 1 hour" },
		{ "sysbench 1.0.20\nNumber of threads: 1\nPrime numbers limit: 10000\nCPU speed:\n    events per second: 1e300\n",
		  "line 5: 'events per second:' 1e+300 is beyond what is plausible (at most 10^10 events/s" },
		/* fio's error is an integer: "5" or 5.0 is no "no error" */
		{ "{\"fio version\": \"x\", \"jobs\": [{\"error\": \"5\", \"job options\": {\"rw\": \"read\"}}]}",
		  "jobs[0].error: expected fio's error number (an integer), not a string" },
		{ "{\"fio version\": \"x\", \"jobs\": [{\"error\": 5.0, \"job options\": {\"rw\": \"read\"}}]}",
		  "jobs[0].error: expected fio's error number (an integer), not a fraction" },
		/* json+ bins: their total is total_ios; sums that would wrap are refused, not an empty histogram */
		{ "{\"fio version\": \"x\", \"jobs\": [{\"job options\": {\"rw\": \"read\"}, \"read\": {\"bw_bytes\": 1, "
		  "\"iops\": 1, \"total_ios\": 2, \"lat_ns\": {\"mean\": 1}, \"clat_ns\": {\"min\": 1, \"max\": 1, "
		  "\"mean\": 1, \"stddev\": 0, \"percentile\": {}, \"bins\": {\"1000\": 9223372036854775807, "
		  "\"1001\": 9223372036854775807, \"1002\": 2}}}}]}",
		  "jobs[0].read.clat_ns.bins: the bins count more I/Os than total_ios (2)" },
		{ "{\"fio version\": \"x\", \"jobs\": [{\"job options\": {\"rw\": \"read\"}, \"read\": {\"bw_bytes\": 1, "
		  "\"iops\": 1, \"total_ios\": 5, \"lat_ns\": {\"mean\": 1}, \"clat_ns\": {\"min\": 1, \"max\": 1, "
		  "\"mean\": 1, \"stddev\": 0, \"percentile\": {}, \"bins\": {\"1000\": 3}}}}]}",
		  "jobs[0].read.clat_ns.bins: the bins count 3 I/Os, total_ios says 5" },
		{ "sysbench 1.0.20\nNumber of threads: 1\nCPU speed:\n", "no line with 'Prime numbers limit:'" },
		{ "sysbench 1.0.20\nNumber of threads: -2\nPrime numbers limit: 10000\nCPU speed:\n    events per second: 5\n",
		  "line 2: 'Number of threads:' -2 is out of range" },
		{ "sysbench 1.0.20\nNumber of threads: 1\nRunning memory speed test with the following options:\n"
		  "  block size: 1KiB\n  total size: 2048MiB\n  operation: write\n  scope: global\n"
		  "Total operations: 2048\n\n2048.00 MiB transferred (31085.12 MiB/sec)\n",
		  "line 8: 'Total operations:' has no '(N per second)' figure" },
		{ "sysbench 1.0.20\nNumber of threads: 1\nRunning memory speed test with the following options:\n"
		  "  block size: 1KiB\n  total size: 2048MiB\n  operation: read\n  scope: global\n"
		  "Total operations: 2048 (5.0 per second)\n", "no line with 'MiB transferred'" },
		{ "sysbench 1.0.20\nNumber of threads: 1\nRunning memory speed test with the following options:\n"
		  "  block size: 1KiB\n  total size: 2048MiB\n  operation: read\n  scope: global\n"
		  "Total operations: 2048 (5.0 per second)\n2048.00 MiB transferred\n(9.0 MiB/sec)\n",
		  "line 9: 'MiB transferred' has no '(N MiB/sec)' figure" },
		{ "sysbench 1.0.20\nNumber of threads: 1\nRunning memory speed test with the following options:\n"
		  "  block size: 1KiB\n  total size: 2048MiB\n  operation: copy\n  scope: global\n", "line 6: unknown value after 'operation:'" },
		{ "{\"something\": 1}", "JSON, but none that vmbench imports (fio --output-format=json (or json+), iperf3 -J" },
		{ "[1, 2]", "not a format vmbench imports" },
		/* the list derives from the table (a new row adds itself: format_list) */
		{ "hello", "not a format vmbench imports (fio --output-format=json (or json+), iperf3 -J (TCP or UDP, -P, -R, "
			   "--bidir), a vmbench result document (vmbench run --json), sysbench cpu run output" },
	};
	char err[1024];
	struct import_result res;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		if (import_parse(cases[i].text, "in", NULL, &res, err, sizeof(err)) != -EINVAL)
			fail_msg("case %zu accepted", i);
		if (!strstr(err, cases[i].msg))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err, cases[i].msg);
	}
	/* real fio output of numjobs=2 without group_reporting: one job's figure is not two jobs' */
	{
		char *text = fixture("fio-numjobs-nogroup.json");

		assert_int_equal(import_parse(text, "ng.json", NULL, &res, err, sizeof(err)), -EINVAL);
		if (!strstr(err, "ng.json: fio: jobs[0]: numjobs=2 without group_reporting"))
			fail_msg("%s", err);
		free(text);
	}
}

/* iperf3 -u is net.udp, as vmbench's own UDP test: its params (rate in
 * Mbit/s, udp-size) and metric names, its intervals in the same case;
 * there is no "udp_stream" test that no suite has. */
static void udp_is_net_udp(void **state)
{
	struct import_result res = import_file("iperf3-udp.json");
	json_t *s = json_array_get(json_object_get(res.doc, "suites"), 0), *t, *c, *want;
	size_t i;

	(void)state;
	assert_string_equal(json_string_value(json_object_get(s, "name")), "net");
	assert_int_equal(json_array_size(json_object_get(s, "tests")), 1);
	t = json_array_get(json_object_get(s, "tests"), 0);
	assert_string_equal(json_string_value(json_object_get(t, "name")), "udp");
	assert_int_equal(json_array_size(json_object_get(t, "cases")), 1);
	c = json_array_get(json_object_get(t, "cases"), 0);
	want = json_pack("{s:i, s:i}", "rate", 100, "udp-size", 32768);
	if (!json_equal(json_object_get(c, "params"), want))
		fail_msg("params %s", json_dumps(json_object_get(c, "params"), 0));
	json_decref(want);
	{
		static const char *const names[] = { "mbit_per_s", "sender_mbit_per_s", "jitter", "lost_pct" };

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!find_metric(c, names[i]))
				fail_msg("no metric %s", names[i]);
	}
	assert_int_equal(json_array_size(json_object_get(find_metric(c, "interval_mbit_per_s"), "samples")), 3);
	json_decref(res.doc);
}

/* --param states what an output does not print, never what it does. */
static void unstated_params(void **state)
{
	static const struct {
		const char *file, *param, *access, *msg;
	} cases[] = {
		{ "sysbench-mem-write-rnd-1M.txt", NULL, "unstated", NULL },
		{ "sysbench-mem-write-rnd-1M.txt", "access=rnd", "rnd", NULL },
		{ "sysbench-mem-read-seq-1K.txt", "access=seq", "seq", NULL },
		{ "sysbench-memory.txt", "access=fast", NULL, "--param access=fast: expected access=seq|rnd" },
		{ "sysbench-memory.txt", "block-size=4", NULL,
		  "--param block-size=4: the parameter sysbench-memory output does not print is access" },
		{ "fio-randread.json", "access=rnd", NULL, "--param access=rnd: fio output states every parameter" },
	};
	char err[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = fixture(cases[i].file);
		struct strv params = { .v = (char *[]){ (char *)cases[i].param, NULL }, .n = cases[i].param ? 1 : 0 };
		struct import_result res = { 0 };
		int r = import_parse(text, cases[i].file, &(struct import_opts){ .params = &params }, &res, err, sizeof(err));

		free(text);
		if (cases[i].msg) {
			assert_int_equal(r, -EINVAL);
			if (!strstr(err, cases[i].msg))
				fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err, cases[i].msg);
			continue;
		}
		if (r < 0)
			fail_msg("case %zu: %s", i, err);
		{
			size_t n;
			json_t *c = find_case(res.doc, "mem", "sysbench_memory", "{}", &n);

			assert_string_equal(json_string_value(json_object_get(json_object_get(c, "params"), "access")),
					    cases[i].access);
		}
		json_decref(res.doc);
	}
}

/* The formats listed for help and messages are the table's rows. */
static void format_list(void **state)
{
	static const char *const tools[] = { "fio", "iperf3", "vmbench", "sysbench-cpu", "sysbench-memory", NULL };
	char list[1024];
	size_t i, n;

	(void)state;
	/* the formats known today, in this order; a new row comes after them */
	for (i = 0; tools[i]; i++) {
		assert_non_null(import_format_at(i));
		assert_string_equal(import_format_at(i)->tool, tools[i]);
	}
	/* every row named and described once, and in the message's list */
	import_formats_string(list, sizeof(list));
	for (n = 0; import_format_at(n); n++) {
		const struct import_format *f = import_format_at(n);

		assert_true(f->tool && *f->tool && f->input && *f->input);
		assert_non_null(strstr(list, f->input));
		for (size_t k = 0; k < n; k++)
			assert_string_not_equal(import_format_at(k)->tool, f->tool);
		assert_true(n < 64);
	}
	assert_true(n >= i);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(formats),
		cmocka_unit_test(multijob_histograms),
		cmocka_unit_test(jsonplus_buckets),
		cmocka_unit_test(fio_engines),
		cmocka_unit_test(saved_as_users_do),
		cmocka_unit_test(vmbench_documents),
		cmocka_unit_test(hostile_percentiles),
		cmocka_unit_test(malformed),
		cmocka_unit_test(unstated_params),
		cmocka_unit_test(udp_is_net_udp),
		cmocka_unit_test(format_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
