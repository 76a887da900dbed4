/* A study's claims (docs/study-format.md, "Claims"): each published
 * statement as the relations that must hold for it to be reproduced, read
 * from its claim line (or an expect line, a claim of one direction), and
 * how each is judged, in words, for the plan. The judging itself is
 * study_table.c's, on the documents of the experiment's run. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study.h"
#include "study_parser.h"
#include "../core/str.h"
#include "../core/banned.h"

#define CLAIM_FORM "claim = TEXT | PUBLISHED | RELATION[; RELATION...] [| kvm|link]"
#define REL_FORM                                                                                                  \
	"a relation is 'COLUMN: A > B' (or <), 'COLUMN: A / B in LO..HI' (a ratio), 'COLUMN: A ~ B within P%' "  \
	"(closeness), or the same between two columns of one row: 'row A: COLUMN1 > COLUMN2'; A and B select rows " \
	"by KEY=VALUE[,KEY=VALUE] or host, a column is named by its heading or TEST METRIC [at PARAMS]"

const char *study_verdict_name(enum study_verdict v)
{
	switch (v) {
	case STUDY_REPRODUCED:
		return "reproduced";
	case STUDY_CONTRADICTED:
		return "contradicted";
	case STUDY_NOT_COMPARABLE:
		return "not comparable here";
	case STUDY_INCONCLUSIVE:
		break;
	}
	return "inconclusive";
}

void study_column_name(const struct study_column *c, char *buf, size_t len)
{
	if (*c->heading)
		snprintf(buf, len, "%s", c->heading);
	else
		snprintf(buf, len, "%s %s%s%s", c->test, c->metric, *c->at ? " at " : "", c->at);
}

/* The column named what (its heading or TEST METRIC [at PARAMS]), or -1 */
static int column_find(const struct study_experiment *e, const char *what)
{
	for (size_t i = 0; i < e->ncolumns; i++) {
		const struct study_column *c = &e->columns[i];
		char tm[260];

		snprintf(tm, sizeof(tm), "%s %s%s%s", c->test, c->metric, *c->at ? " at " : "", c->at);
		if (!strcmp(tm, what) || (*c->heading && !strcmp(c->heading, what)))
			return (int)i;
	}
	return -1;
}

static int column_of(struct parser *p, const struct study_experiment *e, const char *what, const char *key,
		     unsigned *col)
{
	int i = column_find(e, what);

	if (i < 0)
		return study_fail(p, "%s: '%s' is no column of this experiment, by its heading or TEST METRIC [at "
				     "PARAMS] (give its column line first)",
				  key, what);
	if (e->columns[i].setting)
		return study_fail(p, "%s: '%s' is a setting of the run, shown and never compared: claim something "
				     "measured",
				  key, what);
	*col = (unsigned)i;
	return 0;
}

/* A positive number, with an optional x after it ("10", "0.5x") */
static int ratio_value(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	if (end == s)
		return -EINVAL;
	if (*end == 'x')
		end++;
	return *end || !isfinite(*v) || *v <= 0 ? -EINVAL : 0;
}

/* "in LO..HI" or "within P%" after a relation's second side, cut off it */
static int rel_tail(struct parser *p, struct study_rel *r, char *rest, const char *key)
{
	char *w;

	if (r->op == STUDY_GT || r->op == STUDY_LT)
		return 0;
	w = strstr(rest, r->op == STUDY_RATIO ? " in " : " within ");
	if (!w)
		return study_fail(p, "%s: a ratio says 'A / B in LO..HI' (e.g. in 5..20), closeness 'A ~ B within P%%' "
				     "(e.g. within 10%%)",
				  key);
	*w = '\0';
	w = study_trim(w + (r->op == STUDY_RATIO ? 4 : 8));
	if (r->op == STUDY_RATIO) {
		char *dots = strstr(w, "..");

		if (!dots)
			return study_fail(p, "%s: 'in %s': LO..HI, e.g. in 5..20 or in 0.8x..1.25x", key, w);
		*dots = '\0';
		if (ratio_value(w, &r->lo) < 0 || ratio_value(dots + 2, &r->hi) < 0 || r->lo >= r->hi)
			return study_fail(p, "%s: 'in %s..%s': two positive ratios, the lower first", key, w, dots + 2);
		return 0;
	}
	{
		char *end;

		r->margin_pct = strtod(w, &end);
		if (end == w || strcmp(end, "%") || !(r->margin_pct > 0) || r->margin_pct >= 1000)
			return study_fail(p, "%s: 'within %s': a margin in percent above 0, e.g. within 10%%", key, w);
	}
	return 0;
}

