/* Comparison of result documents: operands (runs, files, label selectors
 * pooled as repetitions) are lined up metric by metric. A metric is
 * identified by suite, test, case params and name, so unlike cases (other
 * threads, queue depth, block size) are never paired. Reads documents, and
 * of a suite's descriptor only which params a case may leave unstated. The
 * model is compare.c, each output format a compare_*.c of its own. */
#ifndef VMB_COMPARE_H
#define VMB_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../core/stats.h"

struct vmb_suite;

struct cmp_cell {
	bool present;
	double *samples; /* pooled over the operand's documents */
	size_t n;
	struct stats_summary sum;
	json_t *hist; /* the first document's histogram, borrowed; NULL if none */
	/* Two levels: one mean per run (document), the unit of replication. */
	double *run_means;
	size_t *run_doc; /* the operand's document each run mean came from (pairing reads its round) */
	size_t nruns;
	size_t reps_min, reps_max; /* repetitions per run */
	size_t imprecise;          /* runs whose case did not reach --precision */
	size_t busy_reps, noise_reps; /* repetitions marked busy, of those with sensor readings */
	struct stats_summary rsum; /* over the run means */
	/* The one figure a reader sees, in every format: the run means' mean
	 * and 95% CI with two runs or more (what a verdict tests), else the
	 * one run's repetitions (fig_runs false: a spread inside one run,
	 * marked CMP_REPS_MARK). */
	struct stats_summary fig;
	bool fig_runs;
};

struct cmp_row {
	char *suite, *test, *params, *metric, *unit; /* params: compact JSON, keys sorted (the identity) */
	const json_t *pobj; /* the params object as the first document lists them (borrowed, run's order) */
	size_t hash;        /* of suite, test, params and metric, for the row index */
	bool higher_better, headline;
	struct cmp_cell *cells; /* one per operand */
};

struct cmp_operand {
	char *name;
	json_t *docs; /* array of documents (owned reference) */
	/* Shown beside the others, not over them: a reference (the lab's host)
	 * whose values set no chart's scale and that is no subject of the lead
	 * sentence (only its reference, when it is the baseline). */
	bool aside;
};

/* Where the operands came from: what a reader is told to do for more runs
 * or known noise (the advice of compare_caveats.c) depends on it. */
enum cmp_origin {
	CMP_FROM_RUN, /* vmbench run (or files, imports): --runs, calibrate */
	CMP_FROM_LAB, /* lab run: --rounds; a host calibration says nothing of a guest */
	CMP_NORIGINS
};

/* A stored calibration (vmbench calibrate): between-run CV per case on a
 * machine. Borrowed JSON; NULL when none. */
struct cmp_calibration {
	const json_t *doc;
};

/* What compare pairs runs by: the round of the run group they were
 * measured in (lab run --rounds, run --runs: the default), a label the user
 * chose (--pair-by KEY), or nothing (--pair-by none). */
#define CMP_PAIR_AUTO "auto"
#define CMP_PAIR_NONE "none"
#define CMP_PAIR_ROUND "round"

/* A descriptive statistic beside the verdict (--stat): never what decides. */
enum cmp_stat {
	CMP_STAT_MEAN,    /* the default: nothing beside the mean */
	CMP_STAT_TRIMMED, /* the mean of the run means without the largest and the smallest */
	CMP_STAT_MEDIAN,  /* the median of the run means */
};

struct cmp_table {
	struct cmp_operand *ops;
	size_t nops, baseline;
	struct cmp_row *rows;
	size_t nrows, rcap;
	size_t *index, icap; /* open addressing over rows: row number + 1, 0 = free */
	double margin_pct;     /* equivalence margin (--margin) */
	const char *pair_by;   /* CMP_PAIR_*, or a label's key (borrowed); NULL: auto */
	enum cmp_stat stat;    /* --stat */
	enum cmp_origin origin; /* set by the caller; CMP_FROM_RUN by default */
	const char *lead_suite; /* the suite the lead sentence prefers (borrowed), or NULL */
	json_t *calibration;   /* stored calibrations {"cases": [...]} (owned), or NULL */
	/* The suite table as the caller (src/cmd) hands it: pairing and the
	 * phases of old documents read descriptor facts (an option's neutral
	 * value, a phase prefix) through it. NULL: documents alone. */
	const struct vmb_suite *(*suite_of)(const char *name);
	/* The lab's failed boots, for the reader (borrowed; NULL outside the
	 * lab): an array of objects {config, round, try, tries, step, reason,
	 * outcome ("retried" or "round failed"), console, qemu_log (the kept
	 * files' paths, or null)}. With it, an operand with fewer runs than
	 * the others says so among the caveats. */
	const json_t *failures;
	/* HTML the report shows first, under its title (borrowed; NULL: none):
	 * lab report of a study's run heads it with the study's card */
	const char *html_preface;
};

