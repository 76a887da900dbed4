/* The study file's parser (src/lab/study.h): its lines, sections and keys,
 * each key's value checked as it is read; an experiment's checks as a whole
 * are in study_check.c, the table's units and statistics in study_value.c. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "study.h"
#include "study_parser.h"
#include "labrun.h"
#include "matrix.h"
#include "../core/parse.h"
#include "../core/rep.h"
#include "../core/str.h"
#include "../core/suite.h"
#include "../core/banned.h"

int study_fail(struct parser *p, const char *fmt, ...)
{
	char what[1024], all[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	/* what the file said is echoed as text: its bytes would drive the terminal */
	snprintf(all, sizeof(all), "%s:%u: %s", p->name, p->line, what);
	study_escape(all, p->err, p->errlen);
	return -EINVAL;
}

char *study_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* value into a fixed field: too long is an error, not a cut */
static int set_text(struct parser *p, const char *key, char *dst, size_t len, const char *value)
{
	if (strlen(value) >= len)
		return study_fail(p, "%s is longer than %zu characters", key, len - 1);
	memcpy(dst, value, strlen(value) + 1);
	return 0;
}

/* a repeatable text key: the lines joined by one space */
static int add_text(struct parser *p, const char *key, char *dst, size_t len, const char *value)
{
	size_t have = strlen(dst), add = strlen(value) + (have ? 1 : 0);

	if (have + add >= len)
		return study_fail(p, "%s is longer than %zu characters in all", key, len - 1);
	if (have)
		dst[have++] = ' ';
	memcpy(dst + have, value, strlen(value) + 1);
	return 0;
}

static int set_count(struct parser *p, const char *key, unsigned *dst, const char *value, unsigned max)
{
	int64_t v;

	if (parse_i64(value, 1, max, &v) < 0)
		return study_fail(p, "%s = '%s': expected a whole number from 1 to %u", key, value, max);
	*dst = (unsigned)v;
	return 0;
}

/* Words of an option line: blanks between, "..." keeps blanks in one. */
static int split_words(struct parser *p, const char *value, struct strv *out)
{
	char word[STUDY_MAX_LINE];
	const char *s = value;

	while (*s) {
		size_t n = 0;
		bool quoted = false;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		for (; *s && (quoted || (*s != ' ' && *s != '\t')); s++) {
			if (*s == '"') {
				quoted = !quoted;
				continue;
			}
			word[n++] = *s;
		}
		if (quoted)
			return study_fail(p, "a quote that does not close: %s", value);
		word[n] = '\0';
		if (strv_push(out, word) < 0)
			return -ENOMEM;
	}
	return 0;
}

static bool ident_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (!n || n > max || (!islower((unsigned char)*s) && !isdigit((unsigned char)*s)))
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && !strchr("._-", *s))
			return false;
	return true;
}

/* NAME, or NAME.P of a latency metric (its percentiles and its spread,
 * metrics of their own in a document: docs/results-schema.md) */
static bool metric_ok(const char *m)
{
	static const char *const p[] = { "p50", "p90", "p95", "p99", "p99.9", REP_STDDEV };
	const char *dot = strchr(m, '.');
	size_t n = dot ? (size_t)(dot - m) : strlen(m);

	if (!n || n >= 48)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)m[i]) && !isdigit((unsigned char)m[i]) && m[i] != '_')
			return false;
	if (!dot)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(p); i++)
		if (!strcmp(dot + 1, p[i]))
			return true;
	return false;
}

/* "suite.test" of a suite vmbench has, and the test one of its own */
const struct vmb_test *study_test_find(const char *name)
{
	const char *dot = strchr(name, '.');
	const struct vmb_suite *s = lab_item_suite(name);

	if (!s || !dot)
		return NULL;
	for (const struct vmb_test *t = s->tests; t && t->name; t++)
		if (!strcmp(t->name, dot + 1))
			return t;
	return NULL;
}

