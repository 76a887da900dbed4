/* Application suite: what a user of the VM feels. sysbench's OLTP
 * transactions on an embedded SQLite or a PostgreSQL/MariaDB server
 * (app_oltp.c), process creation as lmbench's lat_proc (app_proc.c), and
 * fs_mark-style small-file work (app_files.c), a compile with its
 * configuration step and an incremental rebuild (app_build.c), and a
 * package manager's update and install from a local mirror (app_apt.c).
 *
 * Files are created only inside --app.dir, under new unique names, and
 * removed after success, errors and Ctrl-C; on a server only the sbtest
 * tables it created itself, dropped afterwards. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "app.h"
#include "../core/banned.h"

/* What --app.dir is on, for the notes: small files and a database on tmpfs
 * measure memory, not a disk, and the result should say so. */
static const struct {
	unsigned long magic;
	const char *name;
} fs_names[] = {
	{ EXT4_SUPER_MAGIC, "ext4" }, /* also ext2 and ext3 */
	{ XFS_SUPER_MAGIC, "xfs" }, { BTRFS_SUPER_MAGIC, "btrfs" }, { TMPFS_MAGIC, "tmpfs (memory)" },
	{ RAMFS_MAGIC, "ramfs (memory)" }, { OVERLAYFS_SUPER_MAGIC, "overlayfs" }, { NFS_SUPER_MAGIC, "nfs" },
	{ 0x2fc12fc1, "zfs" }, { 0x65735546, "fuse" }, { 0x794c7630, "overlayfs" },
	{ 0x6a656a63, "virtiofs" }, { 0x01021997, "9p" },
};

static void note_fs(struct vmb_ctx *ctx, const char *dir)
{
	struct statfs sfs;

	if (statfs(dir, &sfs) < 0)
		return;
	for (size_t i = 0; i < sizeof(fs_names) / sizeof(fs_names[0]); i++)
		if ((unsigned long)sfs.f_type == fs_names[i].magic) {
			(void)vmb_note(ctx, "app_dir_fs", "%s", fs_names[i].name);
			return;
		}
	(void)vmb_note(ctx, "app_dir_fs", "magic 0x%lx", (unsigned long)sfs.f_type);
}

