/* The toy lab rows of the test build (toylab.c). */
#ifndef VMB_TOYLAB_H
#define VMB_TOYLAB_H

#include <jansson.h>
#include <stddef.h>

#include "../../src/core/suite.h"

struct lab_host_req;
struct lab_args;
struct lab_config;
struct lab_paths;
/* The toy matrix key's QEMU argument (its row: LAB_KEYS_TEST, src/lab/matrix.h) */
#define TOY_SMBIOS "type=1,product=vmbench-toy"
int toy_qemu(struct lab_args *a, const struct lab_config *c, const struct lab_paths *p, char *why, size_t len);
extern const struct vmb_suite toyhost_suite;
int toyhost_measure(const struct lab_host_req *rq, json_t **suite, char *err, size_t errlen);

#endif
