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
/* --runs auto: the largest minimal detectable difference (%) of the rounds' headlines so far; which names it. */
double run_worst_mdd(json_t *docs, char *which, size_t len);
/* --runs: the rounds' figures together, as compare judges them. */
void run_print_rounds(json_t *docs, unsigned done);
/* --runs auto: the rounds this machine's stored calibration predicts, printed before any is run. */
void run_predict_rounds(const struct optset *own, const struct runner_item *items, size_t nitems,
			const json_t *fp);

#endif