static int app_setup(struct vmb_ctx *ctx)
{
	const char *dir = optset_str(ctx->opts, "dir");
	struct app_state *as;
	struct stat sb;
	int r;

	/* an unset shell variable ("--app.dir $DIR") must not mean "/" */
	if (!dir || !*dir)
		return vmb_usage(ctx, "--app.dir is empty: name the directory the files are created in");
	if (stat(dir, &sb) < 0)
		return vmb_usage(ctx, "--app.dir %s: %s", dir, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return vmb_usage(ctx, "--app.dir %s is not a directory", dir);
	r = app_oltp_check_url(ctx, optset_str(ctx->opts, "db"));
	if (r < 0)
		return r;
	r = app_apt_check(ctx);
	if (r < 0)
		return r;
	/* build's -j0 is the CPUs: the count it ran with is the parameter, so
	 * that the document says what was measured (and a document's jobs is
	 * at least 1: a guest's with 0 was refused by the host) */
	if (optset_int(ctx->opts, "jobs") == 0 &&
	    (r = vmb_param_actual(ctx, "jobs", "%u", ctx->env->ncpus ? ctx->env->ncpus : 1)) < 0)
		return vmb_fail(ctx, r, "recording --app.jobs");
	if (optset_str(ctx->opts, "db")) { /* a password never reaches the stored result */
		const char *db = optset_str(ctx->opts, "db");
		char *shown = malloc(APP_URL_SHOWN_LEN(db)); /* whole, however long */

		if (!shown)
			return vmb_fail(ctx, -ENOMEM, "recording --app.db");
		app_oltp_url_shown(db, shown, APP_URL_SHOWN_LEN(db));
		r = strcmp(shown, db) ? vmb_param_actual(ctx, "db", "%s", shown) : 0;
		free(shown);
		if (r < 0)
			return vmb_fail(ctx, r, "recording --app.db");
	}
	/* a read-only working directory (a read-only checkout, a container's
	 * root) is the machine's; a directory the user named is the user's */
	if (access(dir, W_OK) < 0 && (errno == EROFS || errno == EACCES || errno == EPERM)) {
		if (optset_get(ctx->opts, "dir")->set)
			return vmb_usage(ctx, "--app.dir %s takes no new files (%s); name a directory you can write",
					 dir, strerror(errno));
		r = errno;
		as = calloc(1, sizeof(*as));
		if (!as)
			return vmb_fail(ctx, -ENOMEM, "app state");
		snprintf(as->dir_skip, sizeof(as->dir_skip), "the working directory takes no new files (%s): give "
			 "--app.dir DIR on the filesystem to measure", strerror(r));
	} else {
		as = calloc(1, sizeof(*as));
		if (!as)
			return vmb_fail(ctx, -ENOMEM, "app state");
	}
	snprintf(as->dir, sizeof(as->dir), "%s", dir);
	ctx->priv = as;
	note_fs(ctx, dir);
	return 0;
}

static void app_teardown(struct vmb_ctx *ctx)
{
	if (!ctx->priv)
		return;
	app_oltp_cleanup(ctx);
	app_proc_cleanup(ctx);
	free(ctx->priv);
	ctx->priv = NULL;
}

/* Whether a test runs at all: 0, or a skip with its reason. A long test is
 * left out of --quick, which has about 4 s for the whole suite (one OLTP
 * script's two thread counts, app.proc and app.files), unless it was named
 * (app.build): asked for by name, it runs, with --quick's sizes; a test that
 * writes in the directory skips when the default one takes no files. */
static int app_gate(struct vmb_ctx *ctx, bool long_test, bool writes_dir)
{
	const struct app_state *as = ctx->priv;

	if (ctx->env->quick && long_test && !ctx->named)
		return vmb_skip(ctx, "not part of --quick (it would take the quick run past its time budget): name it "
				     "(e.g. app.build) or run it without --quick");
	if (as->dir_skip[0] && writes_dir)
		return vmb_skip(ctx, "%s", as->dir_skip);
	return 0;
}

/* OLTP writes in the directory only when the database is the embedded one
 * (not a server named by --app.db URL). */
static int app_oltp(struct vmb_ctx *ctx, enum oltp_kind kind, bool long_test, struct vmb_rep *rep)
{
	int r = app_gate(ctx, long_test, !strcmp(optset_str(ctx->opts, "db"), "sqlite"));

	return r < 0 ? r : app_oltp_run(ctx, kind, rep);
}

static int app_run_oltp_rw(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	(void)test;
	return app_oltp(ctx, OLTP_READ_WRITE, false, rep);
}

static int app_run_oltp_ro(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	(void)test;
	return app_oltp(ctx, OLTP_READ_ONLY, true, rep);
}

static int app_run_oltp_ps(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	(void)test;
	return app_oltp(ctx, OLTP_POINT_SELECT, true, rep);
}

static int app_run_oltp_ui(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	(void)test;
	return app_oltp(ctx, OLTP_UPDATE_INDEX, true, rep);
}

static int app_run_proc(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	int r = app_gate(ctx, false, true);

	(void)test;
	return r < 0 ? r : app_proc_run(ctx, rep);
}

static int app_run_files(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	int r = app_gate(ctx, false, true);

	(void)test;
	return r < 0 ? r : app_files_run(ctx, rep);
}

static int app_run_apt(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	int r = app_gate(ctx, true, true);

	(void)test;
	return r < 0 ? r : app_apt_run(ctx, rep);
}

static int app_run_build(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	int r = app_gate(ctx, true, true);

	(void)test;
	return r < 0 ? r : app_build_run(ctx, rep);
}

#define OLTP_PARAMS "db,tables,table-size,sync"

static const struct vmb_test app_tests[] = {
	{ .name = "oltp_read_write", .summary = "sysbench oltp_read_write: 18 statements in a transaction",
	  .headline = "tps", .flags = VMB_TEST_THREADED | VMB_TEST_ON_FS, .params = OLTP_PARAMS, .run = app_run_oltp_rw },
	{ .name = "oltp_read_only", .summary = "sysbench oltp_read_only: 10 point and 4 range selects",
	  .headline = "tps", .flags = VMB_TEST_THREADED | VMB_TEST_ON_FS, .params = OLTP_PARAMS, .run = app_run_oltp_ro },
	{ .name = "oltp_point_select", .summary = "sysbench oltp_point_select: one select by primary key",
	  .headline = "tps", .flags = VMB_TEST_THREADED | VMB_TEST_ON_FS, .params = OLTP_PARAMS, .run = app_run_oltp_ps },
	{ .name = "oltp_update_index", .summary = "sysbench oltp_update_index: one indexed update, autocommit",
	  .headline = "tps", .flags = VMB_TEST_THREADED | VMB_TEST_ON_FS, .params = OLTP_PARAMS, .run = app_run_oltp_ui },
	{ .name = "proc", .summary = "lat_proc: fork+exit, fork+exec of a tiny static program, posix_spawn, ns each",
	  .headline = "fork_exit", .run = app_run_proc },
	{ .name = "files", .summary = "fs_mark-style small files: create+write, stat, list, rename, unlink per second",
	  .headline = "create_per_s", .params = "files,file-size,fsync", .flags = VMB_TEST_ON_FS, .run = app_run_files },
	{ .name = "build", .summary = "configure (compiler checks), compile a generated C corpus with -jN, then an "
				      "incremental rebuild after one file is touched (where a compiler is installed)",
	  .headline = "build_s", .params = "units,jobs,probes", .flags = VMB_TEST_ON_FS | VMB_TEST_UNTIMED, .run = app_run_build },
	{ .name = "apt", .summary = "apt-get update and install --reinstall of a package from a local mirror "
				    "(--app.apt-mirror; with --destructive, as root, where apt-get is)",
	  .headline = "apt_total_s", .params = "apt-package", .flags = VMB_TEST_ON_FS | VMB_TEST_UNTIMED,
	  .run = app_run_apt },
	{ .name = NULL },
};

static const struct vmb_opt app_opts[] = {
	{ .name = "db", .type = OPT_STRING, .def = "sqlite", .metavar = "URL",
	  .help = "the OLTP back end: sqlite (embedded, a new file in --app.dir), postgresql://USER@HOST:PORT/DB or "
		  "mysql://USER:PASSWORD@HOST:PORT/DB[?socket=PATH] (a server; vmbench creates tables sbtest1..N there, refuses "
		  "existing ones, and drops them afterwards)" },
	{ .name = "tables", .type = OPT_INT, .min = 1, .max = 1000, .def = "1", .metavar = "N",
	  .help = "OLTP: number of tables, as sysbench --tables" },
	{ .name = "table-size", .type = OPT_INT, .min = 100, .max = 100000000, .def = "10000", .metavar = "N",
	  .help = "OLTP: rows per table, as sysbench --table-size" },
	{ .name = "sync", .type = OPT_STRING, .def = "normal", .choices = "normal|full", .metavar = "MODE",
	  .help = "OLTP on SQLite: PRAGMA synchronous (normal: WAL fsynced at checkpoints; full: at every commit)" },
	{ .name = "dir", .type = OPT_STRING, .def = ".", .metavar = "DIR",
	  .help = "where the embedded database, the small files, the program app.proc runs and the build corpus "
		  "are created (new, uniquely named, removed afterwards)" },
	{ .name = "files", .type = OPT_INT, .min = 1, .max = 1000000, .def = "1000", .quick = "200", .metavar = "N",
	  .help = "files: files per batch, created, listed, renamed and removed together" },
	{ .name = "file-size", .type = OPT_SIZE, .min = 0, .max = 64 << 20, .def = "4k", .metavar = "SIZE",
	  .help = "files: bytes written to each file, as fs_mark -s" },
	{ .name = "fsync", .type = OPT_BOOL, .help = "files: fsync each file before closing it (fs_mark -S 1)" },
	{ .name = "units", .type = OPT_INT, .min = 1, .max = 10000, .def = "16", .quick = "4", .metavar = "N",
	  .help = "build: translation units in the generated corpus" },
	{ .name = "jobs", .type = OPT_INT, .min = 0, .max = 4096, .def = "0", .metavar = "N",
	  .help = "build: compiles at once, as make -jN; 0 for the number of CPUs" },
	{ .name = "probes", .type = OPT_INT, .min = 0, .max = APP_BUILD_PROBES, .def = "16", .quick = "4",
	  .metavar = "N", .help = "build: checks of the configuration step (configure_s), each a program compiled and "
				  "linked, one after another; 0: no configuration step" },
	{ .name = "apt-mirror", .type = OPT_STRING, .metavar = "URL",
	  .help = "apt: a flat repository of this system's packages ('deb [trusted=yes] URL ./'); 'vmbench lab run' "
		  "serves its Debian guests' own from the host" },
	{ .name = "apt-package", .type = OPT_STRING, .def = "hostname", .metavar = "NAME",
	  .help = "apt: the installed package reinstalled from the mirror (a small one of every Debian system by "
		  "default)" },
	OPT_TABLE_END,
};

const struct vmb_suite app_suite = {
	.name = "app",
	.summary = "applications: sysbench OLTP (SQLite, PostgreSQL, MariaDB), lat_proc, fs_mark, a compile",
	.abi = VMB_SUITE_ABI,
	.tests = app_tests,
	.opts = app_opts,
	.setup = app_setup,
	.teardown = app_teardown,
	/* the lab puts --app.dir on the filesystem of the disk under test */
	.scratch = &(const struct vmb_scratch){ .dir_opt = "dir" },
	/* the lab names the configuration's database (db=mariadb) in --app.db */
	.db_opt = "db",
	/* and serves app.apt its guest image's packages */
	.mirror = &(const struct vmb_mirror){ .test = "apt", .url_opt = "apt-mirror" },
};
