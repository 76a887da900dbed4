/* Importer of vmbench's own result documents: validated like any import,
 * taken whole. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "import_int.h"
#include "../core/banned.h"

bool import_vmbench_detect(const struct imp_input *in)
{
	return in->root && json_is_string(json_object_get(in->root, "schema")) &&
	       !strcmp(json_string_value(json_object_get(in->root, "schema")), DOC_SCHEMA);
}

int import_vmbench(struct imp *im, const struct imp_input *in)
{
	char why[512];

	/* validated like any other import, before anything is added to it */
	if (doc_validate(in->root, why, sizeof(why)) < 0)
		return import_fail(im, "%s", why);
	im->doc = json_deep_copy(in->root);
	return im->doc ? 0 : -ENOMEM;
}

