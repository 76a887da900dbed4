/* libpq opened at run time: src/core/pq.h. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "pq.h"
#include "banned.h"

static struct vmb_pq pq;
static pthread_once_t pq_once = PTHREAD_ONCE_INIT;
static char pq_err[256];

static void pq_load_once(void)
{
	void *h = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(pq_err, sizeof(pq_err), "libpq.so.5 is not installed here (Debian: libpq5)");
		return;
	}
#define X(f) \
	if (!(pq.f = (__typeof__(f) *)dlsym(h, #f))) { \
		snprintf(pq_err, sizeof(pq_err), "libpq.so.5 has no " #f); \
		(void)dlclose(h); \
		return; \
	}
	PQ_FUNCS(X)
#undef X
	pq.h = h;
}

const struct vmb_pq *vmb_pq_load(char *err, size_t errlen)
{
	(void)pthread_once(&pq_once, pq_load_once);
	if (pq.h)
		return &pq;
	snprintf(err, errlen, "%s", pq_err);
	return NULL;
}

const struct vmb_pq *vmb_pq_loaded(void)
{
	return &pq;
}

void vmb_pq_message(const struct vmb_pq *p, PGconn *c, const PGresult *res, char *err, size_t errlen)
{
	const char *m = res ? p->PQresultErrorMessage(res) : p->PQerrorMessage(c);
	size_t n;

	snprintf(err, errlen, "%s", m && *m ? m : "unknown error");
	n = strlen(err);
	while (n && (err[n - 1] == '\n' || err[n - 1] == ' '))
		err[--n] = '\0';
	for (char *q = err; *q; q++) /* libpq's hint lines: one line in vmbench's message */
		if (*q == '\n' || *q == '\t')
			*q = ' ';
}
