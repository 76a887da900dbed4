/* Subcommands: one file each here, each exporting one descriptor, listed
 * once in list.h. Only main and these files decide to exit the process. */
#ifndef VMB_CMD_H
#define VMB_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "../core/opts.h"

enum {
	CMD_CONTINUE = -1, /* from cmd_parse, cmd_load_operand: no exit yet, go on */
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
	int min_args, max_args; /* positional arguments; max CMD_ARGS_ANY: any number */
	/* A command of verbs (lab): their descriptors, NULL-terminated; fn
	 * dispatches to them (cmd_dispatch). A verb names its command in
	 * parent: its help, its errors and the refusal of an option that is a
	 * sibling's come from the verbs' tables, none kept by hand. */
	const struct vmb_cmd *const *subcmds;
	const struct vmb_cmd *parent;
};

#define CMD_ARGS_ANY (-1)

#include "list.h"

#define VMB_CMD_EXTERN(n) extern const struct vmb_cmd cmd_##n##_desc;
VMB_CMDS(VMB_CMD_EXTERN)
#undef VMB_CMD_EXTERN

/* Every subcommand's descriptor, in list.h's order, NULL-terminated. */
extern const struct vmb_cmd *const vmb_cmds[];
/* A broken descriptor is a programming error: 0, or -1 after a message. */
int cmd_check_all(void);
/* The command list, for `vmbench`, `vmbench --help` and `vmbench help`. */
void cmd_main_usage(FILE *f);
/* The whole command line, recorded in result documents. */
extern int cmd_argc;
extern char **cmd_argv;
const struct vmb_cmd *cmd_find(const char *name);

/* Parse argv (after the command name) with the command's options and, for
 * CMD_SUITE_OPTS, every suite's. Returns CMD_CONTINUE, or an exit code:
 * EXIT_OK after printing --help, EXIT_USAGE after a message. suite_sets
 * (may be NULL) receives one optset per suite, in table order. */
int cmd_parse(const struct vmb_cmd *c, int argc, char **argv, struct optset *own,
	      struct optset *suite_sets, struct strv *positional);
