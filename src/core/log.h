/* Messages on stderr: one place decides the prefix and the verbosity. */
#ifndef VMB_LOG_H
#define VMB_LOG_H

#include <errno.h>

enum log_level { LOG_QUIET = 0, LOG_ERROR = 1, LOG_WARN = 2, LOG_INFO = 3, LOG_DEBUG = 4 };

void log_set_level(enum log_level level);
enum log_level log_get_level(void);

/* A word after "vmbench" on every message from now on ("vmbench [TAG]: "),
 * as each host's process of a lab run over several hosts says which it is;
 * NULL: none. */
void log_set_tag(const char *tag);

void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Logs "<what>: strerror(-r)" and returns r (a negative errno), so that
 * `return log_errno(r, "open %s", path);` reports and propagates in one line. */
int log_errno(int r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
