/* The one-screen summary at the end of `vmbench run`: one line per test
 * with its headline at the main sweep points, in the units people use
 * (IOPS, MB/s, GB/s, µs; k and M suffixes), and what to do next. It reads
 * the result document, like every report. */
#ifndef VMB_SUMMARY_H
#define VMB_SUMMARY_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* Three significant digits, k/M/G/T above a thousand, never an exponent:
 * 21580 -> "21.6k", 100478 -> "100k", 999.7 -> "1.00k", 2.5 -> "2.50",
 * 0.91 -> "0.910",
 * a value that is not finite -> "-". */
void summary_format_count(double v, char *buf, size_t len);
/* Bytes with a binary suffix: 4096 -> "4k", 268435456 -> "256M",
 * 1536 -> "1.5k", 100 -> "100". */
void summary_format_size(double bytes, char *buf, size_t len);

/* How the values of one metric read on one line: the label ("IOPS",
 * "GB/s", "µs") and the factor every value is divided by, chosen from the
 * metric's name, its unit and the largest value of the line. */
struct summary_scale {
	char label[32];
	double div;
};
void summary_scale_for(const char *metric, const char *unit, double largest, struct summary_scale *out);

/* The summary of a document; run_id > 0 when it was stored as that run,
 * else json_path (may be NULL) names the file it was written to. */
void summary_print(FILE *f, const json_t *doc, long long run_id, const char *json_path);

#endif
