/* String helpers: owned copies, formatting, prefixes, word lists, edit
 * distance for "did you mean" hints. */
#ifndef VMB_STR_H
#define VMB_STR_H

#include <stdbool.h>
#include <stddef.h>

/* Format a message into err and return r: `return errf(err, len, -EIO, "...")`. */
int errf(char *err, size_t len, int r, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool str_has_prefix(const char *s, const char *prefix);
/* Is word one of the sep-separated items of list ("a,b,c" or "a|b|c")? */
bool str_in_list(const char *list, char sep, const char *word);
/* Levenshtein distance, for "did you mean" hints. */
size_t str_distance(const char *a, const char *b);

#endif