/* Whether the experiment's suites (items "disk" or "disk.randread") run test "disk.randread". */
bool study_suites_run(const char *suites, const char *test)
{
	const char *dot = strchr(test, '.');
	char items[256];

	snprintf(items, sizeof(items), "%s", suites);
	for (char *save = NULL, *it = strtok_r(items, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
		it = study_trim(it);
		if (!strcmp(it, test) || (strlen(it) == (size_t)(dot - test) && !strncmp(it, test, (size_t)(dot - test))))
			return true;
	}
	return false;
}

/* KEY=VALUE[,KEY=VALUE]: a case's parameters, as documents record them */
static bool params_ok(const char *s)
{
	char buf[96];

	if (strlen(s) >= sizeof(buf))
		return false;
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');

		if (!eq || eq == kv || !eq[1])
			return false;
		*eq = '\0';
		if (!ident_ok(kv, 32) || strchr(kv, '.'))
			return false;
	}
	return s[0] && s[strlen(s) - 1] != ',' && !strstr(s, ",,");
}

#define COLUMN_FORM "column = TEST METRIC [at KEY=VALUE[,...]] [in UNIT] [| HEADING [| setting]]"

/* column = TEST METRIC [at PARAMS] [in UNIT] [| HEADING] */
static int parse_column(struct parser *p, struct study_experiment *e, char *value)
{
	struct study_column *c;
	char *bar = strchr(value, '|'), *w[6] = { 0 }, *save = NULL;
	size_t n = 0;

	if (e->ncolumns == STUDY_MAX_COLUMNS)
		return study_fail(p, "more than %d columns", STUDY_MAX_COLUMNS);
	c = &e->columns[e->ncolumns];
	memset(c, 0, sizeof(*c));
	c->line = p->line;
	if (bar) {
		char *bar2 = strchr(bar + 1, '|');

		*bar = '\0';
		if (bar2) {
			*bar2 = '\0';
			if (strcmp(study_trim(bar2 + 1), "setting"))
				return study_fail(p, "a column has one heading; after it, '| setting' alone (a setting of the run, "
						     "shown and never compared)");
			c->setting = true;
		}
		if (set_text(p, "a column's heading", c->heading, sizeof(c->heading), study_trim(bar + 1)) < 0)
			return -EINVAL;
		if (!*c->heading)
			return study_fail(p, "an empty heading after '|'");
		if (strchr(c->heading, ':'))
			return study_fail(p, "a heading without ':' (claim = ... | HEADING: A > B names a column by it)");
	}
	for (char *t = strtok_r(value, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n == ARRAY_SIZE(w))
			return study_fail(p, COLUMN_FORM ": too many words");
		w[n++] = t;
	}
	if (n < 2 || n % 2)
		return study_fail(p, COLUMN_FORM ", e.g. column = disk.randread iops at iodepth=32 | IOPS at QD32");
	if (!study_test_find(w[0]))
		return study_fail(p, "column: '%s' is no test of vmbench's suites (SUITE.TEST, as 'vmbench list' names them)",
				  w[0]);
	if (!metric_ok(w[1]))
		return study_fail(p, "column: '%s' is no metric name: NAME (letters, digits and _), or a latency "
				     "metric's percentile NAME.P, P one of p50, p90, p95, p99, p99.9, or its spread NAME.stddev",
				  w[1]);
	snprintf(c->test, sizeof(c->test), "%s", w[0]);
	snprintf(c->metric, sizeof(c->metric), "%s", w[1]);
	for (size_t i = 2; i < n; i += 2) {
		if (!strcmp(w[i], "at") && !*c->at) {
			if (!params_ok(w[i + 1]))
				return study_fail(p, "column: at '%s': the case's parameters as KEY=VALUE[,KEY=VALUE], e.g. "
						     "iodepth=32,threads=1",
						  w[i + 1]);
			snprintf(c->at, sizeof(c->at), "%s", w[i + 1]);
		} else if (!strcmp(w[i], "in") && !*c->unit) {
			if (study_unit_find(w[i + 1]) < 0)
				return study_fail(p, "column: unknown unit '%s' (ns, us, ms, s, min, h; B/s, KB/s, MB/s, GB/s, "
						     "KiB/s, MiB/s, GiB/s; bit/s, Kbit/s, Mbit/s, Gbit/s; 1/s; %%)",
						  w[i + 1]);
			snprintf(c->unit, sizeof(c->unit), "%s", w[i + 1]);
		} else {
			return study_fail(p, COLUMN_FORM ": '%s' where 'at' or 'in' (each once) goes", w[i]);
		}
	}
	e->ncolumns++;
	return 0;
}

