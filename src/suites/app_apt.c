/* app.apt: a package manager's operation, timed: `apt-get update` from a
 * flat repository (--app.apt-mirror, as `vmbench lab run` serves its
 * image's own packages from the host, so that no network beyond the
 * machine is used) and `apt-get install --reinstall` of one package from
 * it. apt works in a directory of its own in --app.dir (its sources list,
 * package lists and downloaded archives), so each repetition starts from
 * nothing and the system's own lists and cache stay as they were; the
 * reinstall puts the same version of the package back, which is why the
 * test asks for --destructive. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "../core/clock.h"
#include "../core/file.h"
#include "../core/spawn.h"
#include "../core/stop.h"
#include "../core/banned.h"

/* Each apt-get is bounded by coreutils' timeout (a mirror that stops
 * answering must not hold the run) */
#define APT_LIMIT "600"

/* apt-get is where Debian puts it, or nowhere */
static const char *apt_get(void)
{
	return access("/usr/bin/apt-get", X_OK) == 0 ? "/usr/bin/apt-get" : NULL;
}

/* Debian Policy 5.6.1: lowercase letters, digits, + - ., at least two,
 * an alphanumeric first (so never an option of apt-get's) */
static bool apt_package_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 2 || n > 128 || !strchr("abcdefghijklmnopqrstuvwxyz0123456789", s[0]))
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789+-.") == n;
}

/* An http:// or https:// URL of printable characters, no space, no
 * bracket: it is a word of one sources.list line */
static bool apt_mirror_ok(const char *s)
{
	size_t n = strlen(s);

	if (n > 1024 || (strncmp(s, "http://", 7) && strncmp(s, "https://", 8)))
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] >= 0x7f || s[i] == '[' || s[i] == ']' || s[i] == '#')
			return false;
	return true;
}

int app_apt_check(struct vmb_ctx *ctx)
{
	const char *mirror = optset_str(ctx->opts, "apt-mirror"), *pkg = optset_str(ctx->opts, "apt-package");

	if (pkg && !apt_package_ok(pkg))
		return vmb_usage(ctx, "--app.apt-package '%.64s' is no Debian package name: give lowercase letters, "
				 "digits, '+', '-' and '.', a letter or digit first (e.g. hostname)", pkg);
	if (mirror && !apt_mirror_ok(mirror))
		return vmb_usage(ctx, "--app.apt-mirror '%.64s' is no URL apt takes here: give http://HOST[:PORT]/PATH "
				 "(or https://), without spaces, brackets or '#'", mirror);
	return 0;
}

/* The work directory's tree, made new: DIR/sources.list,
 * DIR/sources.list.d (empty: the system's parts are not read),
 * DIR/lists/partial, DIR/archives/partial. */
static int apt_tree(const char *dir, const char *mirror)
{
	static const char *const sub[] = { "sources.list.d", "lists", "lists/partial", "archives", "archives/partial" };
	char p[PATH_MAX + 64], line[1200]; /* the mirror: 1024 at most (app_apt_check) */
	int r = 0;

	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, sub[i]);
		if (mkdir(p, 0755) < 0)
			return -errno;
	}
	snprintf(p, sizeof(p), "%s/sources.list", dir);
	snprintf(line, sizeof(line), "deb [trusted=yes] %s ./\n", mirror);
	r = file_write_new(p, line, strlen(line));
	return r;
}

static void apt_clean(const char *dir)
{
	char *const rm[] = { "rm", "-rf", "--one-file-system", (char *)dir, NULL };

	if (dir[0] && access(dir, F_OK) == 0)
		(void)run_capture(rm[0], rm, NULL, NULL);
}

