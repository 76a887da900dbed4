/* Option tables: parsing, validation and help text. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "opts.h"
#include "banned.h"

static size_t table_len(const struct vmb_opt *opts)
{
	size_t n = 0;

	while (opts && opts[n].name)
		n++;
	return n;
}

static void value_clear(struct opt_value *v)
{
	free(v->s);
	free(v->list);
	strv_clear(&v->kv);
	memset(v, 0, sizeof(*v));
}

static void describe_expected(const struct vmb_opt *o, char *buf, size_t len)
{
	switch (o->type) {
	case OPT_INT:
		snprintf(buf, len, "a whole number from %.0f to %.0f", o->min, o->max);
		break;
	case OPT_DOUBLE:
		snprintf(buf, len, "a number from %g to %g", o->min, o->max);
		break;
	case OPT_SIZE:
		snprintf(buf, len, "a size from %.0f bytes to %.0f bytes, with an optional k/m/g/t suffix (e.g. 4k, 1g)",
			 o->min, o->max);
		break;
	case OPT_LIST:
		snprintf(buf, len, "a comma-separated list of whole numbers from %.0f to %.0f or 'all' (e.g. 1,2,all)",
			 o->min, o->max);
		break;
	case OPT_KV:
		snprintf(buf, len, "KEY=VALUE with a non-empty KEY of letters, digits, '_', '-', '.'");
		break;
	case OPT_STRING:
		if (o->choices) {
			snprintf(buf, len, "one of %s", o->choices);
			break;
		}
		/* fall through */
	default:
		snprintf(buf, len, "a value");
		break;
	}
}

static bool kv_key_ok(const char *s, const char *eq)
{
	if (eq == s)
		return false;
	for (const char *p = s; p < eq; p++)
		if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') || ('0' <= *p && *p <= '9') ||
		      *p == '_' || *p == '-' || *p == '.'))
			return false;
	return true;
}

static int value_parse(const struct vmb_opt *o, struct opt_value *v, const char *arg)
{
	int64_t i;
	double d;
	uint64_t u;
	unsigned *list;
	size_t n;
	char *s;
	int r;

	switch (o->type) {
	case OPT_BOOL:
		v->b = true;
		return 0;
	case OPT_INT:
		r = parse_i64(arg, (int64_t)o->min, (int64_t)o->max, &i);
		if (r == 0)
			v->i = i;
		return r;
	case OPT_DOUBLE:
		r = parse_double(arg, o->min, o->max, &d);
		if (r == 0)
			v->d = d;
		return r;
	case OPT_SIZE:
		r = parse_size(arg, (uint64_t)o->min, (uint64_t)o->max, &u);
		if (r == 0)
			v->u = u;
		return r;
	case OPT_STRING:
		if (o->choices && !str_in_list(o->choices, '|', arg))
			return -EINVAL;
		s = xstrdup(arg);
		if (!s)
			return -ENOMEM;
		if (o->repeatable && strv_push(&v->kv, arg) < 0) {
			free(s);
			return -ENOMEM;
		}
		free(v->s);
		v->s = s;
		return 0;
	case OPT_LIST:
		r = parse_uint_list(arg, (unsigned)o->min, (unsigned)o->max, cpus_available(), &list, &n);
		if (r < 0)
			return r;
		free(v->list);
		v->list = list;
		v->nlist = n;
		s = xstrdup(arg);
		if (!s)
			return -ENOMEM;
		free(v->s);
		v->s = s;
		return 0;
	case OPT_KV: {
		const char *eq = strchr(arg, '=');

		if (!eq || !kv_key_ok(arg, eq))
			return -EINVAL;
		return strv_push(&v->kv, arg);
	}
	default:
		return -EINVAL;
	}
}

const char *opt_neutral_value(const struct vmb_opt *o)
{
	if (!o->neutral)
		return NULL;
	return o->def ? o->def : o->type == OPT_BOOL ? "false" : NULL;
}

int optset_init(struct optset *set, const struct vmb_opt *opts, const char *prefix)
{
	size_t n = table_len(opts);

	set->opts = opts;
	snprintf(set->prefix, sizeof(set->prefix), "%s", prefix ? prefix : "");
	set->n = n;
	set->vals = calloc(n ? n : 1, sizeof(*set->vals));
	if (!set->vals)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if ((opts[i].rep_overhead && opts[i].type != OPT_DOUBLE) ||
		    (opts[i].neutral && !opt_neutral_value(&opts[i]))) {
			log_error("option table: --%s%s cannot be %s", set->prefix, opts[i].name,
				  opts[i].neutral ? "neutral without a default" : "an overhead unless it is seconds");
			optset_release(set);
			return -EINVAL;
		}
		if (!opts[i].def)
			continue;
		if (value_parse(&opts[i], &set->vals[i], opts[i].def) < 0) {
			log_error("option table: bad default '%s' for --%s%s", opts[i].def, set->prefix,
				  opts[i].name);
			optset_release(set);
			return -EINVAL;
		}
		set->vals[i].present = true;
	}
	return 0;
}