void cmd_release(struct optset *own, struct optset *suite_sets, struct strv *positional);
int cmd_usage_error(const struct vmb_cmd *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The option `name` ("runs", "rounds"): N from 1 to max, or auto (*autop,
 * and max as *n); --mdd and --budget-total only with auto. CMD_CONTINUE or
 * a usage error's exit code. */
int cmd_rounds_from(const struct vmb_cmd *c, const struct optset *own, const char *name, unsigned max, unsigned *n,
		    bool *autop);
/* The usage error (or, on -ENOMEM, the failure) of db_parse_selector's r for word:
 * a key over DB_LABEL_KEY_MAX is named as such. The exit code. */
int cmd_selector_error(const struct vmb_cmd *c, const char *word, int r);
/* --label of run, import or lab (a user's): by the grammar, and none of
 * the lab's own keys (label.h). CMD_CONTINUE, or the usage error's exit. */
int cmd_check_user_labels(const struct vmb_cmd *c, const struct strv *kv);
void cmd_print_help(const struct vmb_cmd *c);
/* A command of verbs: the verb of argv (its first word that names one;
 * options may come before it) run with the other words. An exit code. */
int cmd_dispatch(const struct vmb_cmd *c, int argc, char **argv);
/* A command of verbs: every option any verb takes, once, in the verbs'
 * order, each .help saying which verbs take it ("run, contend: ...") when
 * not all do; a new table (cmd_sub_opts_free), NULL when out of memory. */
struct vmb_opt *cmd_sub_opts(const struct vmb_cmd *c);
void cmd_sub_opts_free(struct vmb_opt *opts);
/* The verbs of c->parent that take the option name (a suite's too, for
 * those with CMD_SUITE_OPTS), as "lab run and lab contend"; false when none. */
bool cmd_sub_owners(const struct vmb_cmd *c, const char *name, size_t namelen, char short_name, char *buf,
		    size_t len);
/* Whether everything written to stdout so far (flushed first when `flush`)
 * reached it: 0, or -EIO after a message. A command streaming many lines
 * checks after each and stops at the first failure; main checks the final
 * flush of every command. */
int cmd_stdout_check(bool flush);
/* stdout has failed and its flush set no errno: why, from one more try or
 * from `before` (errno before that flush) when a write sets that errno;
 * else EIO. Leaves stdout's error flag cleared. */
int cmd_stdout_why(int before);
/* Columns a UTF-8 string takes on a terminal (one per code point). */
size_t cmd_text_width(const char *s);
/* -q/-v handling shared by the commands that have them. */
void cmd_apply_verbosity(const struct optset *own);

/* A compare/report operand: a result file, a stored run (number or id
 * prefix), or a label selector "k=v,k2=v2" that pools every matching run.
 * On success *docs is a new array of documents and *name its label.
 * Returns CMD_CONTINUE, or an exit code after a message. */
struct db;
int cmd_load_operand(const struct vmb_cmd *c, const char *word, const char *db_opt, struct db **db,
		     json_t **docs, char *name, size_t namelen);

/* How many cases `vmbench run` (or --quick) of everything has here and how
 * long the option defaults let it take (run.c). */
struct runner_estimate;
int run_estimate(bool quick, struct runner_estimate *out);
/* The same for the items of a --suites list ("cpu,disk.randread"), with the
 * options already parsed (run's measuring rows in own, --quick applied,
 * quick: whether it was): what a guest of the lab would run. -EINVAL for
 * an item of no suite. */
int run_estimate_items(const char *items, const struct optset *own, const struct optset *suite_sets, bool quick,
		       struct runner_estimate *out);


/* `vmbench run`'s options: what an agent checks a RUN's options with. */
extern const struct vmb_opt run_opts[];
/* What no row of the measurement options (run_opts.h) can check, after
 * --quick: --min-reps not over --max-reps, --cpus a CPU list, each CPU one
 * this process may run on when here is true. CMD_CONTINUE with *cpus the
 * list (NULL without --cpus; the caller frees it), or the exit code after a
 * message (run.c; lab run checks its guests' and host's options with it). */
int run_check_measure(const struct vmb_cmd *self, const struct optset *own, bool here, unsigned **cpus,
		      size_t *ncpus);
/* compare and report: every operand word into a table (*t always needs
 * cmp_table_release). CMD_CONTINUE, or an exit code after a message. */
struct cmp_table;
int cmd_build_table(const struct vmb_cmd *self, const struct strv *words, const char *db_opt, const char *baseline,
		    struct cmp_table *t);
/* Ctrl-C, SIGTERM, SIGHUP: the first asks the work to stop
 * (vmb_stop_requested); a second runs cleanup (async-signal-safe, may be
 * NULL) and ends the process by the signal. */
int cmd_install_stop_signals(void (*cleanup)(void));
/* Add --label KEY=VALUE pairs to a document's labels. */
int cmd_set_labels(json_t *doc, const struct strv *kv);
/* -o FILE must be new (checked before a long run): CMD_CONTINUE, or EXIT_USAGE. */
int cmd_check_output(const struct vmb_cmd *c, const char *out);
/* The HTML report of t to out: a new file, "-" for stdout, or with out NULL
 * a new file named STEM-DATE-TIME[-N].html, said with log_info. 0 or a
 * negative errno after a message. */
int cmd_write_html(const struct cmp_table *t, const char *title, const char *out, const char *stem);
/* An HTML report's text written as cmd_write_html writes one: to out (a
 * new file; - for stdout), or to a new STEM-DATE-TIME.html; 0, or a
 * negative errno after a message. */
int cmd_write_report(const char *html, size_t len, const char *out, const char *stem);
/* A lab result's document names its configuration under this key (a name
 * with spaces, so not a label; "host" for the host baseline). */
#define LAB_CONFIG_KEY "lab_config"
/* Whether doc is a result of lab run: it names its configuration (or, stored
 * before that, has the label config). */
bool cmd_lab_doc(const json_t *doc);

#endif
