/* The subcommand table (from list.h), and the argument parsing, help,
 * signals, output and report-writing helpers the subcommands share. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "../store/label.h"
#include "../core/log.h"
#include "../report/compare.h"
#include "../report/html.h"
#include "../store/db.h"
#include "../store/doc.h"
#include "../suites/suites.h"
#include "../core/banned.h"

int cmd_argc;
char **cmd_argv;

#define VMB_CMD_ROW(n) &cmd_##n##_desc,
const struct vmb_cmd *const vmb_cmds[] = { VMB_CMDS(VMB_CMD_ROW) NULL };
#undef VMB_CMD_ROW

int cmd_check_all(void)
{
	for (const struct vmb_cmd *const *p = vmb_cmds; *p; p++) {
		const struct vmb_cmd *c = *p;
		const char *why = !c->name || !*c->name ? "no name"
				  : !c->fn ? "no function"
				  : !c->summary || !c->args ? "no summary or usage"
				  : !c->opts ? "no option table"
				  : c->min_args < 0 || (c->max_args != CMD_ARGS_ANY && c->max_args < c->min_args)
					  ? "bad argument counts"
				  : cmd_find(c->name) != c ? "a second command of this name"
				  : c->subcmds && c->flags & CMD_SUITE_OPTS ? "a command of verbs whose verbs take the suites' options"
							   : NULL;

		for (const struct vmb_cmd *const *v = c->subcmds; !why && v && *v; v++)
			why = !(*v)->name || !(*v)->fn || !(*v)->summary || !(*v)->args || !(*v)->opts ? "a verb without name, function, usage or options"
			      : (*v)->parent != c ? "a verb whose parent is another command"
			      : (*v)->subcmds ? "a verb of verbs" : NULL;

		if (why) {
			log_error("internal error: command '%s': %s", c->name ? c->name : "?", why);
			return -1;
		}
	}
	return 0;
}

const struct vmb_cmd *cmd_find(const char *name)
{
	for (const struct vmb_cmd *const *c = vmb_cmds; *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}

void cmd_main_usage(FILE *f)
{
	fprintf(f, "usage: vmbench COMMAND [OPTIONS]\n       vmbench --version\n\ncommands:\n");
	for (const struct vmb_cmd *const *c = vmb_cmds; *c; c++)
		fprintf(f, "  %-9s %s\n", (*c)->name, (*c)->summary);
	fprintf(f, "\n'vmbench help COMMAND' or 'vmbench COMMAND --help' shows a command's options.\n");
}

/* "lab run" for a verb, "lab" for a command. */
static void full_name(const struct vmb_cmd *c, char *buf, size_t len)
{
	if (c && c->parent)
		snprintf(buf, len, "%s %s", c->parent->name, c->name);
	else
		snprintf(buf, len, "%s", c ? c->name : "");
}

int cmd_usage_error(const struct vmb_cmd *c, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout); /* as log.c: what stdout had comes first */
	fputs("vmbench: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	{
		char name[64];

		full_name(c, name, sizeof(name));
		fprintf(stderr, "\nsee 'vmbench %s --help'\n", name);
	}
	return EXIT_USAGE;
}

void cmd_print_help(const struct vmb_cmd *c)
{
	char name[64];

	full_name(c, name, sizeof(name));
	printf("usage: vmbench %s %s\n\n%s\n\n", name, c->args, c->summary);
	if (c->description)
		printf("%s\n\n", c->description);
	printf("options:\n");
	if (c->subcmds) {
		struct vmb_opt *all = cmd_sub_opts(c);

		opts_print_help(stdout, all, "");
		cmd_sub_opts_free(all);
	} else {
		opts_print_help(stdout, c->opts, "");
	}
	bool suites = c->flags & CMD_SUITE_OPTS;

	for (const struct vmb_cmd *const *v = c->subcmds; v && *v; v++)
		suites |= ((*v)->flags & CMD_SUITE_OPTS) != 0;
	if (suites)
		printf("\nsuite options (--SUITE.OPTION VALUE): see 'vmbench list'\n");
}

