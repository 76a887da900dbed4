/* A study file: a published comparison written as experiments the lab can
 * run, in the form fio's job files taught this audience: sections in
 * brackets, KEY = VALUE lines, # or ; comments. docs/study-format.md is
 * the reference; studies/ holds the shipped ones.
 *
 *   [study]                 format = 1, title, source, description
 *   [experiment ID]         one of the study's tables: what lab run boots
 *                           (matrix, suites, option, rounds, boots,
 *                           baseline), what stands in for what (stand-in),
 *                           the table to draw (rows, column, statistic),
 *                           the study's figures (published) and its
 *                           conclusions as claims, each judged (conclusion,
 *                           claim, expect);
 *                           or not-run, with why no QEMU lab can.
 *
 * study_parse() checks everything that needs no machine: every key, every
 * number, the matrix, the suites and the tests the columns and
 * expectations name, and that what they name is in the experiment; each
 * error names the file's line. */
#ifndef VMB_LAB_STUDY_H
#define VMB_LAB_STUDY_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/util.h"

#define STUDY_FORMAT 1
#define STUDY_MAX_EXPERIMENTS 32
#define STUDY_MAX_COLUMNS 16
#define STUDY_MAX_RELS 32   /* relations of an experiment's claims, all together */
#define STUDY_MAX_CLAIMS 16
#define STUDY_MAX_ROWS 32 /* of a table: configurations (or the rows key's values) and the host */
#define STUDY_MAX_LINE 4096
#define STUDY_MAX_BYTES (1 << 20)
#define STUDY_MAX_OPTION_LINES 64 /* option and quick-option lines of an experiment */

/* The accelerator the study's hypervisor ran an experiment under (accel =). */
enum study_accel {
	STUDY_ACCEL_MATRIX, /* not said: as the matrix's accel says */
	/* hardware virtualization (VT-x, AMD-V): the configurations that may use KVM
	 * (accel=kvm or auto) try it, and fall back to TCG where it cannot boot a guest here */
	STUDY_ACCEL_KVM,
	STUDY_ACCEL_TCG, /* none: every configuration accel=tcg (Study 2's host had no VT-x) */
};

enum study_stat {
	STUDY_MEAN,    /* the mean of the rounds' figures */
	STUDY_TRIMMED, /* the mean without the highest and the lowest (Study 1: 10 runs, 8 kept) */
	STUDY_MEDIAN,
};

/* A column of an experiment's table: a metric of a test, shown in unit
 * (a unit of the same dimension as the metric's, converted; "" its own)
 * under heading, of the cases whose parameters are at. */
struct study_column {
	char test[64];    /* "disk.randread" */
	char metric[64];  /* "iops", or a latency metric's percentile "latency.p99" */
	char at[96];      /* the case's parameters, "iodepth=32,threads=1"; "": every case */
	char unit[16];    /* "KB/s", or "" */
	char heading[96]; /* "" : TEST METRIC */
	bool setting;     /* "| HEADING | setting": a setting of the run (lab contend's promised share), shown, never
			     compared nor claimed */
	unsigned line;
};

/* One relation of a claim: side a's figure against side b's, paired by
 * round. A side is rows of a column: "COLUMN: A op B" compares two sets of
 * rows in one column (col == col_b), "row R: COL1 op COL2" two columns of
 * the same rows (a == b). A and B select documents by KEY=VALUE[,...] (or
 * host); a column is named by its heading or TEST METRIC [at PARAMS].
 *   STUDY_GT, STUDY_LT  a higher (lower) than b: the direction
 *   STUDY_RATIO         a / b within [lo, hi]: a magnitude ("about 10x")
 *   STUDY_CLOSE         a within margin_pct % of b: closeness */
enum study_rel_op { STUDY_GT, STUDY_LT, STUDY_RATIO, STUDY_CLOSE };
struct study_rel {
	unsigned col, col_b;
	enum study_rel_op op;
	double lo, hi;      /* STUDY_RATIO */
	double margin_pct;  /* STUDY_CLOSE */
	char a[96], b[96];
	bool expect; /* written as an expect line (its messages say so) */
	unsigned line;
};

/* One published statement of the study, as a claim (claim = TEXT |
 * PUBLISHED | RELATION[; RELATION...] [| kvm]): its relations all hold
 * for it to be reproduced (a trend or a crossover is several). kvm: the
 * statement is about hardware virtualization, not comparable where a side
 * ran under TCG. A claim this lab cannot measure says why instead of
 * relations (claim = TEXT | PUBLISHED | not comparable: WHY). An expect
 * line is a claim of one direction, its text the relation. */
/* A claim about links (| link) is judged where one NIC filled its link:
 * at least this share of its line rate */
#define STUDY_LINK_FILLED 0.9

struct study_claim {
	char text[256];
	char published[128];
	unsigned first, n; /* its relations: rel[first .. first + n) */
	bool kvm;
	bool link; /* | link: about links, not comparable where one NIC did not fill its shaped link */
	char not_comparable[256];
	unsigned line;
};

/* An option or quick-option line: its words, options.v[first..first+n)
 * (quick_options' when quick), so that what lab run's parser says of them
 * names the line they came from. */
struct study_optline {
	unsigned line;
	bool quick;
	size_t first, n;
};

