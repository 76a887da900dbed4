/* A growable, NULL-terminated array of owned strings (argument vectors). */
#ifndef VMB_STRV_H
#define VMB_STRV_H

#include <stddef.h>

struct strv {
	char **v;
	size_t n;
};
int strv_push(struct strv *sv, const char *s);
void strv_clear(struct strv *sv);

#endif
