/* Subcommands: one row each in the table in main.c, one file each here.
 * Only main and these files decide to exit the process. */
#ifndef VMB_CMD_H
#define VMB_CMD_H

#include <stdbool.h>

#include <jansson.h>

#include "../core/opts.h"

enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1, /* a measurement or an operation failed */
	EXIT_USAGE = 2,  /* the user's mistake */
	EXIT_INTERRUPTED = 130,
};

#define CMD_SUITE_OPTS (1u << 0) /* also accepts --SUITE.OPTION */

struct vmb_cmd {
	const char *name;
	int (*fn)(const struct vmb_cmd *self, int argc, char **argv);
	const char *args;        /* usage after the name */
	const char *summary;     /* one line */
	const char *description; /* a paragraph, for help and the man page */
	const struct vmb_opt *opts;
	unsigned flags;
	int min_args, max_args; /* positional arguments; max -1: any number */
};

extern const struct vmb_cmd vmb_cmds[];
/* The whole command line, recorded in result documents. */
extern int cmd_argc;
extern char **cmd_argv;
const struct vmb_cmd *cmd_find(const char *name);

/* Parse argv (after the command name) with the command's options and, for
 * CMD_SUITE_OPTS, every suite's. Returns -1 to go on, or an exit code:
 * EXIT_OK after printing --help, EXIT_USAGE after a message. suite_sets
 * (may be NULL) receives one optset per suite, in table order. */
int cmd_parse(const struct vmb_cmd *c, int argc, char **argv, struct optset *own,
	      struct optset *suite_sets, struct strv *positional);
void cmd_release(struct optset *own, struct optset *suite_sets, struct strv *positional);
int cmd_usage_error(const struct vmb_cmd *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cmd_print_help(const struct vmb_cmd *c);
/* -q/-v handling shared by the commands that have them. */
void cmd_apply_verbosity(const struct optset *own);

/* A compare/report operand: a result file, a stored run (number or id
 * prefix), or a label selector "k=v,k2=v2" that pools every matching run.
 * On success *docs is a new array of documents and *name its label.
 * Returns -1 to go on, or an exit code after a message. */
struct db;
int cmd_load_operand(const struct vmb_cmd *c, const char *word, const char *db_opt, struct db **db,
		     json_t **docs, char *name, size_t namelen);

/* Ctrl-C, SIGTERM, SIGHUP: the first asks the work to stop
 * (vmb_stop_requested); a second runs cleanup (async-signal-safe, may be
 * NULL) and ends the process by the signal. */
int cmd_install_stop_signals(void (*cleanup)(void));
/* Add --label KEY=VALUE pairs to a document's labels. */
int cmd_set_labels(json_t *doc, const struct strv *kv);
/* -o FILE must be new (checked before a long run): -1 to go on, or EXIT_USAGE. */
int cmd_check_output(const struct vmb_cmd *c, const char *out);
/* The HTML report of t to out: a new file, "-" for stdout, or with out NULL
 * a new file named STEM-DATE-TIME[-N].html, said with log_info. 0 or a
 * negative errno after a message. */
struct cmp_table;
int cmd_write_html(const struct cmp_table *t, const char *title, const char *out, const char *stem);

int cmd_run(const struct vmb_cmd *self, int argc, char **argv);
int cmd_compare(const struct vmb_cmd *self, int argc, char **argv);
int cmd_export(const struct vmb_cmd *self, int argc, char **argv);
int cmd_report(const struct vmb_cmd *self, int argc, char **argv);
int cmd_import(const struct vmb_cmd *self, int argc, char **argv);
int cmd_agent(const struct vmb_cmd *self, int argc, char **argv);
int cmd_lab(const struct vmb_cmd *self, int argc, char **argv);
int cmd_list(const struct vmb_cmd *self, int argc, char **argv);
int cmd_info(const struct vmb_cmd *self, int argc, char **argv);
int cmd_results(const struct vmb_cmd *self, int argc, char **argv);
int cmd_show(const struct vmb_cmd *self, int argc, char **argv);
int cmd_help(const struct vmb_cmd *self, int argc, char **argv);

#endif
