/* What a label is, defined once: every label a user gives (run --label,
 * import --label, lab --label, the labels inside an imported document) and
 * every selector part (results --label, compare/report/export/show's
 * KEY=VALUE[,KEY=VALUE], lab report, lab run --baseline) is checked here,
 * so that whatever is stored can be selected, and a run cannot claim a
 * lab session or a study it does not belong to. */
#ifndef VMB_LABEL_H
#define VMB_LABEL_H

#include <stdbool.h>
#include <stddef.h>

/* The longest label key, in bytes: a longer one is refused where it is
 * given, never cut (two keys would become one). */
#define LABEL_KEY_MAX 127
/* The longest label value, in bytes: a label is a short tag. A longer one
 * is refused where it is given: the document keeps the value, and the
 * command line's word that gave it, as strings of at most 65536 bytes
 * (doc_validate), so a longer one was stored and could not be read back. */
#define LABEL_VALUE_MAX 1024

/* The grammar, as messages say it. */
#define LABEL_RULE                                                                                                   \
	"a label is KEY=VALUE: a key of 1 to 127 letters, digits, '.', '_' or '-', and a value of 1 to 1024 "       \
	"bytes of UTF-8, none of them ',' or '=' (a selector's separators) or a control character"

/* The labels the lab sets itself (the session, a study's run and
 * experiment, lab contend's guests, the configuration and the network's
 * back end), as messages say them: no user sets them. */
#define LABEL_LAB_KEYS "lab, study, study_run, experiment, config, net_backend, hv_backend, hv_host, hv_uri, policy, guest, load"

enum label_use {
	LABEL_SELECT, /* a selector's part, or a label the lab sets: the grammar alone */
	LABEL_SET,    /* a user's label: the grammar, and none of the lab's keys */
};

/* Whether key (klen bytes) is one of LABEL_LAB_KEYS. */
bool label_lab_key(const char *key, size_t klen);
/* 0 when key (klen bytes) = value (vlen bytes) is a label for `use`; else
 * -EINVAL (-E2BIG: a key over LABEL_KEY_MAX, a value over LABEL_VALUE_MAX) with why: what is wrong, in
 * words that do not repeat the label's bytes beyond the key's first 40. */
int label_check(const char *key, size_t klen, const char *value, size_t vlen, enum label_use use, char *why,
		size_t len);
/* The same for "KEY=VALUE" (no '=' at all: -EINVAL). */
int label_check_kv(const char *kv, enum label_use use, char *why, size_t len);

#endif
