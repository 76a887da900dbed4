/* A study experiment's table from the documents its lab run stored
 * (docs/study-format.md, "What a run says"): a row per configuration (or
 * per value of its rows key) and the host, in the matrix's order, the host
 * first; a cell per column holding each round's figure; each cell against
 * the baseline's and each expectation judged, both paired by round. Pure:
 * documents in, table out, so that unit tests hold it to its arithmetic. */
#ifndef VMB_LAB_STUDY_TABLE_H
#define VMB_LAB_STUDY_TABLE_H

#include <jansson.h>

#include "study.h"

#define STUDY_MAX_ROUNDS 100

/* One cell: the rounds' values of a row's column (a round's docs averaged). */
struct study_cell {
	double sum[STUDY_MAX_ROUNDS + 1];
	unsigned cnt[STUDY_MAX_ROUNDS + 1];
	char unit[16]; /* the document's */
	bool ambiguous; /* several cases matched a column without at */
	bool lower;     /* the metric's direction: lower is better */
	char vs[112];   /* against the baseline's cell, paired by round, with the smallest difference its
			 * rounds could detect: "1.34x, better, p=0.012, mdd 9%"; "": none */
};

struct study_row {
	char name[96];
	size_t rank;  /* its first configuration's place in the matrix, + 1; the host 0 */
	size_t order; /* command = contend: its labels' places in the option lists (--policy, --load) */
	struct study_cell cell[STUDY_MAX_COLUMNS];
	/* the accelerator its documents ran under (their label accel, as lab
	 * run resolved accel=auto or a study's accel = kvm): how many of each */
	unsigned nkvm, ntcg;
	char accel_note[320]; /* a document's lab_note on its accelerator (why TCG): the first */
};

/* A claim judged: its verdict, what was measured (each relation's a / b
 * with its 95% interval, or the difference with its 90% one for closeness)
 * and why (inconclusive: the rounds, the test and the smallest difference
 * this run could detect; not comparable: why). */
struct study_claim_result {
	enum study_verdict v;
	char measured[256];
	char why[512];
	double mdd_pct; /* the largest of its relations' smallest detectable differences (INFINITY: too few rounds; 0: none judged) */
};

struct study_table {
	const struct study_experiment *e;
	struct study_row rows[STUDY_MAX_ROWS];
	size_t nrows;
	struct study_claim_result claim[STUDY_MAX_CLAIMS]; /* each of the experiment's claims judged */
};

/* Fill t (zeroed first) with experiment e's table of docs (a JSON array of
 * result documents of its lab run). 0, or -EINVAL when e's matrix does not
 * parse (a study_parse()d e always does), -ENOMEM. */
int study_tabulate(const struct study_experiment *e, const json_t *docs, struct study_table *t);
/* Whether no row of t has a figure in column c: no document had its
 * metric in a case at its parameters (a name or an 'at' no run records). */
bool study_column_empty(const struct study_table *t, size_t c);
/* The accelerator row's documents ran under: "kvm", "tcg", "mixed" (some
 * under each, across rounds), or NULL (the host, or no document says). */
const char *study_row_accel(const struct study_table *t, size_t row);
/* The study's statistic of a cell's rounds (*n of them); NAN with none. */
double study_cell_stat(const struct study_cell *c, enum study_stat st, size_t *n);
/* The standard deviation of relation x's per-round log ratio a / b over
 * the rounds both sides have in docs (*n of them): how much a claim's ratio
 * moves from round to round, to foresee what fewer or more rounds detect
 * (stats_paired_mdd_pct). NAN below 2 rounds. */
double study_rel_spread(const struct study_experiment *e, const struct study_rel *x, const json_t *docs, size_t *n);

#endif
