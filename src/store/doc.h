/* The result document: one JSON object per run, schema "vmbench-result"
 * version 3 (docs/results-schema.md). Built from the runner's results,
 * validated whenever one is read back, written to files atomically. */
#ifndef VMB_DOC_H
#define VMB_DOC_H

#include <jansson.h>

#include "../core/result.h"

struct runner_settings; /* core/runner.h */
#include "../core/util.h"

#define DOC_SCHEMA "vmbench-result"
/* 2: run_group (interleaved rounds), per-repetition start times and noise
 * (cases[].reps). Version 1 documents are still read: one run each.
 * 3: series over time per repetition (cases[].series); 1 and 2 are read. */
#define DOC_SCHEMA_VERSION 3
#define DOC_SCHEMA_VERSION_MIN 1

struct doc_meta {
	int argc;
	char **argv;
	double started, ended; /* epoch seconds */
	json_t *fingerprint;   /* borrowed */
	const struct strv *labels; /* KEY=VALUE */
	const struct runner_settings *rs; /* NULL: not measured by the runner (an import, the lab's boot) */
	bool interrupted;      /* Ctrl-C: only the cases finished before it */
	const json_t *run_group; /* --runs: {id, round, rounds, seed, order}; NULL for a lone run */
};

/* A new document in *out: 0, or -ENOMEM, or -EINVAL (a label or argument
 * that is not UTF-8 text), with a message in err. Nothing is left out: a
 * part jansson refuses fails the whole document. */
int doc_from_results(const struct vmb_results *res, const struct doc_meta *m, json_t **out, char *err,
		     size_t errlen);
/* A new random run id (UUID v4) in doc's "id": 0 or -ENOMEM. */
int doc_set_new_id(json_t *doc);
/* 0, or -EINVAL with a message naming the JSON path of the first problem. */
int doc_validate(const json_t *doc, char *err, size_t errlen);
/* JSON text from outside (a file, stdin, a guest's RESULT, an import),
 * parsed one way everywhere: anything but whitespace after the value is
 * refused unless `rest` is given (then *rest points after the value: an
 * import's tool output may go on with the tool's own lines), and a key
 * given twice is refused (which of the two would count is a guess) unless
 * dups_ok: then the last counts, as in the tools' own readers (iperf3 -P N
 * repeats sock_bufsize in "start"). 0, -ENOTUNIQ for a key twice, or
 * -EINVAL for any other error; err "line L, column C: why". */
int doc_json_parse(const char *text, bool dups_ok, json_t **out, const char **rest, char *err, size_t errlen);
/* Parse (doc_json_parse, nothing after the document) and validate;
 * messages name `name` (a file path or "stdin"). */
int doc_load_string(const char *text, const char *name, json_t **out, char *err, size_t errlen);
int doc_load_file(const char *path, json_t **out, char *err, size_t errlen);
/* Write atomically and never over an existing file: -EEXIST then.
 * "-" writes to stdout. */
int doc_write_file(const json_t *doc, const char *path);
/* Every failed suite and test as "suite.test: reason", appended to out;
 * the number appended. */
size_t doc_failures(const json_t *doc, struct strv *out);
/* Whether the run was interrupted (status "interrupted"): it holds only the
 * cases finished before the stop. */
bool doc_interrupted(const json_t *doc);
/* A lab run's marker of a failed boot (top-level "lab_failure"): its record
 * with "config" from the labels, as a new reference; NULL when doc is no
 * marker (or out of memory). */
json_t *doc_lab_failure(const json_t *doc);
/* Repetitions marked busy by the noise sensors, those with readings, and
 * of those the ones whose CPU time of other processes was read (none
 * without /proc/stat: an empty root, a masked /proc). */
void doc_noise_count(const json_t *doc, size_t *busy, size_t *sensed, size_t *cpu_sensed);
/* Suite names, comma-separated. */
void doc_suites_string(const json_t *doc, char *buf, size_t len);
/* The note key = value (a reference taken, also on failure) in the notes of
 * every suite of doc, made where a suite has none. 0, or -ENOMEM. */
int doc_note_all(json_t *doc, const char *key, json_t *value);

#endif