void optset_release(struct optset *set)
{
	for (size_t i = 0; set->vals && i < set->n; i++)
		value_clear(&set->vals[i]);
	free(set->vals);
	set->vals = NULL;
	set->n = 0;
}

int optset_apply(struct optset *set, size_t idx, const char *arg, char *err, size_t errlen)
{
	const struct vmb_opt *o = &set->opts[idx];
	char expected[160];
	int r;

	r = value_parse(o, &set->vals[idx], arg);
	if (r == -ENOMEM) {
		snprintf(err, errlen, "out of memory");
		return r;
	}
	if (r < 0) {
		describe_expected(o, expected, sizeof(expected));
		snprintf(err, errlen, "--%s%s: '%s' is %s; expected %s", set->prefix, o->name, arg,
			 r == -ERANGE ? "out of range" : "not valid", expected);
		return r;
	}
	set->vals[idx].set = true;
	set->vals[idx].present = true;
	return 0;
}

static size_t optset_index(const struct optset *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->opts[i].name, name))
			return i;
	/* Asking for an option that the table does not declare is a bug. */
	log_error("internal error: no option --%s%s", set->prefix, name);
	abort();
}

int optset_default(struct optset *set, const char *name, const char *value)
{
	size_t i = optset_index(set, name);
	int r;

	if (set->vals[i].set)
		return 0;
	r = value_parse(&set->opts[i], &set->vals[i], value);
	if (r == 0)
		set->vals[i].present = true;
	return r;
}

int optset_apply_quick(struct optset *set)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->opts[i].quick && optset_default(set, set->opts[i].name, set->opts[i].quick) < 0)
			return -EINVAL;
	return 0;
}

const struct opt_value *optset_get(const struct optset *set, const char *name)
{
	return &set->vals[optset_index(set, name)];
}

bool optset_bool(const struct optset *set, const char *name)
{
	return optset_get(set, name)->b;
}

int64_t optset_int(const struct optset *set, const char *name)
{
	return optset_get(set, name)->i;
}

double optset_double(const struct optset *set, const char *name)
{
	return optset_get(set, name)->d;
}

uint64_t optset_size(const struct optset *set, const char *name)
{
	return optset_get(set, name)->u;
}

const char *optset_str(const struct optset *set, const char *name)
{
	return optset_get(set, name)->s;
}

/* Find the option that a command-line word names. */
static int lookup(struct optset *sets, size_t nsets, const char *name, size_t namelen, char short_name,
		  struct optset **set_out, size_t *idx_out)
{
	for (size_t s = 0; s < nsets; s++) {
		size_t plen = strlen(sets[s].prefix);

		for (size_t i = 0; i < sets[s].n; i++) {
			const struct vmb_opt *o = &sets[s].opts[i];

			if (short_name) {
				if (o->short_name != short_name || plen)
					continue;
			} else if (namelen != plen + strlen(o->name) || strncmp(name, sets[s].prefix, plen) ||
				   strncmp(name + plen, o->name, namelen - plen)) {
				continue;
			}
			*set_out = &sets[s];
			*idx_out = i;
			return 0;
		}
	}
	return -ENOENT;
}

static void suggest(struct optset *sets, size_t nsets, const char *name, size_t namelen, char *buf,
		    size_t len)
{
	char want[128], full[128];
	size_t best = 4;

	snprintf(want, sizeof(want), "%.*s", (int)(namelen < 127 ? namelen : 127), name);
	buf[0] = '\0';
	for (size_t s = 0; s < nsets; s++)
		for (size_t i = 0; i < sets[s].n; i++) {
			size_t d;

			snprintf(full, sizeof(full), "%s%s", sets[s].prefix, sets[s].opts[i].name);
			d = str_distance(want, full);
			if (d < best) {
				best = d;
				snprintf(buf, len, "; did you mean '--%s'?", full);
			}
		}
}

int opts_parse(int argc, char **argv, struct optset *sets, size_t nsets,
	       struct strv *positional, char *err, size_t errlen)
{
	bool only_positional = false;