/* published = ROW | HEADING | FIGURE */
static int parse_published(struct parser *p, struct study_experiment *e, const char *value)
{
	const char *b1 = strchr(value, '|'), *b2 = b1 ? strchr(b1 + 1, '|') : NULL;

	if (!b2 || strchr(b2 + 1, '|'))
		return study_fail(p, "published = ROW | HEADING | FIGURE (the study's own figure, as it printed it)");
	if (strv_push(&e->published, value) < 0)
		return -ENOMEM;
	return 0;
}

enum section { SEC_NONE, SEC_STUDY, SEC_EXPERIMENT };

static const char *const study_keys = "format, title, source, description";
static const char *const exp_keys = "title, not-run, command, matrix, suites, option, quick-option, rounds, quick-rounds, "
				    "quick-skip, accel, boots, baseline, rows, select, "
				    "statistic, stand-in, column, published, conclusion, claim, expect";

/* single-valued keys given twice are an error: which were given */
struct seen {
	unsigned bits;
};

static int once(struct parser *p, struct seen *seen, unsigned bit, const char *key)
{
	if (seen->bits & (1u << bit))
		return study_fail(p, "%s given twice", key);
	seen->bits |= 1u << bit;
	return 0;
}

static int study_key(struct parser *p, struct study *s, struct seen *seen, const char *key, char *value)
{
	if (!strcmp(key, "format")) {
		int64_t v;

		if (once(p, seen, 0, key) < 0)
			return -EINVAL;
		if (parse_i64(value, 1, 1000000, &v) < 0)
			return study_fail(p, "format = '%s': expected %d", value, STUDY_FORMAT);
		if (v > STUDY_FORMAT)
			return study_fail(p, "format %lld is newer than this vmbench reads (%d): a newer vmbench wrote it",
					  (long long)v, STUDY_FORMAT);
		s->format = (unsigned)v;
		return 0;
	}
	if (!strcmp(key, "title"))
		return once(p, seen, 1, key) < 0 ? -EINVAL : set_text(p, key, s->title, sizeof(s->title), value);
	if (!strcmp(key, "source"))
		return add_text(p, key, s->source, sizeof(s->source), value);
	if (!strcmp(key, "description"))
		return add_text(p, key, s->description, sizeof(s->description), value);
	return study_fail(p, "unknown key '%s' in [study] (%s)", key, study_keys);
}

