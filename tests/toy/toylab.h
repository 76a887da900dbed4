/* The toy lab rows of the test build (toylab.c). */
#ifndef VMB_TOYLAB_H
#define VMB_TOYLAB_H

#include <jansson.h>
#include <stddef.h>

#include "../../src/core/suite.h"

struct lab_host_req;
extern const struct vmb_suite toyhost_suite;
int toyhost_measure(const struct lab_host_req *rq, json_t **suite, char *err, size_t errlen);

#endif
