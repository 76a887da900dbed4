/* Where a run's result goes, checked before measuring (--json paths, one
 * per round with --runs; the result store), and where it goes when those
 * fail after measuring (a new file in the first place that takes it). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "run_output.h"
#include "../core/log.h"
#include "../core/str.h"
#include "../store/db.h"
#include "../core/banned.h"

/* Can files be created in dir? A real try, not access(): root passes
 * access() on a read-only mount. */
static int dir_writable(const char *dir)
{
	char *probe = xasprintf("%s/.vmbench-probe-XXXXXX", dir);
	int fd, r = 0;

	if (!probe)
		return -ENOMEM;
	fd = mkostemp(probe, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
	} else {
		close(fd);
		(void)unlink(probe);
	}
	free(probe);
	return r;
}

static void dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(buf, len, ".");
	else if (slash == path)
		snprintf(buf, len, "/");
	else
		snprintf(buf, len, "%.*s", (int)(slash - path), path);
}

/* Every output is checked before measuring: a bad path must not cost a
 * whole run. --json: a new file (nothing there, not even a dangling
 * symlink, which link() would refuse only at the end) in a directory that
 * exists and takes new files. Returns CMD_CONTINUE, or an exit code. */
static int check_json_path(const struct vmb_cmd *self, const char *path)
{
	struct stat st;
	char dir[4096];
	int r;

	if (lstat(path, &st) == 0)
		return cmd_usage_error(self, "--json: '%s' exists%s; vmbench writes only new files, choose another name",
				       path, S_ISLNK(st.st_mode) ? " (a symbolic link)" : "");
	dir_of(path, dir, sizeof(dir));
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return cmd_usage_error(self, "--json: directory '%s' does not exist; create it or choose another path",
				       dir);
	r = dir_writable(dir);
	if (r < 0)
		return cmd_usage_error(self, "--json: cannot create files in '%s': %s; choose another path", dir,
				       strerror(-r));
	return CMD_CONTINUE;
}

/* The store, before db_open(): an existing file must open for writing and
 * its directory take new files (SQLite's journal goes beside it). */
static int check_store_path(const struct vmb_cmd *self, const char *path)
{
	char dir[4096];
	int fd, r;

	if (db_is_postgres(path))
		return CMD_CONTINUE; /* a server's: db_open() connects and says what is wrong */
	if (access(path, F_OK) == 0) {
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return cmd_usage_error(self, "the result store '%s' is not writable: %s; choose another with "
						     "--db, or --no-store", path, strerror(errno));
		close(fd);
	}
	dir_of(path, dir, sizeof(dir));
	if (access(dir, F_OK) < 0)
		return CMD_CONTINUE; /* db_open() creates it */
	r = dir_writable(dir);
	if (r < 0)
		return cmd_usage_error(self, "the result store's directory '%s' does not take new files: %s; choose "
					     "another store with --db, or --no-store", dir, strerror(-r));
	return CMD_CONTINUE;
}

/* The store was named (--db, VMBENCH_DB): what is wrong with it is the user's to fix. */
static bool store_named(const struct optset *own)
{
	const char *env = getenv("VMBENCH_DB");

	return optset_str(own, "db") || (env && *env);
}

/* The default store ($XDG_DATA_HOME or $HOME/.local/share) where the
 * machine has no place for it: no HOME, a HOME that does not exist (never
 * made: /nonexistent is a promise), or one that takes no files. Quietly:
 * true with why set, or false when the store can be opened as usual. */
static bool default_store_unusable(char *path, size_t len, char *why, size_t wlen)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME"), *base;
	char dir[4096];
	struct stat st;
	int r;

	if (db_default_path(NULL, path, len) < 0) {
		snprintf(why, wlen, "neither XDG_DATA_HOME nor HOME is set");
		return true;
	}
	base = xdg && *xdg == '/' ? xdg : home;
	if (stat(base, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, wlen, "%s '%s' is no directory", base == xdg ? "XDG_DATA_HOME" : "HOME", base);
		return true;
	}
	if (access(path, F_OK) == 0) {
		int fd = open(path, O_WRONLY | O_CLOEXEC);

		if (fd >= 0) {
			close(fd);
			return false;
		}
		snprintf(why, wlen, "'%s' is not writable: %s", path, strerror(errno));
		return true;
	}
	/* the first directory on the way that exists must take new files */
	dir_of(path, dir, sizeof(dir));
	while (access(dir, F_OK) < 0 && strchr(dir + 1, '/'))
		*strrchr(dir, '/') = '\0';
	r = dir_writable(dir);
	if (r < 0) {
		snprintf(why, wlen, "'%s' takes no new files: %s", dir, strerror(-r));
		return true;
	}
	return false;
}

