/* String helpers: owned copies, formatting, prefixes, word lists, edit
 * distance for "did you mean" hints. */
#ifndef VMB_STR_H
#define VMB_STR_H

#include <stdbool.h>
#include <stddef.h>

/* Format a message into err and return r: `return errf(err, len, -EIO, "...")`. */
int errf(char *err, size_t len, int r, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Append to the text at buf + *off (buf holds len bytes) and advance *off.
 * Never writes past len and keeps buf NUL-terminated: text that does not
 * fit is cut, its end marked "...", and *off set to len, so later appends
 * do nothing and `*off < len` says whether everything fit. */
void str_appendf(char *buf, size_t len, size_t *off, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool str_has_prefix(const char *s, const char *prefix);
/* Is word one of the sep-separated items of list ("a,b,c" or "a|b|c")? */
bool str_in_list(const char *list, char sep, const char *word);
/* Length of the terminal control at s (n bytes left), 0 if none: a C0
 * byte other than tab and newline, DEL, or a C1 control in UTF-8 (U+0080 to
 * U+009F, e.g. CSI). Such a byte in a document's string could drive the
 * terminal that shows it. */
size_t str_control_at(const char *s, size_t n);
/* The offset of the first terminal control in s[0..n), or -1. */
long str_find_control(const char *s, size_t n);
/* The offset of the first byte in s[0..n) that does not start a valid
 * UTF-8 sequence (RFC 3629: no overlong form, no surrogate, at most
 * U+10FFFF), or -1. JSON text is UTF-8: such a string cannot be stored. */
long str_find_bad_utf8(const char *s, size_t n);
/* "~40 s left", "~3 min left", "~1.5 h left": seconds left as progress says them. */
void str_time_left(double s, char *buf, size_t len);
/* Levenshtein distance, for "did you mean" hints. */
size_t str_distance(const char *a, const char *b);

#endif
