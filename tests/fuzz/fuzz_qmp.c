/* Fuzz target: QMP replies as QEMU sends them, one JSON object a line:
 * events, errors, returns, a query-cpus-fast return's thread ids and a
 * query-balloon return's size, a query-migrate return's figures and a
 * query-status return's run state. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lab/qmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qmp q = { .fd = -1 };
	char *text = malloc(size + 1), *line, *save = NULL;

	q.events = json_array();
	if (!text || !q.events) {
		free(text);
		json_decref(q.events);
		return 0;
	}
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *msg = NULL, *ret = NULL;
		int *tids = NULL;
		size_t n = 0;

		if (qmp_parse_line(&q, line, &msg) != 0)
			continue;
		json_incref(msg); /* for the second reading, as query-balloon's */
		json_incref(msg); /* and the third, as query-migrate's */
		json_incref(msg); /* and the fourth, as query-status's */
		if (qmp_result(&q, "query-cpus-fast", msg, &ret) == 0 && qmp_parse_vcpus(&q, ret, &tids, &n) == 0) {
			/* every vCPU has a thread of its own */
			for (size_t i = 0; i < n; i++)
				if (tids[i] <= 0)
					abort();
			free(tids);
		}
		json_decref(ret);
		ret = NULL;
		if (qmp_result(&q, "query-balloon", msg, &ret) == 0) {
			uint64_t actual = 0;

			/* a size in bytes the lab can compute with */
			if (qmp_parse_balloon(&q, ret, &actual) == 0 && (actual < 1 || actual > (1ull << 50)))
				abort();
		}
		json_decref(ret);
		ret = NULL;
		if (qmp_result(&q, "query-status", msg, &ret) == 0) {
			char st[32];

			/* a word of lowercase letters and hyphens, terminated */
			if (qmp_parse_status(&q, ret, st, sizeof(st)) == 0 &&
			    (!st[0] || strlen(st) > 31 || strspn(st, "abcdefghijklmnopqrstuvwxyz-") != strlen(st)))
				abort();
			(void)qmp_state_final(st);
		}
		json_decref(ret);
		ret = NULL;
		if (qmp_result(&q, "query-migrate", msg, &ret) == 0) {
			struct qmp_migration m;

			/* every figure given is a finite number in its range, the status a word */
			if (qmp_parse_migrate(&q, ret, &m) == 0 &&
			    (!m.status[0] || !(m.total_ms >= -1 && m.total_ms <= 1e9) || !(m.transferred >= -1) ||
			     !(m.passes >= -1 && m.passes <= 1e9) || !(m.downtime_ms >= -1 && m.downtime_ms <= 1e9)))
				abort();
		}
		json_decref(ret);
	}
	json_decref(q.events);
	free(text);
	return 0;
}