#define CMP_DEFAULT_MARGIN_PCT 5.0

/* What a non-baseline cell says against the baseline cell. */
struct cmp_verdict {
	bool comparable;  /* both present */
	double gap_pct;   /* (op - base) / |base| * 100 */
	double ratio;     /* op / base */
	int better;       /* +1 better, -1 worse, 0 no significant difference */
	struct stats_welch w; /* w.valid and w.p: the run-level test (kept for the report) */
	struct stats_runs_cmp rc; /* the run-level verdict */
	size_t unpaired;  /* paired: runs of either side with no partner in the other's rounds */
	char basis[160];  /* which test and why, for the reader */
};

void cmp_table_init(struct cmp_table *t, const struct vmb_suite *(*suite_of)(const char *name));
/* "bs=4k threads=2" from params JSON (keys sorted) */
void cmp_params_text(const char *json, char *buf, size_t len);
/* "threads=2 bs=4k": a row's params as run prints them, in the document's order */
void cmp_row_params(const struct cmp_row *r, char *buf, size_t len);
/* Only the params that tell row r apart from the other rows of its test
 * and metric in t ("iodepth=32" where bs, jobs and size are the same). */
void cmp_row_params_apart(const struct cmp_table *t, const struct cmp_row *r, char *buf, size_t len);
/* The same with numbers as stored ("bs=4096"), for CSV. */
void cmp_row_params_exact(const struct cmp_row *r, char *buf, size_t len);
void cmp_params_text_exact(const char *json, char *buf, size_t len);
/* Take an operand: name and its documents (steals the reference to docs). */
int cmp_add_operand(struct cmp_table *t, const char *name, json_t *docs);
/* Build the rows from the operands' documents. */
int cmp_build(struct cmp_table *t);
void cmp_table_release(struct cmp_table *t);
/* Whether s names a valid --pair-by (auto, none, round, or a label key). */
bool cmp_pair_by_valid(const char *s);
/* The name of t->stat ("trimmed mean", "median"), NULL for the mean. */
const char *cmp_stat_name(enum cmp_stat s);
/* A cell's --stat figure over its run means (the trimmed mean drops one
 * largest and one smallest when there are 3 or more); NAN for the mean. */
double cmp_cell_stat(const struct cmp_table *t, const struct cmp_cell *c);
/* The gap (%) of operand o's --stat figure to the baseline's; NAN when none. */
double cmp_stat_gap_pct(const struct cmp_table *t, const struct cmp_row *r, size_t o);
/* Operand o's cell against the baseline's, at the run level, with the
 * table's margin and calibration. */
void cmp_judge(const struct cmp_table *t, const struct cmp_row *r, size_t o, struct cmp_verdict *v);
/* The same, operand o against operand base (which need not be the baseline). */
void cmp_judge_pair(const struct cmp_table *t, const struct cmp_row *r, size_t base, size_t o, struct cmp_verdict *v);
/* One verdict the lead sentence weighs: operand o against operand ref
 * (the baseline, aside or not: one baseline per page) on headline row r. */
struct cmp_lead_item {
	const struct cmp_row *r;
	size_t o, ref;
	struct cmp_verdict v;
};
/* Every operand not aside against the reference on every headline row
 * both have (only t->lead_suite's rows when it has any), ranked:
 * significant differences first, the largest factor first (2x better and
 * 2x worse weigh the same), then the same within the margin, then no
 * significant difference, then untested, these in table order. *out is
 * the caller's to free (NULL when none); 0 or -ENOMEM. */
int cmp_lead_rank(const struct cmp_table *t, struct cmp_lead_item **out, size_t *n);
/* The comparison in one sentence from cmp_lead_rank, a clause per operand
 * (the strongest finding first): its largest significant differences,
 * then what the other rows say, or that none differs: "disk=virtio-blk vs
 * disk=ide: 2.20x better disk.randread iops at iodepth=32 (p=3e-05); no
 * significant difference at iodepth=1 (p=0.41, mdd 36%)." Clauses end in
 * ".\n" but the last, which ends in ".". Plain text (the caller escapes
 * it); false, buf empty, when there is no pair to state. */