/* One apt-get with the work directory's configuration: 0, or what it said */
static int apt_run(const char *dir, const char *const *args, size_t nargs, uint64_t *ns, char *why, size_t len)
{
	char o[6][PATH_MAX + 48], *out = NULL;
	char *argv[32];
	size_t n = 0;
	uint64_t t0;
	int r;

	snprintf(o[0], sizeof(o[0]), "Dir::Etc::SourceList=%s/sources.list", dir);
	snprintf(o[1], sizeof(o[1]), "Dir::Etc::SourceParts=%s/sources.list.d", dir);
	snprintf(o[2], sizeof(o[2]), "Dir::State::Lists=%s/lists", dir);
	snprintf(o[3], sizeof(o[3]), "Dir::Cache::Archives=%s/archives", dir);
	/* no binary caches in /var/cache/apt from our lists */
	snprintf(o[4], sizeof(o[4]), "Dir::Cache::pkgcache=");
	snprintf(o[5], sizeof(o[5]), "Dir::Cache::srcpkgcache=");
	argv[n++] = "timeout";
	argv[n++] = APT_LIMIT;
	argv[n++] = (char *)apt_get();
	argv[n++] = "-q";
	for (size_t i = 0; i < 6; i++) {
		argv[n++] = "-o";
		argv[n++] = o[i];
	}
	for (size_t i = 0; i < nargs && n < 31; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	t0 = clock_ns();
	r = run_capture_all(argv[0], argv, &out);
	*ns = clock_ns() - t0;
	if (r < 0) {
		/* its last line says why (E: ...) */
		char *end = out ? out + strlen(out) : NULL, *last;

		while (end && end > out && end[-1] == '\n')
			*--end = '\0';
		last = out ? strrchr(out, '\n') : NULL;
		snprintf(why, len, "%s", last ? last + 1 : out && *out ? out : r == -ECHILD ? "it failed" : strerror(-r));
	}
	free(out);
	return r;
}

int app_apt_run(struct vmb_ctx *ctx, struct vmb_rep *rep)
{
	struct app_state *as = ctx->priv;
	const char *mirror = optset_str(ctx->opts, "apt-mirror"), *pkg = optset_str(ctx->opts, "apt-package");
	const char *update[] = { "update" };
	const char *install[] = { "-y", "--reinstall", "--no-install-recommends", "install", pkg };
	char dir[PATH_MAX], why[512];
	uint64_t t_update = 0, t_install = 0;
	int r;

	if (!apt_get())
		return vmb_skip(ctx, "apt-get is not installed here (app.apt times Debian's package manager)");
	if (!mirror)
		return vmb_skip(ctx, "no --app.apt-mirror URL: a flat repository ('deb [trusted=yes] URL ./') of "
				     "this system's packages, as 'vmbench lab run' serves its Debian guests'");
	if (geteuid() != 0)
		return vmb_skip(ctx, "apt-get install needs root");
	if (!ctx->env->destructive)
		return vmb_skip(ctx, "it reinstalls %s in this system: give --destructive", pkg);
	snprintf(dir, sizeof(dir), "%s/vmbench-apt-XXXXXX", as->dir);
	if (!mkdtemp(dir))
		return vmb_fail(ctx, -errno, "creating a directory in %s", as->dir);
	r = apt_tree(dir, mirror);
	if (r < 0) {
		apt_clean(dir);
		return vmb_fail(ctx, r, "writing apt's sources list in %s", dir);
	}
	r = apt_run(dir, update, 1, &t_update, why, sizeof(why));
	if (r < 0) {
		apt_clean(dir);
		/* Ctrl-C reached apt-get too: an interruption, not apt's failure */
		return vmb_stop_requested() ? -EINTR : vmb_fail(ctx, -EIO, "apt-get update from %s: %s", mirror, why);
	}
	r = vmb_stop_requested() ? -EINTR : apt_run(dir, install, 5, &t_install, why, sizeof(why));
	apt_clean(dir);
	if (r == -EINTR || (r < 0 && vmb_stop_requested()))
		return -EINTR;
	if (r < 0)
		return vmb_fail(ctx, -EIO, "apt-get install --reinstall %s from %s: %s", pkg, mirror, why);
	(void)vmb_note(ctx, "apt", "apt-get update from %s, then install --reinstall %s, lists and archives new "
				  "each repetition", mirror, pkg);
	vmb_rep_value(rep, "apt_total_s", VMB_UNIT_S, VMB_LOWER, (double)(t_update + t_install) / NSEC_PER_SEC);
	vmb_rep_value(rep, "apt_update_s", VMB_UNIT_S, VMB_LOWER, (double)t_update / NSEC_PER_SEC);
	vmb_rep_value(rep, "apt_install_s", VMB_UNIT_S, VMB_LOWER, (double)t_install / NSEC_PER_SEC);
	return 0;
}
