/* A host-measured suite's result document (hostsuite.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hostsuite.h"
#include "../core/result.h"
#include "../core/str.h"
#include "../store/doc.h"
#include "../core/banned.h"

int lab_host_suite_begin(struct vmb_results *res, const struct vmb_suite *desc, size_t ntests,
			 struct vmb_suite_result **s)
{
	size_t n = 0;

	while (desc->tests[n].name)
		n++;
	memset(res, 0, sizeof(*res));
	res->suites = calloc(1, sizeof(*res->suites));
	if (res->suites) {
		res->nsuites = 1;
		res->suites->name = xstrdup(desc->name);
		res->suites->tests = calloc(ntests < n ? n : ntests, sizeof(*res->suites->tests));
	}
	if (!res->suites || !res->suites->name || !res->suites->tests) {
		vmb_results_release(res);
		return -ENOMEM;
	}
	*s = res->suites;
	return 0;
}

json_t *lab_host_suite_end(struct vmb_results *res)
{
	json_t *fp = json_pack("{s:{s:s}}", "hypervisor", "name", "host-measured"), *doc = NULL, *suite;
	char why[256];

	if (fp && doc_from_results(res, &(struct doc_meta){ .fingerprint = fp }, &doc, why, sizeof(why)) < 0)
		doc = NULL;
	vmb_results_release(res);
	json_decref(fp);
	suite = doc ? json_incref(json_array_get(json_object_get(doc, "suites"), 0)) : NULL;
	json_decref(doc);
	return suite;
}