struct study_experiment {
	char id[33];
	char title[256];
	char not_run[512]; /* "": it runs */
	bool contend;      /* command = contend: lab contend's guests at once; else lab run's matrix */
	char matrix[512];
	char suites[256];
	struct strv options;  /* lab run's option words, as given */
	struct strv quick_options; /* more of them under --quick, after options (the last value counts) */
	struct study_optline optlines[STUDY_MAX_OPTION_LINES]; /* both kinds, in the file's order */
	size_t noptlines;
	char quick_skip[512]; /* "": --quick runs it; else why --quick leaves it out (--experiment ID runs it) */
	enum study_accel accel; /* accel = kvm | tcg */
	unsigned accel_line;
	unsigned rounds, boots;
	unsigned quick_rounds; /* the rounds under --quick (quick-rounds; default: rounds) */
	char baseline[96];    /* host, none, or KEY=VALUE[,...] */
	/* the keys whose values name the rows, comma-separated: matrix keys, or lab contend's labels;
	 * "": the configurations' names */
	char rows[64];
	char select[96];      /* KEY=VALUE[,...]: only the documents with these labels make the table; "": all */
	enum study_stat stat;
	struct strv stand_in; /* which QEMU model stands in for which device */
	struct strv published; /* "ROW | HEADING | FIGURE" lines */
	char conclusion[512];
	struct study_column columns[STUDY_MAX_COLUMNS];
	size_t ncolumns;
	struct study_rel rel[STUDY_MAX_RELS];
	size_t nrel;
	struct study_claim claim[STUDY_MAX_CLAIMS];
	size_t nclaims;
	size_t nconfigs; /* of the matrix (0 when not run) */
	unsigned line;   /* of its header */
};

struct study {
	char name[64]; /* the file's base name without .study */
	unsigned format;
	char title[256];
	char source[512];
	char description[2048];
	struct study_experiment exp[STUDY_MAX_EXPERIMENTS];
	size_t nexp;
};

/* Parse a study's text (len bytes, not NUL-terminated necessarily); name
 * is its file name, for messages and s->name. 0, or -EINVAL with err
 * "NAME:LINE: what is wrong", -ENOMEM. s is released either way on
 * failure. */
int study_parse(const char *text, size_t len, const char *name, struct study *s, char *err, size_t errlen);
/* Read and parse a file (at most STUDY_MAX_BYTES). Only a regular file
 * (or a link to one) is opened: anything else is refused before it is. */
int study_load(const char *path, struct study *s, char *err, size_t errlen);
void study_release(struct study *s);

const char *study_stat_name(enum study_stat st);
/* A study's text for a terminal: each control character and escape
 * sequence's introducer (C0 but tab and newline, DEL, C1) and each byte that
 * is not UTF-8 as \xNN, so that a title cannot drive the terminal that
 * shows it; cut at an escape's or a character's edge to fit len. buf. */
const char *study_escape(const char *s, char *buf, size_t len);
/* The value the experiment's options give option name ("--NAME V" or
 * "--NAME=V"; the last one counts, as in lab run), or NULL. */
const char *study_option_value(const struct study_experiment *e, const char *name);
/* "kvm", "tcg", or NULL (not said) */
const char *study_accel_name(enum study_accel a);
/* The rounds an experiment runs: quick-rounds under --quick, else rounds. */
unsigned study_rounds(const struct study_experiment *e, bool quick);
/* The factor from unit from to unit to (same dimension: times, byte rates,
 * counts per second); 0 when they do not convert. */
double study_unit_factor(const char *from, const char *to);
/* The statistic st of the rounds' figures v[0..n) (sorted in place); NAN
 * when n is 0. trimmed drops the highest and the lowest from 3 figures on,
 * and is the mean below. */
double study_statistic(double *v, size_t n, enum study_stat st);
/* A cell's text: figure v (in the document's unit doc_unit) in the
 * column's unit col_unit, which its heading names; or, when doc_unit does
 * not convert to it, v as it is with doc_unit beside it, so that no figure
 * stands under a unit it is not in ("-": no figure). col_unit "" : the
 * caller labels the figure. false when it did not convert. */
bool study_cell_text(const char *col_unit, const char *doc_unit, double v, char *buf, size_t len);

/* The verdict on a claim (study_table.h judges them). */
enum study_verdict { STUDY_INCONCLUSIVE, STUDY_REPRODUCED, STUDY_CONTRADICTED, STUDY_NOT_COMPARABLE };
const char *study_verdict_name(enum study_verdict v);
/* How a claim is judged, in words, for the plan: "read QD32: arch=x86_64 /
 * arch=aarch64 within 5x..20x" and its kind. */
void study_claim_how(const struct study_experiment *e, const struct study_claim *c, char *buf, size_t len);
/* A column's name as a claim gives it: its heading, else TEST METRIC [at PARAMS]. */
void study_column_name(const struct study_column *c, char *buf, size_t len);

/* How fine a run must be to decide a claim: the smallest detectable
 * difference (80% power at 5%, % of the mean) each relation needs, and an
 * experiment's, the finest of its claims' (docs/study-format.md, "Enough
 * rounds to decide"). */
#define STUDY_NEED_DEFAULT 10.0 /* a direction whose published figure states no ratio */
#define STUDY_MDD_MIN 2.0       /* an experiment's, at the finest */
#define STUDY_MDD_MAX 50.0      /* and at the coarsest */
/* A published figure's ratio as its distance from 1, in % ("10x" 900,
 * "0.5x" 100, "24% more" 24); NAN when it states no ratio. */
double study_published_pct(const char *published);
/* What relation x of claim c needs, in %: a ratio LO..HI half its width of
 * its centre, closeness within P% P/2, a direction its published ratio's
 * distance from 1 (else STUDY_NEED_DEFAULT); why: where that came from. */
double study_rel_need_pct(const struct study_claim *c, const struct study_rel *x, char *why, size_t len);
/* An experiment's: the smallest over its judged claims' relations, within
 * [STUDY_MDD_MIN, STUDY_MDD_MAX]; *which the claim, why its reason. NAN
 * when no claim of it is judged (nothing to decide). */
double study_experiment_mdd(const struct study_experiment *e, size_t *which, char *why, size_t len);

#endif
