/* A growable, NULL-terminated array of owned strings (argument vectors). */
#include <errno.h>
#include <stdlib.h>

#include "str.h"
#include "strv.h"
#include "banned.h"

int strv_push(struct strv *sv, const char *s)
{
	char **nv = realloc(sv->v, (sv->n + 2) * sizeof(*nv));
	char *copy;

	if (!nv)
		return -ENOMEM;
	sv->v = nv;
	copy = xstrdup(s);
	if (!copy)
		return -ENOMEM;
	sv->v[sv->n++] = copy;
	sv->v[sv->n] = NULL;
	return 0;
}

void strv_clear(struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}