	for (int a = 0; a < argc; a++) {
		const char *w = argv[a], *name, *value = NULL, *eq;
		char short_name = 0, hint[160];
		size_t namelen, idx;
		struct optset *set;
		int r;

		if (only_positional || w[0] != '-' || w[1] == '\0') {
			if (strv_push(positional, w) < 0)
				goto oom;
			continue;
		}
		if (!strcmp(w, "--")) {
			only_positional = true;
			continue;
		}
		if (w[1] == '-') {
			name = w + 2;
			eq = strchr(name, '=');
			namelen = eq ? (size_t)(eq - name) : strlen(name);
			if (eq)
				value = eq + 1;
		} else {
			if (w[2] != '\0') {
				snprintf(err, errlen, "unknown option '%s' (short options cannot be combined)", w);
				return -EINVAL;
			}
			short_name = w[1];
			name = w + 1;
			namelen = 1;
		}
		if (lookup(sets, nsets, name, namelen, short_name, &set, &idx) < 0) {
			suggest(sets, nsets, name, namelen, hint, sizeof(hint));
			snprintf(err, errlen, "unknown option '%.*s%.*s'%s", short_name ? 1 : 2, "--",
				 (int)namelen, name, hint);
			return -EINVAL;
		}
		if (set->opts[idx].refused) {
			snprintf(err, errlen, "--%s%s is not taken here: %s", set->prefix, set->opts[idx].name,
				 set->opts[idx].help);
			return -EINVAL;
		}
		if (set->opts[idx].type == OPT_BOOL) {
			if (value) {
				snprintf(err, errlen, "option '--%s%s' takes no value", set->prefix,
					 set->opts[idx].name);
				return -EINVAL;
			}
			value = "";
		} else if (!value) {
			if (a + 1 >= argc) {
				snprintf(err, errlen, "option '%s' needs a value (%s)", w,
					 set->opts[idx].metavar ? set->opts[idx].metavar : "VALUE");
				return -EINVAL;
			}
			value = argv[++a];
		}
		r = optset_apply(set, idx, value, err, errlen);
		if (r < 0)
			return r == -ENOMEM ? r : -EINVAL;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

void opt_format_name(const struct vmb_opt *o, const char *prefix, char *buf, size_t len)
{
	char shortpart[8] = "";

	if (o->short_name)
		snprintf(shortpart, sizeof(shortpart), "-%c, ", o->short_name);
	if (o->type == OPT_BOOL)
		snprintf(buf, len, "%s--%s%s", shortpart, prefix, o->name);
	else
		snprintf(buf, len, "%s--%s%s %s", shortpart, prefix, o->name,
			 o->metavar ? o->metavar : "VALUE");
}

void opt_format_constraints(const struct vmb_opt *o, char *buf, size_t len)
{
	char range[96] = "";

	switch (o->type) {
	case OPT_INT:
	case OPT_LIST:
		snprintf(range, sizeof(range), "%.0f to %.0f%s", o->min, o->max,
			 o->type == OPT_LIST ? ", or all" : "");
		break;
	case OPT_DOUBLE:
		snprintf(range, sizeof(range), "%g to %g", o->min, o->max);
		break;
	case OPT_STRING:
		if (o->choices)
			snprintf(range, sizeof(range), "%s", o->choices);
		else if (o->repeatable)
			snprintf(range, sizeof(range), "repeatable");
		break;
	case OPT_KV:
		snprintf(range, sizeof(range), "repeatable");
		break;
	default:
		break;
	}
	char quick[48] = "";

	if (o->quick)
		snprintf(quick, sizeof(quick), ", --quick %s", o->quick);
	if (o->def && *range)
		snprintf(buf, len, "default %s%s; %s", o->def, quick, range);
	else if (o->def)
		snprintf(buf, len, "default %s%s", o->def, quick);
	else
		snprintf(buf, len, "%s", range);
}

void opts_print_help(FILE *f, const struct vmb_opt *opts, const char *prefix)
{
	for (size_t i = 0; opts && opts[i].name; i++) {
		char name[96], cons[160];

		opt_format_name(&opts[i], prefix, name, sizeof(name));
		opt_format_constraints(&opts[i], cons, sizeof(cons));
		if (strlen(name) > 26)
			fprintf(f, "  %s\n  %-26s  %s%s", name, "", opts[i].refused ? "not taken here: " : "", opts[i].help);
		else
			fprintf(f, "  %-26s  %s%s", name, opts[i].refused ? "not taken here: " : "", opts[i].help);
		if (*cons)
			fprintf(f, " (%s)", cons);
		fputc('\n', f);
	}
}
