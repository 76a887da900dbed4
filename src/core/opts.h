/* Options as data: one row per option (name, type, range, default, help).
 * Parsing, validation, --help, `vmbench list` and the man page are all
 * derived from the rows, so they cannot drift apart. */
#ifndef VMB_OPTS_H
#define VMB_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"

enum opt_type {
	OPT_END = 0,
	OPT_BOOL,   /* a flag, takes no value */
	OPT_INT,    /* whole number in [min, max] */
	OPT_DOUBLE, /* real number in [min, max] */
	OPT_SIZE,   /* bytes with k/m/g/t suffix, in [min, max] */
	OPT_STRING, /* free text, or one of `choices` ("a|b|c") */
	OPT_LIST,   /* comma list of whole numbers in [min, max]; "all" = CPUs available */
	OPT_KV,     /* KEY=VALUE, repeatable */
};

struct vmb_opt {
	const char *name; /* long name, without dashes */
	char short_name;  /* 0 for none */
	enum opt_type type;
	double min, max;
	const char *def;     /* default as a user would type it; NULL = none */
	const char *quick;   /* the default under --quick, when it differs */
	const char *metavar; /* shown in help: SECONDS, N, LIST */
	const char *help;
	const char *choices; /* OPT_STRING only */
	/* What other layers learn from the row instead of naming a suite (issue 24) */
	bool neutral;      /* a stored case may leave this parameter out when it has its default
			    * (false for a flag): compare pairs absent and default as one identity */
	bool rep_overhead; /* OPT_DOUBLE seconds each repetition spends beyond --time (disk's ramp):
			    * the time estimate of a run adds them */
	bool repeatable;   /* OPT_STRING: every value given is kept, in order, in the value's kv (s:
			    * the last), as --connect URI given once per host */
	bool refused;      /* a word a user may try here and that this command does not take: the
			    * parser refuses it with .help, which says why and what to use instead
			    * (a row of a command's table shadows a later set's row of that name) */
};

#define OPT_TABLE_END { .name = NULL }

struct opt_value {
	bool set;     /* given on the command line */
	bool present; /* has a value: given, or from the default */
	bool b;
	int64_t i;
	double d;
	uint64_t u;
	char *s;
	unsigned *list;
	size_t nlist;
	struct strv kv;
};

struct optset {
	const struct vmb_opt *opts;
	char prefix[48]; /* "cpu." for suite options, "" for a command's own */
	struct opt_value *vals;
	size_t n;
};

/* Applies the defaults; fails (-EINVAL) only on a bad table, a programming error. */
int optset_init(struct optset *set, const struct vmb_opt *opts, const char *prefix);
void optset_release(struct optset *set);
/* Parse and validate arg for option idx; on error writes a user-facing
 * message into err and returns -EINVAL or -ERANGE. */
int optset_apply(struct optset *set, size_t idx, const char *arg, char *err, size_t errlen);
/* Re-apply a default: used when --quick changes a default the user did not set. */
int optset_default(struct optset *set, const char *name, const char *value);
/* Apply every row's .quick default that the user did not set. */
int optset_apply_quick(struct optset *set);

const struct opt_value *optset_get(const struct optset *set, const char *name);
bool optset_bool(const struct optset *set, const char *name);
int64_t optset_int(const struct optset *set, const char *name);
double optset_double(const struct optset *set, const char *name);
uint64_t optset_size(const struct optset *set, const char *name);
const char *optset_str(const struct optset *set, const char *name);

/* Parse argv over several option sets. Non-option words go to positional.
 * On a user error fills err and returns -EINVAL. */
int opts_parse(int argc, char **argv, struct optset *sets, size_t nsets,
	       struct strv *positional, char *err, size_t errlen);

/* "--name METAVAR" as shown in help. */
void opt_format_name(const struct vmb_opt *o, const char *prefix, char *buf, size_t len);
/* "default 2; 0.01 to 86400" and the like. */
void opt_format_constraints(const struct vmb_opt *o, char *buf, size_t len);
void opts_print_help(FILE *f, const struct vmb_opt *opts, const char *prefix);
/* The value a row with .neutral stands for when a case leaves it out: its
 * default, or "false" for a flag; NULL for a row without .neutral. */
const char *opt_neutral_value(const struct vmb_opt *o);

#endif