static int side_text(struct parser *p, char *dst, size_t len, const char *v, const char *key)
{
	if (!*v)
		return study_fail(p, "%s: a side is empty", key);
	if (strlen(v) >= len || strpbrk(v, " \t"))
		return study_fail(p, "%s: the side '%s': KEY=VALUE[,KEY=VALUE] or host, no spaces, under %zu bytes", key,
				  v, len);
	snprintf(dst, len, "%s", v);
	return 0;
}

/* One relation (REL_FORM) into r */
static int parse_rel(struct parser *p, const struct study_experiment *e, char *text, struct study_rel *r,
		     const char *key)
{
	static const struct {
		const char *tok;
		enum study_rel_op op;
	} ops[] = { { " > ", STUDY_GT }, { " < ", STUDY_LT }, { " / ", STUDY_RATIO }, { " ~ ", STUDY_CLOSE } };
	char *colon, *op = NULL, *left, *right, *head;
	bool row = false;

	text = study_trim(text);
	colon = strchr(text, ':');
	memset(r, 0, sizeof(*r));
	r->line = p->line;
	if (!colon)
		return study_fail(p, "%s: '%s': %s", key, text, REL_FORM);
	*colon = '\0';
	head = study_trim(text);
	if (!strncmp(head, "row ", 4)) {
		row = true;
		head = study_trim(head + 4);
	}
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++) {
		char *o = strstr(colon + 1, ops[i].tok);

		if (o && (!op || o < op)) {
			op = o;
			r->op = ops[i].op;
		}
	}
	if (!op)
		return study_fail(p, "%s: one of ' > ', ' < ', ' / ', ' ~ ' between the two sides (%s)", key, REL_FORM);
	*op = '\0';
	left = study_trim(colon + 1);
	right = op + 3;
	if (rel_tail(p, r, right, key) < 0)
		return -EINVAL;
	right = study_trim(right);
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		if (strstr(right, ops[i].tok) || strstr(left, ops[i].tok))
			return study_fail(p, "%s: one comparison a relation; join relations with ';'", key);
	if (row) {
		if (side_text(p, r->a, sizeof(r->a), head, key) < 0 || column_of(p, e, left, key, &r->col) < 0 ||
		    column_of(p, e, right, key, &r->col_b) < 0)
			return -EINVAL;
		if (r->col == r->col_b)
			return study_fail(p, "%s: row %s compares a column with itself", key, r->a);
		memcpy(r->b, r->a, sizeof(r->b));
		return 0;
	}
	if (column_of(p, e, head, key, &r->col) < 0 || side_text(p, r->a, sizeof(r->a), left, key) < 0 ||
	    side_text(p, r->b, sizeof(r->b), right, key) < 0)
		return -EINVAL;
	r->col_b = r->col;
	if (!strcmp(r->a, r->b))
		return study_fail(p, "%s: both sides are %s", key, r->a);
	return 0;
}

static struct study_claim *claim_new(struct parser *p, struct study_experiment *e)
{
	struct study_claim *c;

	if (e->nclaims == STUDY_MAX_CLAIMS) {
		study_fail(p, "more than %d claims in an experiment", STUDY_MAX_CLAIMS);
		return NULL;
	}
	c = &e->claim[e->nclaims];
	memset(c, 0, sizeof(*c));
	c->line = p->line;
	c->first = (unsigned)e->nrel;
	return c;
}

static int add_rel(struct parser *p, struct study_experiment *e, struct study_claim *c, char *text, const char *key)
{
	if (e->nrel == STUDY_MAX_RELS)
		return study_fail(p, "more than %d relations in an experiment's claims", STUDY_MAX_RELS);
	if (parse_rel(p, e, text, &e->rel[e->nrel], key) < 0)
		return -EINVAL;
	e->rel[e->nrel].expect = !strcmp(key, "expect");
	e->nrel++;
	c->n++;
	return 0;
}

static int set_field(struct parser *p, char *dst, size_t len, const char *v, const char *what)
{
	if (strlen(v) >= len)
		return study_fail(p, "claim: %s longer than %zu bytes", what, len - 1);
	snprintf(dst, len, "%s", v);
	return 0;
}

