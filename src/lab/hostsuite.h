/* The result of a suite the host measures around a guest (boot, balloon,
 * vmops, contend): a result of one suite, built as the runner builds one,
 * made the suite object of a document. */
#ifndef VMB_LAB_HOSTSUITE_H
#define VMB_LAB_HOSTSUITE_H

#include <jansson.h>
#include <stddef.h>

#include "../core/suite.h"

struct vmb_results;
struct vmb_suite_result;
/* res (its own) with the one suite of desc, room for its tests (as many as
 * desc has, at least ntests), *s that suite; 0, or -ENOMEM with res
 * released. */
int lab_host_suite_begin(struct vmb_results *res, const struct vmb_suite *desc, size_t ntests,
			 struct vmb_suite_result **s);
/* res made a document's suite object (a new reference; its fingerprint is
 * the guest's, the caller's document has it), res released; NULL: out of
 * memory. */
json_t *lab_host_suite_end(struct vmb_results *res);

#endif