static int exp_key(struct parser *p, struct study_experiment *e, struct seen *seen, const char *key, char *value)
{
	static const char *const single[] = { "title", "not-run", "matrix", "suites", "rounds", "boots",
					      "baseline", "rows", "statistic", "conclusion", "command", "select",
					      "quick-rounds", "quick-skip", "accel" };
	/* what lab run is given, or matches labels with: words, never a terminal's controls */
	static const char *const words[] = { "matrix", "suites", "baseline", "rows", "select", "option", "quick-option" };
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(single); i++)
		if (!strcmp(key, single[i]) && once(p, seen, i, key) < 0)
			return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		long at = str_find_control(value, strlen(value));

		if (!strcmp(key, words[i]) && at >= 0)
			return study_fail(p, "%s: a control character (byte %ld is 0x%02x): lab run's words are text", key,
					  at + 1, (unsigned char)value[at]);
	}
	if (!strcmp(key, "title"))
		return set_text(p, key, e->title, sizeof(e->title), value);
	if (!strcmp(key, "not-run"))
		return set_text(p, key, e->not_run, sizeof(e->not_run), value);
	if (!strcmp(key, "matrix"))
		return set_text(p, key, e->matrix, sizeof(e->matrix), value);
	if (!strcmp(key, "suites"))
		return set_text(p, key, e->suites, sizeof(e->suites), value);
	if (!strcmp(key, "rounds"))
		return set_count(p, key, &e->rounds, value, 100);
	if (!strcmp(key, "quick-rounds"))
		return set_count(p, key, &e->quick_rounds, value, 100);
	if (!strcmp(key, "boots"))
		return set_count(p, key, &e->boots, value, 100);
	if (!strcmp(key, "baseline"))
		return set_text(p, key, e->baseline, sizeof(e->baseline), value);
	if (!strcmp(key, "command")) {
		if (strcmp(value, "run") && strcmp(value, "contend"))
			return study_fail(p, "command = '%s': run (lab run: the matrix's configurations one at a time) or contend "
					     "(lab contend: several guests of one configuration at once)",
					  value);
		e->contend = !strcmp(value, "contend");
		return 0;
	}
	if (!strcmp(key, "rows")) {
		char buf[64];

		if (set_text(p, key, e->rows, sizeof(e->rows), value) < 0)
			return -EINVAL;
		snprintf(buf, sizeof(buf), "%s", value);
		for (char *save = NULL, *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save))
			if (lab_key_find(study_trim(k)) < 0 && !study_contend_label(study_trim(k)))
				return study_fail(p, "rows = '%s': '%s' is no matrix key, nor a label of lab contend's (%s)", value,
						  study_trim(k), STUDY_CONTEND_LABELS);
		if (strchr(value, ' ') || strstr(value, ",,") || value[strlen(value) - 1] == ',')
			return study_fail(p, "rows = KEY[,KEY]: keys and commas, no blanks");
		return 0;
	}
	if (!strcmp(key, "select"))
		return set_text(p, key, e->select, sizeof(e->select), value);
	if (!strcmp(key, "statistic")) {
		if (!strcmp(value, "mean"))
			e->stat = STUDY_MEAN;
		else if (!strcmp(value, "trimmed"))
			e->stat = STUDY_TRIMMED;
		else if (!strcmp(value, "median"))
			e->stat = STUDY_MEDIAN;
		else
			return study_fail(p, "statistic = '%s': mean, trimmed (without the highest and the lowest) or median",
					  value);
		return 0;
	}
	if (!strcmp(key, "conclusion"))
		return set_text(p, key, e->conclusion, sizeof(e->conclusion), value);
	if (!strcmp(key, "option") || !strcmp(key, "quick-option")) {
		bool quick = strcmp(key, "option") != 0;
		struct strv *w = quick ? &e->quick_options : &e->options;
		size_t before = w->n;
		int r;

		if (e->noptlines == STUDY_MAX_OPTION_LINES)
			return study_fail(p, "more than %d option and quick-option lines", STUDY_MAX_OPTION_LINES);
		r = split_words(p, value, w);
		if (r == 0 && (w->n == before || w->v[before][0] != '-' || w->v[before][1] != '-'))
			return study_fail(p, "%s = --NAME [VALUE]: an option of 'vmbench lab run', e.g. %s = --disk.bs 4k", key,
					  key);
		if (r < 0)
			return r;
		e->optlines[e->noptlines++] =
			(struct study_optline){ .line = p->line, .quick = quick, .first = before, .n = w->n - before };
		return 0;
	}
	if (!strcmp(key, "quick-skip"))
		return set_text(p, key, e->quick_skip, sizeof(e->quick_skip), value);
	if (!strcmp(key, "accel")) {
		if (strcmp(value, "kvm") && strcmp(value, "tcg"))
			return study_fail(p, "accel = '%s': kvm (the study's hypervisor used hardware virtualization: KVM is "
					     "tried, TCG where it cannot boot a guest here) or tcg (it did not)",
					  value);
		e->accel = !strcmp(value, "kvm") ? STUDY_ACCEL_KVM : STUDY_ACCEL_TCG;
		e->accel_line = p->line;
		return 0;
	}
	if (!strcmp(key, "stand-in"))
		return strv_push(&e->stand_in, value) < 0 ? -ENOMEM : 0;
	if (!strcmp(key, "column"))
		return parse_column(p, e, value);
	if (!strcmp(key, "published"))
		return parse_published(p, e, value);
	if (!strcmp(key, "expect"))
		return study_parse_expect(p, e, value);
	if (!strcmp(key, "claim"))
		return study_parse_claim(p, e, value);
	return study_fail(p, "unknown key '%s' in [experiment %s] (%s)", key, e->id, exp_keys);
}

