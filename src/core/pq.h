/* libpq, opened at run time (dlopen), not linked: vmbench's own
 * dependencies (and the lab's guest images, which carry them) stay small,
 * and what needs PostgreSQL (app.oltp's back end, the result store's) works
 * wherever libpq.so.5 is installed. Built with libpq's headers only
 * (HAVE_LIBPQ). */
#ifndef VMB_PQ_H
#define VMB_PQ_H

#include <libpq-fe.h>
#include <stddef.h>

#define PQ_FUNCS(X)                                                                                          \
	X(PQconnectdb) X(PQstatus) X(PQerrorMessage) X(PQfinish) X(PQexec) X(PQexecParams) X(PQprepare)      \
	X(PQexecPrepared) X(PQresultStatus) X(PQresultErrorMessage) X(PQresultErrorField) X(PQclear)        \
	X(PQntuples) X(PQcmdTuples) X(PQgetvalue) X(PQgetisnull) X(PQsetNoticeProcessor)

struct vmb_pq {
	void *h;
#define PQ_FIELD(f) __typeof__(f) *f;
	PQ_FUNCS(PQ_FIELD)
#undef PQ_FIELD
};

/* The loaded library's functions (loaded once, thread-safe), or NULL with
 * err saying why (not installed, a function missing). */
const struct vmb_pq *vmb_pq_load(char *err, size_t errlen);

/* The functions once vmb_pq_load succeeded (their table, written once
 * before: no thread writes it after). */
const struct vmb_pq *vmb_pq_loaded(void);

/* libpq's message for res (or, NULL, for the connection) in one line. */
void vmb_pq_message(const struct vmb_pq *pq, PGconn *c, const PGresult *res, char *err, size_t errlen);

#endif
