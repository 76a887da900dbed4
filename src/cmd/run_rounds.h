/* Interleaved rounds of `vmbench run --runs` (src/cmd/run_rounds.c). */
#ifndef VMB_CMD_RUN_ROUNDS_H
#define VMB_CMD_RUN_ROUNDS_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "../core/opts.h"
#include "../core/runner.h"

/* One selected test of one item: the unit that is shuffled. */
struct round_unit {
	size_t item;
	unsigned test;
};

/* Fisher-Yates over the units, from the generator's state (the seed alone fixes the order). */
void run_shuffle(struct round_unit *u, size_t n, uint64_t *rng);
/* Every selected test of every item, in table order: at most cap units into u, their count. */
size_t run_round_units(const struct runner_item *items, size_t nitems, struct round_unit *u, size_t cap);
/* One round: the units in their order, each its own runner call, folded into out; the order into order. */
int run_round(const struct runner_settings *rs, const struct runner_item *items, const struct round_unit *u,
	      size_t nu, struct vmb_results *out, json_t *order);
/* When `run --runs auto` and `lab run --rounds auto` stop: one rule for
 * both. A case (a headline metric of one test's case, in the lab against
 * the baseline) is decided by a significant difference, by an equivalence
 * within --margin when one was given, or by its minimal detectable
 * difference within --mdd; the rounds stop when every case is decided. */
enum round_state {
	ROUND_OPEN,      /* undecided: another round may decide it */
	ROUND_DIFFERENT, /* a significant difference, at the rule's stricter level */
	ROUND_SAME,      /* the same within the margin */
	ROUND_MDD,       /* its minimal detectable difference within the target */
};

struct round_case {
	char name[300];  /* "disk.randread iops at iodepth=1" (lab: ", disk=nvme vs host") */
	bool judged;     /* a verdict between two sides; false: one side's rounds (run --runs) */
	int significant; /* the verdict's: +1 or -1 its 95% CI excludes 0, 0 neither */
	double p;        /* the verdict's p */
	bool same;       /* the verdict: the same within the margin */
	double mdd_pct;  /* INFINITY when unknown */
};

struct round_rule {
	double mdd_pct; /* --mdd */
	bool margin;    /* --margin given: an equivalence decides */
	unsigned look;  /* how many rounds' verdicts have been looked at, this one included (1 after round 2) */
};

/* The p at or below which a significant difference decides at look j:
 * 0.05 spent over the looks (6/pi^2 0.05/j^2, whose sum is 0.05), so that
 * stopping at the first significant look does not claim more differences
 * than a fixed number of rounds would. */
double round_alpha(unsigned look);
enum round_state round_decide(const struct round_rule *rule, const struct round_case *c);

/* The cases of one look together: how many each way, and the open ones named. */
struct round_tally {
	size_t n, different, same, mdd, open;
	char open_names[700]; /* "A (mdd 36.0%, p=0.21); B (...)", the largest mdd first, "and N more" */
};
void round_tally(const struct round_rule *rule, const struct round_case *c, size_t n, struct round_tally *out);
/* the decided ones: "2 significant differences, 1 the same within --margin, 3 with a minimal detectable
 * difference within --mdd 10%"; empty when none */
void round_tally_words(const struct round_rule *rule, const struct round_tally *t, char *buf, size_t len);

/* --runs auto and --rounds auto across their rounds: the rule, and the
 * undecided cases of the look before (the ones that held the rounds back last) */
struct round_auto {
	struct round_rule rule;
	const char *what;     /* "--runs auto", "--rounds auto" */
	unsigned looks;
	char held[700];
};
/* After round k, its cases: true when every one is decided. line: what
 * the round decided (a progress line), or the stop line when it ends them;
 * empty before two rounds. */
bool round_auto_after(struct round_auto *a, unsigned k, const struct round_case *c, size_t n, char *line,
		      size_t len);
/* The stop line of rounds that ended undecided: why ("another would end
 * after --budget-total 540s", "the most rounds, 100") and which cases */
void round_auto_undecided(const struct round_auto *a, unsigned k, const char *why, char *line, size_t len);

/* "disk.randread iops at iodepth=1": a row named by the params that tell
 * it from the rows of its test and metric, formatted as the tables do */
struct cmp_table;
struct cmp_row;
void round_row_name(const struct cmp_table *t, const struct cmp_row *r, char *buf, size_t len);
/* --runs auto: the cases of the rounds so far (one side: judged by their mdd alone), *ncases of them (caller frees) */
struct round_case *run_round_cases(json_t *docs, size_t *ncases);
/* --runs: the rounds' figures together, as compare judges them. */
void run_print_rounds(json_t *docs, unsigned done);
/* --runs auto: the rounds this machine's stored calibration predicts, printed before any is run. */
void run_predict_rounds(const struct optset *own, const struct runner_item *items, size_t nitems,
			const json_t *fp);

#endif
