/* Fuzz target: the lab's matrix parser, and the QEMU command line of what
 * it accepts (the device table's arguments for any configuration). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lab/qemu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/d", .qmp_socket = "/q", .agent_socket = "/a",
			       .console_log = "/c" };
	struct lab_matrix m;
	char *spec = malloc(size + 1), err[512], why[512];

	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (lab_matrix_parse(spec, &m, err, sizeof(err)) == 0) {
		/* a few configurations: the first, the last and one between */
		for (size_t k = 0; k < 3 && m.n; k++) {
			struct lab_config c = m.configs[k == 0 ? 0 : k == 1 ? m.n - 1 : m.n / 2];
			struct strv argv = { 0 };

			if (!strcmp(c.v[LAB_ACCEL], "auto"))
				memcpy(c.v[LAB_ACCEL], "tcg", 4);
			(void)lab_config_unsupported(&c, why, sizeof(why));
			(void)lab_qemu_argv(&c, &p, &argv, why, sizeof(why));
			(void)lab_expected_disk_driver(&c);
			strv_clear(&argv);
		}
		lab_matrix_release(&m);
	}
	free(spec);
	return 0;
}