/* A finished run is never lost: when an output failed after measuring, the
 * document goes to a new file in the first place that takes it. */
int run_save_elsewhere(const json_t *doc, const char *unstored)
{
	const char *id = json_string_value(json_object_get(doc, "id"));
	const char *dirs[] = { getenv("TMPDIR"), "/tmp", ".", getenv("HOME") };
	char *text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
	int r = -ENOMEM;

	for (size_t i = 0; text && i < ARRAY_SIZE(dirs); i++) {
		char *path;

		if (!dirs[i] || !*dirs[i])
			continue;
		path = xasprintf("%s/vmbench-result-%.8s.json", dirs[i], id ? id : "run");
		if (!path)
			break;
		r = file_write_new(path, text, strlen(text));
		if (r == 0 && unstored)
			log_warn("not stored (%s): the result is in %s (see it with 'vmbench show %s', store it with "
				 "'vmbench import %s --db PATH')", unstored, path, path, path);
		else if (r == 0)
			log_error("the result was saved to %s instead (see it with 'vmbench show %s')", path, path);
		free(path);
		if (r == 0)
			break;
	}
	if (r < 0)
		log_errno(r, "saving the result anywhere else ($TMPDIR, /tmp, here, $HOME); it is lost");
	free(text);
	return r;
}

/* FILE.json -> FILE-rK.json (or FILE-rK when there is no .json). */
char *run_round_json_path(const char *path, unsigned k)
{
	size_t l = strlen(path);

	if (l > 5 && !strcmp(path + l - 5, ".json"))
		return xasprintf("%.*s-r%u.json", (int)(l - 5), path, k);
	return xasprintf("%s-r%u", path, k);
}

/* The result store the run goes to, opened: *db stays NULL with --no-store,
 * and when the machine has no place for the default store (unstored then
 * says why; the run goes on and keeps its document). CMD_CONTINUE, or the
 * exit code. */
int run_store_open(const struct vmb_cmd *self, const struct optset *own, char *db_path, size_t pathlen,
		   char *unstored, size_t unstoredlen, struct db **db)
{
	int r;

	if (optset_bool(own, "no-store"))
		return CMD_CONTINUE;
	if (!store_named(own) && default_store_unusable(db_path, pathlen, unstored, unstoredlen)) {
		/* nothing the user gave is wrong: the machine has no place for
		 * the default store; the run goes on and keeps its document */
		log_warn("no result store: %s; this run's document goes to a new file, named at the end (give --db "
			 "PATH or set VMBENCH_DB to store it)", unstored);
		return CMD_CONTINUE;
	}
	unstored[0] = '\0';
	if (db_default_path(optset_str(own, "db"), db_path, pathlen) < 0)
		return cmd_usage_error(self, "no place for the result store: set --db, VMBENCH_DB or HOME");
	r = check_store_path(self, db_path);
	if (r != CMD_CONTINUE)
		return r;
	r = db_open(db_path, true, db);
	if (r < 0)
		return db_usage_error(r) ? EXIT_USAGE : EXIT_FAILED;
	return CMD_CONTINUE;
}

/* --json with --runs: one document each round, every file new. CMD_CONTINUE,
 * or the exit code of a usage error. */
int run_check_json_paths(const struct vmb_cmd *self, const char *json_path, unsigned nruns, bool autorun)
{
	int ret;

	if (!json_path)
		return CMD_CONTINUE;
	if (!strcmp(json_path, "-") && autorun)
		return cmd_usage_error(self, "--json - writes one document, and --runs auto makes one a round; give "
				       "--json FILE.json (written as FILE-r1.json, FILE-r2.json, ...)");
	if (!strcmp(json_path, "-"))
		return nruns > 1 ? cmd_usage_error(self, "--json - writes one document, and --runs %u makes %u; give "
							  "--json FILE.json (written as FILE-r1.json ... FILE-r%u.json)",
						   nruns, nruns, nruns)
				 : CMD_CONTINUE;
	for (unsigned k = 1; k <= nruns; k++) {
		char *p = nruns > 1 ? run_round_json_path(json_path, k) : NULL;

		ret = check_json_path(self, p ? p : json_path);
		free(p);
		if (ret != CMD_CONTINUE)
			return ret;
	}
	return CMD_CONTINUE;
}