static const struct vmb_opt *find_row(const struct vmb_opt *opts, const char *name, size_t namelen, char short_name)
{
	for (size_t i = 0; opts && opts[i].name; i++)
		if (short_name ? opts[i].short_name == short_name
			       : strlen(opts[i].name) == namelen && !strncmp(opts[i].name, name, namelen))
			return &opts[i];
	return NULL;
}

/* The row of --name (-short_name) that verb v takes: its own, or with
 * CMD_SUITE_OPTS a suite's (SUITE.OPTION); NULL when v does not take it. */
static const struct vmb_opt *verb_row(const struct vmb_cmd *v, const char *name, size_t namelen, char short_name)
{
	const struct vmb_opt *o = find_row(v->opts, name, namelen, short_name);

	if (o || short_name || !(v->flags & CMD_SUITE_OPTS))
		return o;
	for (size_t i = 0; i < vmb_nsuites; i++) {
		size_t n = strlen(vmb_suites[i]->name);

		if (namelen > n + 1 && !strncmp(name, vmb_suites[i]->name, n) && name[n] == '.')
			return find_row(vmb_suites[i]->opts, name + n + 1, namelen - n - 1, 0);
	}
	return NULL;
}

bool cmd_sub_owners(const struct vmb_cmd *c, const char *name, size_t namelen, char short_name, char *buf,
		    size_t len)
{
	const struct vmb_cmd *owners[16];
	size_t n = 0, off = 0;

	for (const struct vmb_cmd *const *v = c->parent ? c->parent->subcmds : NULL; v && *v && n < 16; v++) {
		const struct vmb_opt *o = verb_row(*v, name, namelen, short_name);

		if (o && !o->refused)
			owners[n++] = *v;
	}
	*buf = '\0';
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s %s", !i ? "" : i + 1 == n ? " and " : ", ",
					c->parent->name, owners[i]->name);
	return n > 0;
}

/* A verb's word that is no option of its own but a sibling's: said so,
 * with the verbs that take it, rather than "unknown option". */
static int check_misplaced(const struct vmb_cmd *c, int argc, char **argv)
{
	for (int a = 0; a < argc; a++) {
		const char *w = argv[a], *name = w + 2;
		size_t namelen = strcspn(name, "=");
		char short_name = 0, owners[256], shown[80];
		const struct vmb_opt *o;

		if (!strcmp(w, "--"))
			break;
		if (w[0] != '-' || w[1] == '\0')
			continue;
		if (w[1] != '-') {
			if (w[2])
				continue;
			short_name = w[1], name = w + 1, namelen = 1;
		}
		o = verb_row(c, name, namelen, short_name);
		if (o) {
			a += o->type != OPT_BOOL && !strchr(w, '=');
			continue;
		}
		if (!cmd_sub_owners(c, name, namelen, short_name, owners, sizeof(owners)))
			continue; /* no verb's: the parser says so, with a suggestion */
		snprintf(shown, sizeof(shown), "%.*s%.*s", short_name ? 1 : 2, "--", (int)namelen, name);
		return cmd_usage_error(c, "%s belongs to %s; '%s %s' does not take it", shown, owners, c->parent->name,
				       c->name);
	}
	return CMD_CONTINUE;
}