int study_parse_claim(struct parser *p, struct study_experiment *e, char *value)
{
	char *f[5] = { 0 }, *save = NULL, *rels;
	size_t n = 0;
	struct study_claim *c = claim_new(p, e);

	if (!c)
		return -EINVAL;
	for (char *s = value;; s = NULL) {
		char *t = strtok_r(s, "|", &save);

		if (!t)
			break;
		if (n == ARRAY_SIZE(f))
			return study_fail(p, CLAIM_FORM ": too many '|'");
		f[n++] = study_trim(t);
	}
	if (n < 3 || n > 4 || !*f[0])
		return study_fail(p, CLAIM_FORM ", e.g. claim = ARM about 10x slower at QD32 | 93,152 vs 9,123 IOPS | "
				     "read QD32: arch=x86_64 / arch=aarch64 in 5..20 | kvm");
	if (set_field(p, c->text, sizeof(c->text), f[0], "the text") < 0 ||
	    set_field(p, c->published, sizeof(c->published), f[1], "the published figure") < 0)
		return -EINVAL;
	if (n == 4) {
		if (strcmp(f[3], "kvm") && strcmp(f[3], "link"))
			return study_fail(p, "claim: '%s' after the relations; the one word there is kvm (the claim is about "
					     "hardware virtualization) or link (about links: judged where one NIC fills its "
					     "shaped link)",
					  f[3]);
		c->kvm = !strcmp(f[3], "kvm");
		c->link = !c->kvm;
	}
	rels = f[2];
	if (!strncmp(rels, "not comparable:", 15)) {
		const char *why = study_trim(rels + 15);

		if (!*why || n == 4)
			return study_fail(p, "claim: 'not comparable: WHY' says why this lab cannot measure it, alone");
		if (set_field(p, c->not_comparable, sizeof(c->not_comparable), why, "the reason") < 0)
			return -EINVAL;
		e->nclaims++;
		return 0;
	}
	for (char *s = rels, *semi;; s = semi + 1) {
		semi = strchr(s, ';');
		if (semi)
			*semi = '\0';
		if (add_rel(p, e, c, s, "claim") < 0)
			return -EINVAL;
		if (!semi)
			break;
	}
	e->nclaims++;
	return 0;
}

int study_parse_expect(struct parser *p, struct study_experiment *e, char *value)
{
	struct study_claim *c = claim_new(p, e);
	char text[256];
	struct study_rel *r;

	if (!c)
		return -EINVAL;
	snprintf(text, sizeof(text), "%s", study_trim(value));
	if (!strchr(value, ':'))
		return study_fail(p, "expect = TEST METRIC: A > B (or <), e.g. expect = disk.seqwrite mb_per_s: disk=ahci > "
				     "disk=ide");
	{
		/* an expect is a direction: one '>' or '<' (spaces around it or not) */
		char *colon = strchr(value, ':'), *op = strpbrk(colon, "<>"), buf[512];

		if (!op || strpbrk(op + 1, "<>") || strstr(colon, " / ") || strstr(colon, " ~ "))
			return study_fail(p, "expect: one '>' or '<' between the two sides");
		snprintf(buf, sizeof(buf), "%.*s %c %s", (int)(op - value), value, *op, op + 1);
		if (add_rel(p, e, c, buf, "expect") < 0)
			return -EINVAL;
	}
	r = &e->rel[c->first];
	snprintf(c->text, sizeof(c->text), "%s", text);
	(void)r;
	e->nclaims++;
	return 0;
}

void study_claim_how(const struct study_experiment *e, const struct study_claim *c, char *buf, size_t len)
{
	static const char *const kinds[] = {
		[STUDY_GT] = "a direction: significant in it, paired by round",
		[STUDY_LT] = "a direction: significant in it, paired by round",
		[STUDY_RATIO] = "a magnitude: the ratio's 95% interval inside the range",
		[STUDY_CLOSE] = "closeness: the 90% interval of the difference inside the margin",
	};
	bool said[4] = { false };
	size_t off = 0;

	buf[0] = '\0';
	if (*c->not_comparable) {
		snprintf(buf, len, "not comparable here: %s", c->not_comparable);
		return;
	}
	for (unsigned i = 0; i < c->n && off < len; i++) {
		const struct study_rel *r = &e->rel[c->first + i];
		char ca[128], cb[128];

		study_column_name(&e->columns[r->col], ca, sizeof(ca));
		study_column_name(&e->columns[r->col_b], cb, sizeof(cb));
		if (i)
			str_appendf(buf, len, &off, "; ");
		if (r->col == r->col_b)
			str_appendf(buf, len, &off, "%s: %s", ca, r->a);
		else
			str_appendf(buf, len, &off, "row %s: %s", r->a, ca);
		switch (r->op) {
		case STUDY_GT:
		case STUDY_LT:
			str_appendf(buf, len, &off, " %s %s", r->op == STUDY_GT ? ">" : "<", r->col == r->col_b ? r->b : cb);
			break;
		case STUDY_RATIO:
			str_appendf(buf, len, &off, " / %s in %gx..%gx", r->col == r->col_b ? r->b : cb, r->lo, r->hi);
			break;
		case STUDY_CLOSE:
			str_appendf(buf, len, &off, " ~ %s within %g%%", r->col == r->col_b ? r->b : cb, r->margin_pct);
			break;
		}
	}
	str_appendf(buf, len, &off, " (%s", c->n > 1 ? "each must hold; " : "");
	for (unsigned i = 0, first = 1; i < c->n; i++) {
		enum study_rel_op op = e->rel[c->first + i].op == STUDY_LT ? STUDY_GT : e->rel[c->first + i].op;

		if (said[op])
			continue;
		said[op] = true;
		str_appendf(buf, len, &off, "%s%s", first ? "" : "; ", kinds[op]);
		first = 0;
	}
	str_appendf(buf, len, &off, ")");
	if (c->kvm)
		str_appendf(buf, len, &off, "; about hardware virtualization: not comparable where a side that asked for KVM "
			    "(accel=kvm or auto) ran under TCG");
	if (c->link)
		str_appendf(buf, len, &off, "; about links: not comparable where a side's configuration of one NIC "
			    "(nics=1) on a shaped link (linkrate) moved under %g%% of its line rate (the NIC's emulation "
			    "and the host's CPU, not the link, bound it)", 100 * STUDY_LINK_FILLED);
}

