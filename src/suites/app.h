/* The application suite's parts: OLTP transactions (app_oltp.c and its
 * database back ends), process creation (app_proc.c), small files (app_files.c) and a
 * compile (app_build.c). app.c holds the descriptor and the options. */
#ifndef VMB_APP_H
#define VMB_APP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "../core/suite.h"

struct oltp_state;

struct app_state {
	char dir[PATH_MAX];       /* --app.dir, checked */
	struct oltp_state *oltp;  /* prepared on the first OLTP test, cleaned up in teardown */
	char exe[PATH_MAX];       /* the tiny static program app.proc executes, or "" */
	char dir_skip[200];       /* why the default directory cannot take the files, or "" */
};

/* The OLTP workloads: sysbench 1.0's scripts of the same names. */
enum oltp_kind { OLTP_READ_WRITE, OLTP_READ_ONLY, OLTP_POINT_SELECT, OLTP_UPDATE_INDEX };

int app_oltp_run(struct vmb_ctx *ctx, enum oltp_kind kind, struct vmb_rep *rep);
/* Drop the tables it created and remove the embedded database: never measured. */
void app_oltp_cleanup(struct vmb_ctx *ctx);
/* A back end named in --app.db that this build does not have: a usage error
 * found before anything runs. */
int app_oltp_check_url(struct vmb_ctx *ctx, const char *url);
/* The URL with its passwords replaced by ***: what results and messages
 * show. The passwords: USER:PASSWORD@'s, and every query parameter's whose
 * name ends in "password" (sslpassword=, a second password=, %70assword=).
 * out holds it whole with APP_URL_SHOWN_LEN(url) bytes (a password may be
 * shorter than "***", each after at least "&password="); a shorter out
 * cuts it, never within a password. */
#define APP_URL_SHOWN_LEN(url) (strlen(url) + strlen(url) / 3 + 8)
void app_oltp_url_shown(const char *url, char *out, size_t len);
/* msg, a client library's words about url, with every password of url it
 * quotes replaced by *** (libpq quotes a malformed one, "invalid
 * percent-encoded token: ...", or the whole URL). */
void app_url_scrub(const char *url, char *msg, size_t len);

enum proc_kind { PROC_FORK, PROC_EXEC, PROC_SPAWN };
int app_proc_run(struct vmb_ctx *ctx, struct vmb_rep *rep);
void app_proc_cleanup(struct vmb_ctx *ctx);

int app_files_run(struct vmb_ctx *ctx, struct vmb_rep *rep);
/* app.build (app_build.c): its configuration step's checks (at most this
 * many: --app.probes), the full build and an incremental one */
#define APP_BUILD_PROBES 16
int app_build_run(struct vmb_ctx *ctx, struct vmb_rep *rep);
/* make's up-to-date check: stale[i] when unit i's object is older than its
 * source or missing (obj[i].tv_sec < 0); how many are. */
size_t app_build_stale(const struct timespec *src, const struct timespec *obj, size_t n, bool *stale);
/* app.apt: apt-get update and install --reinstall from --app.apt-mirror */
int app_apt_run(struct vmb_ctx *ctx, struct vmb_rep *rep);
/* Its options checked at setup: a package name (never an apt-get option)
 * and a URL that is one word of a sources.list line; else a usage error. */
int app_apt_check(struct vmb_ctx *ctx);
/* Where app.build's compiler is, or NULL with *why. */
const char *app_build_cc(const char **why);

#endif
