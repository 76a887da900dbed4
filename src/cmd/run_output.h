/* Where a run's result goes (src/cmd/run_output.c): the --json paths and
 * the result store, checked before measuring, and the place a document
 * goes when they fail after it. */
#ifndef VMB_CMD_RUN_OUTPUT_H
#define VMB_CMD_RUN_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "cmd.h"

struct db;

/* Save doc to a new file in $TMPDIR, /tmp, here or $HOME and say where (unstored: why it was not stored). */
int run_save_elsewhere(const json_t *doc, const char *unstored);
/* FILE.json -> FILE-rK.json (or FILE-rK when there is no .json); owned, NULL when out of memory. */
char *run_round_json_path(const char *path, unsigned k);
/* Open the run's result store into *db (NULL with --no-store or no place for it: unstored says why). */
int run_store_open(const struct vmb_cmd *self, const struct optset *own, char *db_path, size_t pathlen,
		   char *unstored, size_t unstoredlen, struct db **db);
/* Check --json's path, or every round's with --runs: new files in a directory that takes them. */
int run_check_json_paths(const struct vmb_cmd *self, const char *json_path, unsigned nruns, bool autorun);

#endif