void study_release(struct study *s)
{
	for (size_t i = 0; i < s->nexp; i++) {
		strv_clear(&s->exp[i].options);
		strv_clear(&s->exp[i].quick_options);
		strv_clear(&s->exp[i].stand_in);
		strv_clear(&s->exp[i].published);
	}
	s->nexp = 0;
}

/* The study's name: its file's base name without .study. It becomes the
 * label study=NAME that selects its results later, so it is refused, not
 * cut or passed on, when it is longer than a name holds or has what a
 * selector would split at (blanks, ',', '='). */
static int name_of(const char *path, char *out, size_t len)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 6 && !strcmp(b + n - 6, ".study"))
		n -= 6;
	if (!n || n >= len)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)b[i]) && !strchr("._-", b[i]))
			return -EINVAL;
	memcpy(out, b, n);
	out[n] = '\0';
	return 0;
}

int study_parse(const char *text, size_t len, const char *name, struct study *s, char *err, size_t errlen)
{
	struct parser p = { .name = name, .err = err, .errlen = errlen };
	enum section sec = SEC_NONE;
	struct seen seen = { 0 };
	char line[STUDY_MAX_LINE + 2];
	size_t at = 0;
	int r = 0;

	memset(s, 0, sizeof(*s));
	if (name_of(name, s->name, sizeof(s->name)) < 0 && (p.line = 1))
		return study_fail(&p, "the study's name (its file's name without .study) labels its results study=NAME: "
				     "1 to %zu of A-Z, a-z, 0-9, '.', '_', '-'; rename the file",
				  sizeof(s->name) - 1);
	/* a UTF-8 byte-order mark, which some editors write first, is no text of the file */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		at = 3;
	while (at < len && !r) {
		size_t n = 0;
		char *l, *eq, *key, *value;

		p.line++;
		while (at < len && text[at] != '\n') {
			if (text[at] == '\0') {
				r = study_fail(&p, "a NUL byte: a study file is text");
				break;
			}
			if (n == STUDY_MAX_LINE) {
				r = study_fail(&p, "a line longer than %d bytes", STUDY_MAX_LINE);
				break;
			}
			line[n++] = text[at++];
		}
		if (r)
			break;
		at++; /* the newline */
		line[n] = '\0';
		{
			/* labels, documents and the report are UTF-8: a byte that is not is refused, not echoed */
			long bad = str_find_bad_utf8(line, n);

			if (bad >= 0) {
				r = study_fail(&p, "not UTF-8 (byte %ld of the line is 0x%02x): a study file is UTF-8 text", bad + 1,
					       (unsigned char)line[bad]);
				break;
			}
		}
		l = study_trim(line);
		if (!*l || *l == '#' || *l == ';')
			continue;
		if (*l == '[') {
			char *end = strchr(l, ']');

			if (!end || end[1])
				r = study_fail(&p, "a section is [study] or [experiment ID], alone on its line");
			else if (sec == SEC_EXPERIMENT) {
				unsigned here = p.line;

				r = study_exp_finish(&p, &s->exp[s->nexp - 1]);
				p.line = here;
			}
			if (r)
				break;
			*end = '\0';
			l = study_trim(l + 1);
			seen.bits = 0;
			if (!strcmp(l, "study")) {
				if (sec != SEC_NONE)
					r = study_fail(&p, "[study] comes once, first");
				sec = SEC_STUDY;
			} else if (!strncmp(l, "experiment", 10) && (l[10] == ' ' || l[10] == '\t')) {
				char *id = study_trim(l + 11);
				struct study_experiment *e;

				if (sec == SEC_NONE)
					r = study_fail(&p, "the file begins with [study]");
				else if (!ident_ok(id, sizeof(e->id) - 1))
					r = study_fail(&p, "experiment '%s': an id is 1 to 32 of a-z, 0-9, '.', '_', '-', "
							   "beginning with a letter or a digit",
						       id);
				else if (s->nexp == STUDY_MAX_EXPERIMENTS)
					r = study_fail(&p, "more than %d experiments", STUDY_MAX_EXPERIMENTS);
				for (size_t i = 0; !r && i < s->nexp; i++)
					if (!strcmp(s->exp[i].id, id))
						r = study_fail(&p, "experiment %s twice (line %u first)", id, s->exp[i].line);
				if (r)
					break;
				e = &s->exp[s->nexp++];
				snprintf(e->id, sizeof(e->id), "%s", id);
				e->line = p.line;
				sec = SEC_EXPERIMENT;
			} else {
				r = study_fail(&p, "unknown section [%s] ([study], [experiment ID])", l);
			}
			continue;
		}
		eq = strchr(l, '=');
		if (!eq) {
			r = study_fail(&p, "expected KEY = VALUE, a [section], or a # comment");
			break;
		}
		*eq = '\0';
		key = study_trim(l);
		value = study_trim(eq + 1);
		if (!*key) {
			r = study_fail(&p, "a line with no key before '='");
			break;
		}
		if (!*value) {
			r = study_fail(&p, "%s has no value", key);
			break;
		}
		if (sec == SEC_NONE)
			r = study_fail(&p, "'%s' before any section: the file begins with [study]", key);
		else if (sec == SEC_STUDY)
			r = study_key(&p, s, &seen, key, value);
		else
			r = exp_key(&p, &s->exp[s->nexp - 1], &seen, key, value);
	}
	if (!r && sec == SEC_EXPERIMENT)
		r = study_exp_finish(&p, &s->exp[s->nexp - 1]);
	if (!r) {
		p.line = 1;
		if (sec == SEC_NONE)
			r = study_fail(&p, "no [study] section: not a study file");
		else if (!s->format)
			r = study_fail(&p, "[study] has no format (format = %d)", STUDY_FORMAT);
		else if (!*s->title)
			r = study_fail(&p, "[study] has no title");
		else if (!*s->source)
			r = study_fail(&p, "[study] has no source (where the study was published)");
		else if (!s->nexp)
			r = study_fail(&p, "no [experiment ID] section");
	}
	if (r)
		study_release(s);
	return r;
}

