/* The host's cost of a lab comparison: the notes of every suite a guest
 * ran, made a mean per configuration and item (hostcost.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostcost.h"
#include "../core/banned.h"

/* "net.tcp_rr": a suite entry's name, with its test when it holds one */
static void item_name(const json_t *s, char *buf, size_t len)
{
	const json_t *tests = json_object_get(s, "tests");

	snprintf(buf, len, "%s%s%s", json_string_value(json_object_get(s, "name")) ?: "?",
		 json_array_size(tests) == 1 ? "." : "",
		 json_array_size(tests) == 1 ? json_string_value(json_object_get(json_array_get(tests, 0), "name")) ?: "" : "");
}

/* A note in seconds that a mean may take: a finite number >= 0 (> 0 for wall). */
static bool seconds(const json_t *notes, const char *key, bool positive, double *out)
{
	const json_t *v = json_object_get(notes, key);
	double x = json_number_value(v);

	if (!json_is_number(v) || !isfinite(x) || x < 0 || (positive && !(x > 0)))
		return false;
	*out = x;
	return true;
}

/* Adds one suite's notes to the rows of operand name (from first on):
 * sums for now, made means by the caller. */
static int add_suite(struct hostcost_row **rows, size_t *n, size_t *cap, size_t first, const char *name,
		     const json_t *s)
{
	const json_t *notes = json_object_get(s, "notes");
	double u, sy, w;
	char item[sizeof((*rows)->item)];
	size_t i;

	if (!seconds(notes, "qemu_cpu_user_s", false, &u) || !seconds(notes, "qemu_cpu_system_s", false, &sy) ||
	    !seconds(notes, "qemu_wall_s", true, &w) || !isfinite(u / w) || !isfinite(sy / w))
		return 0;
	item_name(s, item, sizeof(item));
	for (i = first; i < *n && strcmp((*rows)[i].item, item); i++)
		;
	if (i == *n) {
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 8;
			struct hostcost_row *r = realloc(*rows, nc * sizeof(*r));

			if (!r)
				return -ENOMEM;
			*rows = r, *cap = nc;
		}
		(*rows)[i] = (struct hostcost_row){ .config = name };
		snprintf((*rows)[i].item, sizeof((*rows)[i].item), "%s", item);
		(*n)++;
	}
	(*rows)[i].user += u / w;
	(*rows)[i].sys += sy / w;
	(*rows)[i].runs++;
	/* the host's bytes written per byte the guest's device received (the disk suite's) */
	if (seconds(notes, "host_write_amplification", true, &w) && isfinite(w)) {
		/* a running mean: finite values whose sum is not still have one */
		(*rows)[i].wamp_runs++;
		(*rows)[i].wamp += (w - (*rows)[i].wamp) / (double)(*rows)[i].wamp_runs;
	}
	return 0;
}

int hostcost_rows(const struct cmp_table *t, struct hostcost_row **rows, size_t *n)
{
	struct hostcost_row *r = NULL;
	size_t nr = 0, cap = 0;

	for (size_t o = 0; o < t->nops; o++) {
		size_t first = nr, i, j;
		const json_t *d, *s;

		json_array_foreach(t->ops[o].docs, i, d)
			json_array_foreach(json_object_get(d, "suites"), j, s)
				if (add_suite(&r, &nr, &cap, first, t->ops[o].name, s) < 0) {
					free(r);
					return -ENOMEM;
				}
	}
	for (size_t i = 0; i < nr; i++) {
		r[i].user /= (double)r[i].runs;
		r[i].sys /= (double)r[i].runs;
		r[i].cpu = r[i].user + r[i].sys;
		r[i].wamp = r[i].wamp_runs ? r[i].wamp : NAN;
	}
	*rows = r;
	*n = nr;
	return 0;
}