bool cmp_lead_sentence(const struct cmp_table *t, char *buf, size_t len);
/* "3.2x slower" or "" when the ratio reads no better than the percentage,
 * or when the verdict does not support a difference (no significant one,
 * the same, untested): a ratio is stated only with a verdict behind it. */
void cmp_ratio_words(const struct cmp_row *r, const struct cmp_verdict *v, char *buf, size_t len);

/* The lab sessions (label lab) an operand's documents come from, as
 * "lab=ID: 17 runs, lab=ID2: 16 runs, 1 run of no session" into buf; the
 * count of those sources (runs of no session count as one beside a
 * session, none alone). */
size_t cmp_sessions_text(const json_t *docs, char *buf, size_t len);

/* Row filter: suite name (NULL = any), metric glob (NULL = any), all metrics or headline only. */
struct cmp_filter {
	const char *suite, *metric_glob;
	bool all;
};
bool cmp_row_selected(const struct cmp_row *r, const struct cmp_filter *f);

/* fn for every selected row and every operand but the baseline, with its
 * verdict against the baseline (comparable or not), in table order. */
void cmp_each_verdict(const struct cmp_table *t, const struct cmp_filter *flt,
		      void (*fn)(const struct cmp_table *t, const struct cmp_row *r, size_t o, const struct cmp_verdict *v,
				 void *arg), void *arg);

/* How one operand's selected metrics fare against the baseline. */
struct cmp_tally {
	size_t better, worse, same;
	size_t inconclusive; /* tested, no significant difference, not within the margin */
	size_t untested; /* both sides present, too few samples for the test */
	size_t missing;  /* on one side only */
};
void cmp_tally(const struct cmp_table *t, const struct cmp_filter *f, size_t op, struct cmp_tally *out);
/* The between-run CV (fraction) and its runs stored for this row on the
 * machine of fingerprint fp; 0 when none. */
double cmp_calibration_cv(const json_t *cal, const json_t *fp, const struct cmp_row *r, unsigned *runs);
/* The calibration key of a fingerprint: what must match for a stored noise
 * level to apply (CPU model, hypervisor, kernel release, logical CPUs). */
void cmp_fingerprint_key(const json_t *fp, char *buf, size_t len);
/* Caveats for the reader, one line each into f (prefix before each):
 * fingerprints that differ where labels do not say so, busy hosts, one run. */
/* One CSV field as RFC 4180 has it, the way every CSV of vmbench writes
 * text: always in double quotes, a quote doubled (numbers go bare; compare's
 * records end in CRLF). */
void cmp_csv_field(FILE *f, const char *s);
size_t cmp_caveats(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, const char *prefix);
/* The same caveats as one string, a line each (the caller frees it), or NULL
 * when out of memory. */
char *cmp_caveats_text(const struct cmp_table *t, const struct cmp_filter *flt);

/* The lab's failed boots (t->failures), a few lines each, as text; nothing
 * when there are none. */
void cmp_print_failures(FILE *f, const struct cmp_table *t);
/* One failure's record (as t->failures holds them), two lines. */
void cmp_print_failure(FILE *f, const json_t *record);

/* Whether every operand has the row's metric. */
bool cmp_row_complete(const struct cmp_table *t, const struct cmp_row *r);

/* What operand o's cell says against the baseline's, in a few words:
 * "+100.7% better, 2.0x faster (p=0.00036 paired)". Every format's. */
void cmp_verdict_text(const struct cmp_table *t, const struct cmp_row *r, size_t o, char *buf, size_t len);
/* After an interval over one run's repetitions, never over runs. */
#define CMP_REPS_MARK "(r)"
/* After a cell one of whose runs stopped short of --precision. */
#define CMP_IMPRECISE_MARK "(i)"
/* A line per distinct test basis of the selected verdicts, with its count
 * ("verdicts (4): paired t on 3 rounds measured together"), each through
 * put (which escapes it for its format). */
void cmp_bases(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, void (*put)(FILE *, const char *));

enum cmp_format { CMP_TEXT, CMP_MARKDOWN, CMP_CSV, CMP_JSON };
int cmp_print(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, enum cmp_format fmt, bool color);
/* Operand o's one figure of each headline row, a line each ("  cpu.prime
 * threads=1 events_per_s  2030 1/s ±2.6% 5x4"), as compare shows it. */
void cmp_print_figures(FILE *f, const struct cmp_table *t, size_t o);
/* Significant regressions larger than pct: printed to f, counted. */
size_t cmp_regressions(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, double pct);

#endif