int study_load(const char *path, struct study *s, char *err, size_t errlen)
{
	char *buf = malloc(STUDY_MAX_BYTES + 1), shown[600];
	struct stat st = { 0 }, fst = { 0 };
	size_t len = 0;
	int fd = -1, r = 0;
	bool notreg = false;

	if (!buf)
		return -ENOMEM;
	study_escape(path, shown, sizeof(shown));
	/* a study is a file: a FIFO, a device or a directory is refused before
	 * it is opened (opening a device can do something: /dev/ptmx makes a
	 * terminal); O_NONBLOCK and the check that the file opened is the one
	 * looked at cover one put there in between */
	if (stat(path, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		notreg = true;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0 || fstat(fd, &fst) < 0)
		r = -errno;
	else
		notreg = !S_ISREG(fst.st_mode) || fst.st_dev != st.st_dev || fst.st_ino != st.st_ino;
	if (notreg)
		r = -EINVAL;
	if (notreg)
		snprintf(err, errlen, "%s: not a regular file: a study is a file, or NAME of 'vmbench lab study --list'",
			 shown);
	else if (r < 0)
		snprintf(err, errlen, "%s: %s", shown, strerror(-r));
	if (r < 0) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return r;
	}
	/* one byte more than a study may have tells a larger file */
	while (len <= STUDY_MAX_BYTES) {
		ssize_t k = read(fd, buf + len, STUDY_MAX_BYTES + 1 - len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = -errno;
			snprintf(err, errlen, "%s: %s", shown, strerror(-r));
			break;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	close(fd);
	if (!r && len > STUDY_MAX_BYTES) {
		snprintf(err, errlen, "%s: larger than %d bytes: not a study file", shown, STUDY_MAX_BYTES);
		r = -EINVAL;
	}
	if (!r)
		r = study_parse(buf, len, path, s, err, errlen);
	free(buf);
	return r;
}

const char *study_accel_name(enum study_accel a)
{
	return a == STUDY_ACCEL_KVM ? "kvm" : a == STUDY_ACCEL_TCG ? "tcg" : NULL;
}

unsigned study_rounds(const struct study_experiment *e, bool quick)
{
	return quick && e->quick_rounds ? e->quick_rounds : e->rounds;
}