/* The verbs that take row o's name, grouped by their help, into one text. */
static char *owners_help(const struct vmb_cmd *c, const struct vmb_opt *first)
{
	const char *helps[16];
	char names[16][128], *out = NULL;
	size_t ng = 0, nv = 0, ntake = 0;
	size_t namelen = strlen(first->name);

	for (const struct vmb_cmd *const *v = c->subcmds; *v; v++, nv++) {
		const struct vmb_opt *o = find_row((*v)->opts, first->name, namelen, 0);
		size_t g;

		if (!o)
			continue;
		ntake++;
		for (g = 0; g < ng && strcmp(helps[g], o->help); g++)
			;
		if (g == ng && ng < 16)
			helps[ng] = o->help, names[ng][0] = '\0', ng++;
		if (g < ng)
			snprintf(names[g] + strlen(names[g]), sizeof(names[g]) - strlen(names[g]), "%s%s",
				 names[g][0] ? ", " : "", (*v)->name);
	}
	if (!ng)
		return NULL;
	if (first->refused || (ng == 1 && ntake == nv))
		return strdup(helps[0]);
	for (size_t g = 0; g < ng; g++) {
		char *t = NULL;

		if (asprintf(&t, "%s%s%s: %s", out ? out : "", out ? "; " : "", names[g], helps[g]) < 0)
			t = NULL;
		free(out);
		if (!(out = t))
			return NULL;
	}
	return out;
}

struct vmb_opt *cmd_sub_opts(const struct vmb_cmd *c)
{
	size_t max = 0, n = 0;
	struct vmb_opt *all;

	for (const struct vmb_cmd *const *v = c->subcmds; *v; v++)
		for (const struct vmb_opt *o = (*v)->opts; o->name; o++)
			max++;
	all = calloc(max + 1, sizeof(*all));
	if (!all)
		return NULL;
	/* each verb's rows in its order: a row new here goes after the row
	 * before it in that verb's table, so the verbs' orders are kept */
	for (const struct vmb_cmd *const *v = c->subcmds; *v; v++) {
		size_t at = 0;

		for (const struct vmb_opt *o = (*v)->opts; o->name; o++) {
			size_t k;

			for (k = 0; k < n && strcmp(all[k].name, o->name); k++)
				;
			/* repeatable in one verb only (lab run's --connect): its help says so */
			if (k < n && all[k].repeatable != o->repeatable)
				all[k].repeatable = false;
			if (k == n) {
				memmove(&all[at + 1], &all[at], (n - at) * sizeof(*all));
				all[at] = *o;
				all[at].help = NULL;
				k = at;
				n++;
			}
			at = k + 1;
		}
	}
	for (size_t k = 0; k < n; k++) {
		char *h = owners_help(c, &all[k]);

		if (!h) {
			cmd_sub_opts_free(all);
			return NULL;
		}
		all[k].help = h;
	}
	return all;
}

void cmd_sub_opts_free(struct vmb_opt *opts)
{
	for (size_t k = 0; opts && opts[k].name; k++)
		free((char *)opts[k].help);
	free(opts);
}

int cmd_dispatch(const struct vmb_cmd *c, int argc, char **argv)
{
	for (int i = 0; i < argc && strcmp(argv[i], "--"); i++)
		for (const struct vmb_cmd *const *v = c->subcmds; *v; v++) {
			char **rest;
			int ret;

			if (strcmp(argv[i], (*v)->name))
				continue;
			rest = calloc((size_t)argc, sizeof(*rest));
			if (!rest)
				return EXIT_FAILED;
			memcpy(rest, argv, (size_t)i * sizeof(*rest));
			memcpy(rest + i, argv + i + 1, (size_t)(argc - i - 1) * sizeof(*rest));
			ret = (*v)->fn(*v, argc - 1, rest);
			free(rest);
			return ret;
		}
	for (int i = 0; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			cmd_print_help(c);
			return EXIT_OK;
		}
	for (int i = 0; i < argc; i++)
		if (argv[i][0] != '-') {
			char verbs[512];
			size_t off = 0;

			for (const struct vmb_cmd *const *v = c->subcmds; *v && off < sizeof(verbs); v++)
				off += (size_t)snprintf(verbs + off, sizeof(verbs) - off, "%s%s (%s)", off ? ", " : "",
							(*v)->name, (*v)->summary);
			return cmd_usage_error(c, "no %s command '%s'; the %s commands: %s", c->name, argv[i], c->name, verbs);
		}
	return cmd_usage_error(c, "missing argument: vmbench %s %s", c->name, c->args);
}

