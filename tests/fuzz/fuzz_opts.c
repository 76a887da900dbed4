/* Fuzz target for the option parser and the number parsers behind it: the
 * input is a command line, one argument per line, parsed over two option
 * sets (plain and "cpu."-prefixed) with a row of every type; every line is
 * also handed to each number parser, whose results must obey their ranges
 * and be decimal numbers (no hex, inf or nan ever accepted). */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/opts.h"
#include "../../src/core/parse.h"
#include "../../src/core/strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 64

static const struct vmb_opt plain[] = {
	{ .name = "time", .type = OPT_DOUBLE, .min = 0.01, .max = 86400, .def = "2", .quick = "0.3", .help = "t" },
	{ .name = "repeat", .type = OPT_INT, .min = 1, .max = 1000, .help = "r" },
	{ .name = "bs", .type = OPT_SIZE, .min = 512, .max = 1ull << 30, .def = "4k", .help = "b" },
	{ .name = "mode", .type = OPT_STRING, .choices = "a|bb|c", .def = "a", .help = "m" },
	{ .name = "threads", .type = OPT_LIST, .min = 1, .max = 4096, .def = "1,all", .help = "l" },
	{ .name = "label", .type = OPT_KV, .help = "k" },
	{ .name = "quiet", .short_name = 'q', .type = OPT_BOOL, .help = "q" },
	{ .name = "verbose", .short_name = 'v', .type = OPT_BOOL, .help = "v" },
	OPT_TABLE_END,
};

static const struct vmb_opt suite[] = {
	{ .name = "max-prime", .type = OPT_INT, .min = 3, .max = 100000000, .def = "10000", .help = "p" },
	{ .name = "depth", .type = OPT_LIST, .min = 1, .max = 64, .def = "1,32", .quick = "1", .help = "d" },
	OPT_TABLE_END,
};

/* What a number parser accepted must have been written in decimal. */
static void check_decimal(const char *s)
{
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p) && !strchr("+-.eE", *p))
			abort();
}

static void numbers(const char *s)
{
	int64_t i;
	double d;
	uint64_t u;
	unsigned *list = NULL;
	size_t n = 0;

	if (parse_i64(s, -1000, 1000, &i) == 0) {
		check_decimal(s);
		if (i < -1000 || i > 1000 || strchr(s, '.') || strchr(s, 'e'))
			abort();
	}
	if (parse_double(s, -1e6, 1e6, &d) == 0) {
		check_decimal(s);
		if (!isfinite(d) || d < -1e6 || d > 1e6)
			abort();
	}
	if (parse_size(s, 512, 1ull << 40, &u) == 0 && (u < 512 || u > (1ull << 40)))
		abort();
	if (parse_cpu_list(s, &list, &n) == 0) {
		for (size_t k = 0; k < n; k++)
			if (list[k] >= 1024 || (k && list[k] <= list[k - 1]))
				abort();
		free(list);
	}
	list = NULL;
	if (parse_uint_list(s, 1, 64, 8, &list, &n) == 0) {
		for (size_t k = 0; k < n; k++)
			if (list[k] < 1 || list[k] > 64)
				abort();
		free(list);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *argv[MAX_ARGS];
	struct optset sets[2];
	struct strv pos = { 0 };
	char err[256];
	int argc = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (char *p = text; argc < MAX_ARGS && p;) {
		char *nl = strchr(p, '\n');

		if (nl)
			*nl = '\0';
		argv[argc++] = p;
		p = nl ? nl + 1 : NULL;
	}
	for (int i = 0; i < argc; i++)
		numbers(argv[i]);
	if (optset_init(&sets[0], plain, "") < 0)
		abort();
	if (optset_init(&sets[1], suite, "cpu.") < 0)
		abort();
	if (opts_parse(argc, argv, sets, 2, &pos, err, sizeof(err)) == 0) {
		double t = optset_double(&sets[0], "time");

		if (!isfinite(t) || t < 0.01 || t > 86400)
			abort();
		(void)optset_apply_quick(&sets[0]);
		(void)optset_apply_quick(&sets[1]);
	} else if (!err[0]) {
		abort(); /* a refusal always says why */
	}
	optset_release(&sets[0]);
	optset_release(&sets[1]);
	strv_clear(&pos);
	free(text);
	return 0;
}
