/* The run summary: numbers with k/M suffixes (never an exponent), sizes as
 * 4k or 256M, units scaled per line, and the lines of a small document. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "../../src/report/summary.h"

static void counts(void **state)
{
	static const struct {
		double v;
		const char *s;
	} cases[] = {
		{ 0, "0.000" }, { 0.5, "0.500" }, { 0.91, "0.910" }, { 0.9996, "1.00" }, { 2.5, "2.50" },
		{ 9.994, "9.99" }, { 9.996, "10.0" }, { 12.34, "12.3" }, { 99.96, "100" }, { 999, "999" },
		{ 999.4, "999" }, { 999.7, "1.00k" }, { 1000, "1.00k" }, { 21580, "21.6k" }, { 100478, "100k" },
		{ 999499, "999k" }, { 999500, "1.00M" }, { 2.5e6, "2.50M" }, { 3.2e9, "3.20G" }, { 4e12, "4.00T" },
		{ 5e15, "5000T" }, { -1500, "-1.50k" }, { 0.0004, "<0.001" }, { NAN, "-" }, { INFINITY, "-" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[32];

		summary_format_count(cases[i].v, buf, sizeof(buf));
		if (strcmp(buf, cases[i].s))
			fail_msg("summary_format_count(%g) = \"%s\", expected \"%s\"", cases[i].v, buf, cases[i].s);
		assert_null(strchr(buf, 'e')); /* never 2.158e+04 */
	}
}

static void sizes(void **state)
{
	static const struct {
		double v;
		const char *s;
	} cases[] = {
		{ 0, "0" }, { 100, "100" }, { 512, "512" }, { 1023, "1023" }, { 1024, "1k" }, { 1536, "1.5k" },
		{ 4096, "4k" }, { 65536, "64k" }, { 1 << 20, "1M" }, { 268435456, "256M" }, { 1ull << 30, "1G" },
		{ 3ull << 40, "3T" }, { -1, "-" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[32];

		summary_format_size(cases[i].v, buf, sizeof(buf));
		if (strcmp(buf, cases[i].s))
			fail_msg("summary_format_size(%g) = \"%s\", expected \"%s\"", cases[i].v, buf, cases[i].s);
	}
}

static void scales(void **state)
{
	static const struct {
		const char *metric, *unit;
		double largest;
		const char *label;
		double div;
	} cases[] = {
		{ "iops", "1/s", 100478, "IOPS", 1 },
		{ "events_per_s", "1/s", 21580, "events/s", 1 },
		{ "syncs_per_s", "1/s", 10, "syncs/s", 1 },
		{ "requests_per_s", "1/s", 10, "requests/s", 1 },
		{ "mb_per_s", "MB/s", 512, "MB/s", 1 },
		{ "mb_per_s", "MB/s", 999.6, "GB/s", 1000 },
		{ "read_mb_per_s", "MB/s", 3430, "GB/s", 1000 },
		{ "latency", "ns", 850, "ns", 1 },
		{ "latency", "ns", 85300, "µs", 1000 },
		{ "latency", "ns", 5.6e6, "ms", 1e6 },
		{ "latency", "ns", 2e9, "s", 1e9 },
		{ "latency", "ns", 2e13, "s", 1e9 },
		{ "gflops", "GFLOP/s", 3.2, "GFLOP/s", 1 },
		{ "throughput", "Mbit/s", 9400, "Gbit/s", 1000 },
		{ "parallel_efficiency", "ratio", 0.9, "ratio", 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct summary_scale sc;

		summary_scale_for(cases[i].metric, cases[i].unit, cases[i].largest, &sc);
		if (strcmp(sc.label, cases[i].label) || sc.div != cases[i].div)
			fail_msg("%s in %s at %g: \"%s\" / %g, expected \"%s\" / %g", cases[i].metric, cases[i].unit,
				 cases[i].largest, sc.label, sc.div, cases[i].label, cases[i].div);
	}
}

/* A document with a swept test, a multi-headline test and a skipped one. */
static const char doc_text[] =
	"{\"duration_s\": 31.2, \"status\": \"complete\", \"suites\": ["
	" {\"name\": \"disk\", \"status\": \"ok\", \"tests\": ["
	"  {\"name\": \"randread\", \"status\": \"ok\", \"cases\": ["
	"   {\"params\": {\"iodepth\": 1, \"bs\": 4096}, \"metrics\": ["
	"    {\"name\": \"iops\", \"unit\": \"1/s\", \"headline\": true, \"summary\": {\"mean\": 21580.4}},"
	"    {\"name\": \"latency\", \"unit\": \"ns\", \"headline\": false, \"summary\": {\"mean\": 46000}}]},"
	"   {\"params\": {\"iodepth\": 32, \"bs\": 4096}, \"metrics\": ["
	"    {\"name\": \"iops\", \"unit\": \"1/s\", \"headline\": true, \"summary\": {\"mean\": 100478}}]}]},"
	"  {\"name\": \"iozone\", \"status\": \"ok\", \"cases\": ["
	"   {\"params\": {\"file-size\": 268435456}, \"metrics\": ["
	"    {\"name\": \"write_mb_per_s\", \"unit\": \"MB/s\", \"headline\": true, \"summary\": {\"mean\": 812}},"
	"    {\"name\": \"read_mb_per_s\", \"unit\": \"MB/s\", \"headline\": true, \"summary\": {\"mean\": 2150}}]}]},"
	"  {\"name\": \"randwrite\", \"status\": \"skipped\", \"reason\": \"needs --destructive\", \"cases\": []}"
	" ]},"
	" {\"name\": \"sched\", \"status\": \"ok\", \"tests\": ["
	"  {\"name\": \"steal\", \"status\": \"ok\", \"cases\": ["
	"   {\"params\": {}, \"metrics\": ["
	"    {\"name\": \"on_cpu_pct\", \"unit\": \"%\", \"headline\": true, \"summary\": {\"mean\": 99.6}}]}]}"
	" ]}]}";

static void lines(void **state)
{
	static const char *const want[] = {
		"summary: 4 cases in 31 s\n",
		"  disk.randread    IOPS       qd1: 21.6k  qd32: 100k  [bs=4k]\n",
		"  disk.iozone      GB/s       write: 0.812  read: 2.15  [file-size=256M]\n",
		"  disk.randwrite   skipped: needs --destructive\n",
		/* a percentage says nothing without its name */
		"  sched.steal on_cpu_pct %",
		"next: vmbench show 7 ",
		"      vmbench compare 7 OTHER ",
		"      vmbench report 7 -o report.html ",
	};
	json_t *doc = json_loads(doc_text, 0, NULL);
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(doc);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	summary_print(f, doc, 7, NULL);
	fclose(f);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(out, want[i]))
			fail_msg("summary lacks \"%s\":\n%s", want[i], out);
	assert_null(strstr(out, "latency")); /* secondary metrics stay in the full table */
	free(out);

	/* neither stored nor in a file: no command to suggest */
	f = open_memstream(&out, &len);
	summary_print(f, doc, 0, NULL);
	fclose(f);
	assert_null(strstr(out, "next:"));
	free(out);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts),
		cmocka_unit_test(sizes),
		cmocka_unit_test(scales),
		cmocka_unit_test(lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