/* ---- how fine a run must be to decide a claim (docs/study-format.md,
 * "Enough rounds to decide") ---- */

/* The ratio a published figure states, as its distance from 1 in percent:
 * "10x", "~10×", "3 times" (a ratio r: |r - 1|, or 1/r - 1 below 1), "+24%",
 * "-30%", "24% more" (and less, faster, slower, higher, lower, longer,
 * shorter, fewer, better, worse). The first such figure counts; NAN when
 * it states none (a plateau's "9,000 IOPS" is no ratio). */
double study_published_pct(const char *pub)
{
	static const char *const more[] = { "more", "less", "faster", "slower", "higher", "lower", "longer",
					    "shorter", "fewer", "better", "worse" };

	for (const char *p = pub; p && *p; p++) {
		const char *q;
		char *end;
		double v;

		if (!(*p >= '0' && *p <= '9') || (p > pub && ((p[-1] >= '0' && p[-1] <= '9') || p[-1] == '.' ||
							       p[-1] == ',')))
			continue;
		v = strtod(p, &end);
		if (!(v > 0) || !isfinite(v))
			continue;
		q = end;
		while (*q == ' ')
			q++;
		if (*q == 'x' || *q == 'X' || !strncmp(q, "\xc3\x97", 2) || !strncmp(q, "times", 5))
			return v == 1 ? NAN : 100 * (v > 1 ? v - 1 : 1 / v - 1);
		if (*q == '%') {
			bool sign = p > pub && (p[-1] == '+' || p[-1] == '-');

			for (q++; *q == ' '; q++)
				;
			for (size_t k = 0; !sign && k < ARRAY_SIZE(more); k++)
				sign = !strncmp(q, more[k], strlen(more[k]));
			if (sign)
				return v;
		}
		p = end - 1;
	}
	return NAN;
}

double study_rel_need_pct(const struct study_claim *c, const struct study_rel *x, char *why, size_t len)
{
	double pct;

	switch (x->op) {
	case STUDY_RATIO:
		/* the interval must fit in [lo, hi]: half its width, of its centre */
		snprintf(why, len, "the half-width of %gx..%gx, of its centre", x->lo, x->hi);
		return 100 * (x->hi - x->lo) / (x->hi + x->lo);
	case STUDY_CLOSE:
		snprintf(why, len, "half its margin of %g%%", x->margin_pct);
		return x->margin_pct / 2;
	case STUDY_GT:
	case STUDY_LT:
		break;
	}
	pct = study_published_pct(c->published);
	if (isfinite(pct)) {
		snprintf(why, len, "its published %s", c->published);
		return pct;
	}
	snprintf(why, len, "a direction with no published ratio: %g%% assumed", STUDY_NEED_DEFAULT);
	return STUDY_NEED_DEFAULT;
}

double study_experiment_mdd(const struct study_experiment *e, size_t *which, char *why, size_t len)
{
	double best = NAN;

	for (size_t k = 0; k < e->nclaims; k++) {
		const struct study_claim *c = &e->claim[k];

		for (unsigned i = 0; !*c->not_comparable && i < c->n; i++) {
			char w[256];
			double need = study_rel_need_pct(c, &e->rel[c->first + i], w, sizeof(w));

			if (!(need >= best)) {
				best = need;
				*which = k;
				snprintf(why, len, "%s", w);
			}
		}
	}
	if (isnan(best))
		return NAN;
	return best < STUDY_MDD_MIN ? STUDY_MDD_MIN : best > STUDY_MDD_MAX ? STUDY_MDD_MAX : best;
}
