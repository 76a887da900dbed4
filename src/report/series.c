/* Series over time as text and CSV: what `show --series` and
 * `export --format csv --series` print. The document was validated when it
 * was read (doc_validate.c: points are [t_s, value] with t_s increasing),
 * so every point here is two finite numbers. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "series.h"
#include "text.h"
#include "../core/banned.h"

#define SPARK_WIDTH 40 /* characters of a sparkline: a wider series is averaged into them */

size_t series_count(const json_t *doc)
{
	size_t i, j, k, n = 0;
	const json_t *s, *t, *c;

	json_array_foreach(json_object_get(doc, "suites"), i, s)
		json_array_foreach(json_object_get(s, "tests"), j, t)
			json_array_foreach(json_object_get(t, "cases"), k, c)
				n += json_array_size(json_object_get(c, "series"));
	return n;
}

static double pt(const json_t *points, size_t i, size_t k)
{
	return json_number_value(json_array_get(json_array_get(points, i), k));
}

int series_print_csv(FILE *f, const json_t *doc)
{
	const char *run = json_string_value(json_object_get(doc, "id"));
	size_t i, j, k, l, p;
	const json_t *s, *t, *c, *se, *x;

	fputs("run,suite,test,params,repetition,t_s,metric,value,unit\n", f);
	json_array_foreach(json_object_get(doc, "suites"), i, s)
		json_array_foreach(json_object_get(s, "tests"), j, t)
			json_array_foreach(json_object_get(t, "cases"), k, c) {
				char params[1024] = "", *pj = json_dumps(json_object_get(c, "params"),
									  JSON_SORT_KEYS | JSON_COMPACT);

				/* as compare's and export's CSV write them: "bs=4096 qd=32" */
				if (pj)
					cmp_params_text_exact(pj, params, sizeof(params));
				free(pj);
				json_array_foreach(json_object_get(c, "series"), l, se)
					json_array_foreach(json_object_get(se, "points"), p, x) {
					cmp_csv_field(f, run);
					fputc(',', f);
					cmp_csv_field(f, json_string_value(json_object_get(s, "name")));
					fputc(',', f);
					cmp_csv_field(f, json_string_value(json_object_get(t, "name")));
					fputc(',', f);
					cmp_csv_field(f, params);
					fprintf(f, ",%lld,%.17g,", (long long)json_integer_value(json_object_get(se, "rep")),
						pt(json_object_get(se, "points"), p, 0));
					cmp_csv_field(f, json_string_value(json_object_get(se, "name")));
					fprintf(f, ",%.17g,", pt(json_object_get(se, "points"), p, 1));
					cmp_csv_field(f, json_string_value(json_object_get(se, "unit")));
					fputc('\n', f);
				}
			}
	return ferror(f) ? -EIO : 0;
}

/* SPARK_WIDTH (or fewer) levels of the series, from its lowest to its highest value. */
static void sparkline(const json_t *points, double lo, double hi, char *buf, size_t len)
{
	static const char *const bars[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	size_t n = json_array_size(points), w = n < SPARK_WIDTH ? n : SPARK_WIDTH, off = 0;

	buf[0] = '\0';
	for (size_t b = 0; b < w; b++) {
		size_t from = b * n / w, to = (b + 1) * n / w;
		double mean = 0;
		int level;

		/* a running mean and the level's fraction within [lo, hi]: finite
		 * values whose sum or range is not still have one */
		for (size_t i = from; i < to; i++)
			mean += pt(points, i, 1) / (double)(i - from + 1) - mean / (double)(i - from + 1);
		level = hi / 2 - lo / 2 > 0 ? (int)((mean / 2 - lo / 2) / (hi / 2 - lo / 2) * 7.0 + 0.5) : 3;
		level = level < 0 ? 0 : level > 7 ? 7 : level;
		if (off + strlen(bars[level]) + 1 > len)
			break;
		memcpy(buf + off, bars[level], strlen(bars[level]) + 1);
		off += strlen(bars[level]);
	}
}

void series_print_text(FILE *f, const json_t *doc)
{
	size_t i, j, k, l, p, shown = 0;
	const json_t *s, *t, *c, *se, *x;

	json_array_foreach(json_object_get(doc, "suites"), i, s)
		json_array_foreach(json_object_get(s, "tests"), j, t)
			json_array_foreach(json_object_get(t, "cases"), k, c) {
				char params[512];

				if (!json_array_size(json_object_get(c, "series")))
					continue;
				text_params(json_object_get(c, "params"), params, sizeof(params));
				fprintf(f, "%s.%s  %s\n", json_string_value(json_object_get(s, "name")),
					json_string_value(json_object_get(t, "name")), params);
				json_array_foreach(json_object_get(c, "series"), l, se) {
					const json_t *pts = json_object_get(se, "points");
					const char *unit = json_string_value(json_object_get(se, "unit"));
					size_t n = json_array_size(pts);
					double lo = HUGE_VAL, hi = -HUGE_VAL, mean = 0;
					json_int_t bucket = json_integer_value(json_object_get(se, "bucket"));
					char vlo[32], vmean[32], vhi[32], spark[SPARK_WIDTH * 4 + 1], ds[48] = "";

					json_array_foreach(pts, p, x) {
						double v = pt(pts, p, 1);

						lo = v < lo ? v : lo;
						hi = v > hi ? v : hi;
						/* a running mean, never inf */
						mean += v / (double)(p + 1) - mean / (double)(p + 1);
					}
					const char *sname = json_string_value(json_object_get(se, "name"));

					text_format_metric(lo, sname, unit, vlo, sizeof(vlo));
					text_format_metric(mean, sname, unit, vmean, sizeof(vmean));
					text_format_metric(hi, sname, unit, vhi, sizeof(vhi));
					sparkline(pts, lo, hi, spark, sizeof(spark));
					if (bucket > 1)
						snprintf(ds, sizeof(ds), " (each the mean of %lld)", (long long)bucket);
					fprintf(f, "  rep %-3lld %-22s %5zu point%s%s, %.3g s to %.3g s  min %s  mean %s  max %s  %s\n",
						(long long)json_integer_value(json_object_get(se, "rep")),
						json_string_value(json_object_get(se, "name")), n, n == 1 ? "" : "s", ds, pt(pts, 0, 0),
						pt(pts, n - 1, 0), vlo, vmean, vhi, spark);
					shown++;
				}
			}
	if (!shown)
		fputs("no series in this run (net.tcp_stream, net.udp, net.http, the disk tests with "
		      "--disk.log-interval, fio imports with their logs and lab guests keep them)\n", f);
}