int cmd_stdout_why(int before)
{
	static const int write_errors[] = { ENOSPC, EDQUOT, EFBIG, EIO, EPIPE, EROFS, EBADF, ENXIO };

	/* After a failed write glibc may drop what it could not write, so a
	 * flush has nothing left to try and sets no errno. Clear the error and
	 * try once more in case something is left; else the errno the failed
	 * write left behind, when it is one a write sets. */
	clearerr(stdout);
	errno = 0;
	if (fflush(stdout) != 0 && errno)
		return errno;
	for (size_t i = 0; i < sizeof(write_errors) / sizeof(write_errors[0]); i++)
		if (before == write_errors[i])
			return before;
	return EIO;
}

int cmd_stdout_check(bool flush)
{
	int before = errno;

	if (!flush && !ferror(stdout))
		return 0;
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		int err = errno ? errno : cmd_stdout_why(before);

		if (err != EPIPE)
			log_error("writing the output: %s", strerror(err));
		return -EIO;
	}
	return 0;
}

size_t cmd_text_width(const char *s)
{
	size_t w = 0;

	for (; s && *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

void cmd_apply_verbosity(const struct optset *own)
{
	if (optset_bool(own, "quiet"))
		log_set_level(LOG_ERROR);
	else if (optset_bool(own, "verbose"))
		log_set_level(LOG_DEBUG);
	else
		log_set_level(LOG_INFO);
}

/* What no option row can say: --db names a file (an empty value is a
 * mistake, not the default store), and a label is one a selector can
 * select (label.h). */
static int check_common_opts(const struct vmb_cmd *c, const struct optset *own)
{
	for (size_t i = 0; i < own->n; i++) {
		const struct vmb_opt *o = &own->opts[i];
		const struct opt_value *v = &own->vals[i];

		if (!v->set)
			continue;
		if (!strcmp(o->name, "db") && v->s && !*v->s)
			return cmd_usage_error(c, "--db: the path is empty; give the store's file (e.g. --db ~/results.db), "
					       "or leave --db out for the default store");
		if (!strcmp(o->name, "label"))
			for (size_t j = 0; j < v->kv.n; j++) {
				char why[600];

				/* the grammar (a filter's or a run's); a run's own rule: cmd_check_user_labels */
				if (label_check_kv(v->kv.v[j], LABEL_SELECT, why, sizeof(why)) < 0)
					return cmd_usage_error(c, "--label number %zu: %s", j + 1, why);
			}
	}
	return CMD_CONTINUE;
}

/* JSON text is UTF-8: a label, a note, a selector or any argument that is
 * not would be dropped from the document (json_string() refuses it), so it
 * is refused here, named by its option and the offset of the bad byte. The
 * whole command line is checked: every word of it is recorded. */
static int check_utf8(const struct vmb_cmd *c, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *eq;
		long at = str_find_bad_utf8(a, strlen(a));
		char what[96];

		if (at < 0)
			continue;
		/* the bytes themselves are not echoed: they may drive the terminal */
		eq = strchr(a, '=');
		if (i == 0)
			snprintf(what, sizeof(what), "the program's path");
		else if (str_has_prefix(a, "--") && eq && eq - a < at)
			snprintf(what, sizeof(what), "argument %d, %.*s", i, (int)(eq - a > 60 ? 60 : eq - a), a);
		else if (i > 1 && argv[i - 1][0] == '-' && str_find_bad_utf8(argv[i - 1], strlen(argv[i - 1])) < 0)
			snprintf(what, sizeof(what), "argument %d, after %.60s", i, argv[i - 1]);
		else
			snprintf(what, sizeof(what), "argument %d", i);
		return cmd_usage_error(c, "%s: not UTF-8 (byte %ld is 0x%02x); the command line, labels, notes and "
				       "selectors are stored or matched as JSON text, which is UTF-8: convert it "
				       "(e.g. with iconv -t UTF-8)", what, at, (unsigned char)a[at]);
	}
	return CMD_CONTINUE;
}

int cmd_parse(const struct vmb_cmd *c, int argc, char **argv, struct optset *own,
	      struct optset *suite_sets, struct strv *positional)
{
	struct optset *sets;
	char err[512];
	size_t n = 1;
	int r;

	memset(own, 0, sizeof(*own));
	memset(positional, 0, sizeof(*positional));
	if (suite_sets)
		memset(suite_sets, 0, vmb_nsuites * sizeof(*suite_sets));
	r = cmd_argv ? check_utf8(c, cmd_argc, cmd_argv) : check_utf8(c, argc, argv);
	if (r == CMD_CONTINUE && c->parent)
		r = check_misplaced(c, argc, argv);
	if (r != CMD_CONTINUE)
		return r;
	sets = calloc(1 + vmb_nsuites, sizeof(*sets));
	if (!sets || optset_init(own, c->opts, "") < 0) {
		free(sets);
		return EXIT_FAILED;
	}
	sets[0] = *own;
	for (size_t i = 0; (c->flags & CMD_SUITE_OPTS) && suite_sets && i < vmb_nsuites; i++) {
		char prefix[48];

		snprintf(prefix, sizeof(prefix), "%s.", vmb_suites[i]->name);
		if (optset_init(&suite_sets[i], vmb_suites[i]->opts, prefix) < 0) {
			free(sets);
			return EXIT_FAILED;
		}
		sets[n++] = suite_sets[i];
	}
	/* The copies in sets share their value arrays with own and suite_sets. */
	r = opts_parse(argc, argv, sets, n, positional, err, sizeof(err));
	free(sets);
	if (r < 0)
		return cmd_usage_error(c, "%s", err);
	if (optset_bool(own, "help")) {
		cmd_print_help(c);
		return EXIT_OK;
	}
	r = check_common_opts(c, own);
	if (r != CMD_CONTINUE)
		return r;
	if (c->max_args != CMD_ARGS_ANY && positional->n > (size_t)c->max_args)
		return cmd_usage_error(c, "unexpected argument '%s'", positional->v[c->max_args]);
	if (positional->n < (size_t)c->min_args)
		return cmd_usage_error(c, "missing argument: vmbench %s %s", c->name, c->args);
	return CMD_CONTINUE;
}

void cmd_release(struct optset *own, struct optset *suite_sets, struct strv *positional)
{
	optset_release(own);
	for (size_t i = 0; suite_sets && i < vmb_nsuites; i++)
		optset_release(&suite_sets[i]);
	strv_clear(positional);
}

/* Interrupted runs hold only the cases finished before Ctrl-C: a selector
 * leaves them out unless its key "interrupted" asks for them. */
enum { INTERRUPTED_NO, INTERRUPTED_YES, INTERRUPTED_ANY };

struct collect {
	struct db *db;
	json_t *docs;
	int r;
	int interrupted; /* INTERRUPTED_* */
	unsigned left_out;
};

/* Take "interrupted=no|yes|any" out of the label filter: 0, or -EINVAL. */
static int take_interrupted_key(struct strv *filter, int *want)
{
	static const char *const values[] = { [INTERRUPTED_NO] = "no", [INTERRUPTED_YES] = "yes",
					      [INTERRUPTED_ANY] = "any" };

	for (size_t i = 0; i < filter->n; i++) {
		size_t k;

		if (!str_has_prefix(filter->v[i], "interrupted="))
			continue;
		for (k = 0; k < ARRAY_SIZE(values); k++)
			if (!strcmp(filter->v[i] + strlen("interrupted="), values[k]))
				break;
		if (k == ARRAY_SIZE(values))
			return -EINVAL;
		*want = (int)k;
		free(filter->v[i]);
		memmove(&filter->v[i], &filter->v[i + 1], (filter->n - i) * sizeof(*filter->v));
		filter->n--;
		i--;
	}
	return 0;
}

static int collect_row(const struct db_row *row, void *arg)
{
	struct collect *c = arg;
	char id[32];
	json_t *doc;

	/* a lab failure's marker measured nothing: lab report lists it */
	if (row->lab_failure)
		return 0;
	if (row->interrupted && c->interrupted == INTERRUPTED_NO) {
		c->left_out++;
		return 0;
	}
	if (!row->interrupted && c->interrupted == INTERRUPTED_YES)
		return 0;

	snprintf(id, sizeof(id), "%lld", (long long)row->id);
	c->r = db_get(c->db, id, &doc);
	if (c->r < 0)
		return c->r;
	if (json_array_append_new(c->docs, doc) < 0)
		return c->r = log_errno(-ENOMEM, "collecting run %s", id);
	return 0;
}

/* A selector whose runs come from several lab sessions pools runs that
 * were never measured together (another session's NIC comparison beside
 * this one's disks): say which, and how to keep one. */
static void warn_sessions(const char *word, const json_t *docs)
{
	char sessions[1024];
	const char *first;

	if (cmp_sessions_text(docs, sessions, sizeof(sessions)) < 2)
		return;
	first = json_string_value(json_object_get(json_object_get(json_array_get(docs, 0), "labels"), "lab"));
	for (size_t i = 0; !first && i < json_array_size(docs); i++)
		first = json_string_value(json_object_get(json_object_get(json_array_get(docs, i), "labels"), "lab"));
	log_warn("%s pools the runs of several lab sessions (%s); to keep one, add its lab=ID to the selector, "
		 "e.g. %s,lab=%s", word, sessions, word, first ? first : "ID");
}

int cmd_load_operand(const struct vmb_cmd *c, const char *word, const char *db_opt, struct db **db,
		     json_t **docs, char *name, size_t namelen)
{
	char path[4096], err[512];
	struct stat st;
	json_t *doc, *arr;
	int r;

	if (stat(word, &st) == 0 && S_ISREG(st.st_mode)) {
		if (doc_load_file(word, &doc, err, sizeof(err)) < 0) {
			log_error("%s", err);
			return EXIT_USAGE;
		}
		arr = json_pack("[o]", doc);
		if (!arr) {
			log_error("%s: out of memory", word);
			return EXIT_FAILED;
		}
		*docs = arr;
		snprintf(name, namelen, "%s", strrchr(word, '/') ? strrchr(word, '/') + 1 : word);
		return CMD_CONTINUE;
	}
	if (!*db) {
		r = db_default_path(db_opt, path, sizeof(path));
		if (r == -EINVAL)
			return cmd_usage_error(c, "--db: the path is empty; give the store's file or leave --db out");
		if (r < 0)
			return cmd_usage_error(c, "'%s' is no file, and there is no result store (set --db, VMBENCH_DB or HOME)", word);
		r = db_open(path, false, db);
		if (r == -ENOENT)
			return cmd_usage_error(c, "'%s' is no file, and no result store exists at %s", word, path);
		if (r < 0)
			return db_usage_error(r) ? EXIT_USAGE : EXIT_FAILED;
	}
	if (strchr(word, '=')) {
		struct strv filter = { 0 };
		struct collect col = { .db = *db, .docs = json_array() };

		r = db_parse_selector(word, &filter);
		if (r < 0) {
			json_decref(col.docs);
			return cmd_selector_error(c, word, r);
		}
		if (take_interrupted_key(&filter, &col.interrupted) < 0) {
			strv_clear(&filter);
			json_decref(col.docs);
			return cmd_usage_error(c, "selector '%s': interrupted= takes no (the default), yes (only "
						  "interrupted runs) or any", word);
		}
		r = db_list(*db, &filter, collect_row, &col);
		strv_clear(&filter);
		if (r < 0) {
			json_decref(col.docs);
			return EXIT_FAILED;
		}
		if (json_array_size(col.docs) == 0) {
			json_decref(col.docs);
			if (col.left_out)
				return cmd_usage_error(c, "no complete stored run has the labels %s (%u interrupted "
							  "left out; add interrupted=any to include them)", word,
						       col.left_out);
			return cmd_usage_error(c, "no stored run has the labels %s; 'vmbench results' lists them", word);
		}
		if (col.left_out)
			log_info("%s: %u interrupted run%s left out (add interrupted=any to include)", word,
				 col.left_out, col.left_out == 1 ? "" : "s");
		warn_sessions(word, col.docs);
		*docs = col.docs;
		snprintf(name, namelen, "%s", word);
		return CMD_CONTINUE;
	}
	r = db_get(*db, word, &doc);
	if (r == -ENOENT)
		return cmd_usage_error(c, "'%s' is neither a file, a stored run, nor a KEY=VALUE selector", word);
	/* -EINVAL: an ambiguous id prefix; -EBADMSG (an unreadable stored
	 * document) is the store's fault, exit 1 as by selector and in show */
	if (r < 0)
		return r == -EINVAL ? EXIT_USAGE : EXIT_FAILED;
	arr = json_pack("[o]", doc);
	if (!arr) {
		log_error("run %s: out of memory", word);
		return EXIT_FAILED;
	}
	*docs = arr;
	snprintf(name, namelen, "run %s", word);
	return CMD_CONTINUE;
}

/* First Ctrl-C (or SIGTERM, SIGHUP): finish cleanly. A second one: the
 * command's async-signal-safe cleanup, then the default action, for a user
 * who will not wait. */
static void (*stop_cleanup)(void);

static void on_stop_signal(int sig)
{
	if (vmb_stop_requested()) {
		if (stop_cleanup)
			stop_cleanup();
		(void)signal(sig, SIG_DFL);
		(void)raise(sig);
		return;
	}
	vmb_request_stop();
}

int cmd_install_stop_signals(void (*cleanup)(void))
{
	struct sigaction sa;

	stop_cleanup = cleanup;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	/* one stop signal handled at a time, in the order they came: a SIGUSR1
	 * pending beside a SIGINT (lab run over several hosts: the parent's
	 * stop request after the terminal's Ctrl-C) would otherwise run first,
	 * on top of the SIGINT's handler, and make the SIGINT a second one */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaddset(&sa.sa_mask, SIGUSR1);
	if (sigaction(SIGINT, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0 ||
	    sigaction(SIGHUP, &sa, NULL) < 0)
		return -errno;
	return 0;
}

int cmd_set_labels(json_t *doc, const struct strv *kv)
{
	json_t *labels = json_object_get(doc, "labels");

	if (!json_is_object(labels)) {
		labels = json_object();
		if (!labels || json_object_set_new(doc, "labels", labels) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; i < kv->n; i++) {
		const char *eq = strchr(kv->v[i], '=');
		char key[128];

		if (!eq)
			continue; /* OPT_KV rows always have one */
		snprintf(key, sizeof(key), "%.*s", (int)(eq - kv->v[i]), kv->v[i]);
		if (json_object_set_new(labels, key, json_string(eq + 1)) < 0)
			return -ENOMEM;
	}
	return 0;
}

int cmd_check_output(const struct vmb_cmd *c, const char *out)
{
	if (out && strcmp(out, "-") && access(out, F_OK) == 0)
		return cmd_usage_error(c, "-o: '%s' exists; vmbench writes only new files, choose another name", out);
	return CMD_CONTINUE;
}

int cmd_write_html(const struct cmp_table *t, const char *title, const char *out, const char *stem)
{
	char *html = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&html, &len);
	int r;

	if (!mem || html_report(mem, t, title) < 0 || fclose(mem) != 0) {
		if (mem)
			(void)fclose(mem);
		free(html);
		log_error("out of memory writing the report");
		return -ENOMEM;
	}
	r = cmd_write_report(html, len, out, stem);
	free(html);
	return r;
}

int cmd_write_report(const char *html, size_t len, const char *out, const char *stem)
{
	char path[4200];
	int r;

	if (out && !strcmp(out, "-")) {
		r = file_write_stdout(html, len);
		return r < 0 ? log_errno(r, "writing the report to stdout") : 0;
	}
	if (out) {
		snprintf(path, sizeof(path), "%s", out);
		r = file_write_new(path, html, len);
	} else {
		/* a name of its own: STEM-DATE-TIME.html, numbered if two runs share the second */
		time_t now = time(NULL);
		struct tm tm;
		char base[128];

		gmtime_r(&now, &tm);
		strftime(base, sizeof(base), "%Y%m%d-%H%M%S", &tm);
		r = -EEXIST;
		for (unsigned n = 1; r == -EEXIST && n < 1000; n++) {
			if (n == 1)
				snprintf(path, sizeof(path), "%s-%s.html", stem, base);
			else
				snprintf(path, sizeof(path), "%s-%s-%u.html", stem, base, n);
			r = file_write_new(path, html, len);
		}
	}
	if (r < 0)
		return log_errno(r, "writing the report '%s'%s", path, r == -EEXIST ? " (vmbench writes only new files)" : "");
	log_info("wrote %s (%zu bytes)", path, len);
	return 0;
}

int cmd_selector_error(const struct vmb_cmd *c, const char *word, int r)
{
	char why[600];

	if (r == -ENOMEM)
		return log_errno(r, "reading the selector"), EXIT_FAILED;
	if (db_selector_why(word, why, sizeof(why)) == 0)
		snprintf(why, sizeof(why), "each part must be KEY=VALUE, e.g. hv=kvm,disk=sata");
	/* the word itself only when it is printable: it may hold any byte */
	if (str_find_control(word, strlen(word)) >= 0)
		return cmd_usage_error(c, "a selector: %s", why);
	return cmd_usage_error(c, "selector '%.80s%s': %s", word, strlen(word) > 80 ? "..." : "", why);
}

int cmd_check_user_labels(const struct vmb_cmd *c, const struct strv *kv)
{
	char why[600];

	for (size_t i = 0; i < kv->n; i++)
		if (label_check_kv(kv->v[i], LABEL_SET, why, sizeof(why)) < 0)
			return cmd_usage_error(c, "--label number %zu: %s", i + 1, why);
	return CMD_CONTINUE;
}

bool cmd_lab_doc(const json_t *doc)
{
	return json_is_string(json_object_get(doc, LAB_CONFIG_KEY)) ||
	       json_is_string(json_object_get(json_object_get(doc, "labels"), "config"));
}

/* Whether own has the row name and it was given (a verb's table may lack it) */
static bool given(const struct optset *own, const char *name)
{
	for (size_t i = 0; i < own->n; i++)
		if (!strcmp(own->opts[i].name, name))
			return own->vals[i].set;
	return false;
}

int cmd_rounds_from(const struct vmb_cmd *c, const struct optset *own, const char *name, unsigned max, unsigned *n,
		    bool *autop)
{
	const char *w = optset_str(own, name);
	int64_t k;

	*autop = !strcmp(w, "auto");
	if (*autop)
		*n = max;
	else if (parse_i64(w, 1, max, &k) == 0)
		*n = (unsigned)k;
	else
		return cmd_usage_error(c, "--%s '%s': give a number from 1 to %u, or auto", name, w, max);
	if (!*autop && (given(own, "mdd") || given(own, "budget-total")))
		return cmd_usage_error(c, "--mdd and --budget-total say when --%s auto stops; give --%s auto", name, name);
	return CMD_CONTINUE;
}
