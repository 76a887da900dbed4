/* The toy lab rows (tests/toy/toylab.c), compiled in with -DVMB_TEST_LAB
 * and the tables' files (matrix.c, hostmeasure.c, and suites.c with
 * -DVMB_TEST_SUITES) again: a matrix naming
 * toy-nic is planned, its QEMU command line carries the row's arguments on
 * the back end the configuration names, its label is the row's name, and
 * the host-measured toyhost is a row whose function reports what the
 * configuration says; the matrix key toy is a row whose QEMU argument is
 * on the command line and whose value is in the label. Nothing boots. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test.h"
#include "test_argv.h"
#include "../toy/toylab.h"
#include <errno.h>
#include "../../src/cmd/lab.h"
#include "../../src/lab/hostmeasure.h"
#include "../../src/lab/matrix.h"
#include "../../src/lab/qemu.h"
#include "../../src/suites/suites.h"

static void toy_nic_is_planned_and_on_the_command_line(void **state)
{
	static const struct {
		const char *spec, *backend, *opt, *val;
		size_t nconfigs;
	} cases[] = {
		{ "accel=tcg nic=toy-nic", "user", "-device", "e1000,netdev=n0,mac=52:54:00:70:6f:79", 1 },
		{ "accel=tcg nic=toy-nic", "user", "-netdev", "user,id=n0,restrict=on", 1 },
		{ "accel=tcg nic=toy-nic smp=1,2", "tap", "-device", "e1000,netdev=n0,mac=52:54:00:70:6f:79", 2 },
		{ "accel=tcg nic=toy-nic", "tap", "-netdev", "tap,id=n0,fd=10", 1 },
		{ "accel=tcg nic=toy-nic,e1000", "user", "-device", "e1000,netdev=n0,mac=52:54:00:70:6f:79", 2 },
	};
	struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/d.img", .qmp_socket = "/q", .agent_socket = "/a",
			       .console_log = "/c", .fw_vars = "/v" };
	char why[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lab_matrix m;
		struct strv a = { 0 };

		if (lab_matrix_parse(cases[i].spec, &m, why, sizeof(why)) < 0)
			fail_msg("case %zu (%s): %s", i, cases[i].spec, why);
		assert_int_equal(m.n, cases[i].nconfigs);
		/* the label a result of it gets (lab_keep: each key's value under its name) */
		assert_string_equal(lab_key_name(LAB_NIC), "nic");
		assert_string_equal(m.configs[0].v[LAB_NIC], "toy-nic");
		assert_non_null(lab_config_device(&m.configs[0], LAB_NIC));
		p.backend[LAB_NIC] = cases[i].backend;
		if (lab_qemu_argv(&m.configs[0], &p, &a, why, sizeof(why)) < 0)
			fail_msg("case %zu (%s): %s", i, cases[i].spec, why);
		if (!has_pair(&a, cases[i].opt, cases[i].val))
			fail_msg("case %zu (%s): no %s %s", i, cases[i].spec, cases[i].opt, cases[i].val);
		strv_clear(&a);
		lab_matrix_release(&m);
	}
}

/* The toy key: a row of LAB_KEYS with its own QEMU argument, parsed as
 * any key, on the command line with toy=on only, in the configuration's
 * name (its label) where the matrix gives it; the shipped keys keep their
 * numbers and the plan its fields. */
static void toy_key_is_planned_and_on_the_command_line(void **state)
{
	struct lab_paths p = { .kernel = "/k", .initrd = "/i", .disk = "/d.img", .qmp_socket = "/q", .agent_socket = "/a",
			       .console_log = "/c", .fw_vars = "/v" };
	struct lab_matrix m;
	char why[512], name[256];

	(void)state;
	assert_int_equal(lab_key_find("toy"), LAB_TOY);
	assert_int_equal(lab_nkeys, LAB_NKEYS);
	assert_true(lab_nkeys <= LAB_KEYS_MAX);
	assert_ptr_equal(lab_keys[LAB_TOY].qemu, toy_qemu);
	assert_int_equal(lab_key_find("db"), LAB_DB); /* a shipped key's number is the library's */
	if (lab_matrix_parse("accel=tcg toy=on,off smp=2", &m, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_int_equal(m.n, 2);
	for (size_t i = 0; i < m.n; i++) {
		struct strv a = { 0 };
		bool on = i == 0;

		assert_string_equal(m.configs[i].v[LAB_TOY], on ? "on" : "off");
		assert_int_equal(m.configs[i].smp, 2);
		lab_config_name(&m, &m.configs[i], name, sizeof(name));
		assert_string_equal(name, on ? "accel=tcg smp=2 toy=on" : "accel=tcg smp=2 toy=off");
		if (lab_qemu_argv(&m.configs[i], &p, &a, why, sizeof(why)) < 0)
			fail_msg("%s", why);
		assert_int_equal(has_pair(&a, "-smbios", TOY_SMBIOS), on);
		assert_true(has_pair(&a, "-smp", "2"));
		strv_clear(&a);
	}
	lab_matrix_release(&m);
	/* a bad value is refused as any key's, with the row's values */
	assert_int_equal(lab_matrix_parse("toy=maybe", &m, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "valid values of toy: off, on"));
}

static void toy_rows_pass_the_start_up_check(void **state)
{
	char why[512] = "";

	(void)state;
	for (size_t i = 0; i < lab_ndevices; i++)
		if (!strcmp(lab_devices[i].name, "toy-nic") && lab_device_check(&lab_devices[i], why, sizeof(why)) < 0)
			fail_msg("toy-nic: %s", why);
	if (lab_tables_check(suites_find, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	/* the host-measured table, against the test build's suites (toyhost among them) */
	if (lab_host_check(vmb_suites, vmb_nsuites, why, sizeof(why)) < 0)
		fail_msg("%s", why);
}

static void toy_host_suite_is_a_row_that_measures(void **state)
{
	const struct lab_host_row *row = lab_host_row_of(&toyhost_suite);
	struct lab_matrix m;
	json_t *suite = NULL, *metric;
	char why[512];

	(void)state;
	assert_non_null(row);
	assert_ptr_equal(row->measure, toyhost_measure);
	assert_true(lab_host_asked(&toyhost_suite, "cpu,toyhost", NULL));
	assert_true(lab_host_measured("toyhost.vcpus"));
	assert_int_equal(lab_matrix_parse("accel=tcg nic=toy-nic smp=3", &m, why, sizeof(why)), 0);
	if (row->measure(&(struct lab_host_req){ .suite = &toyhost_suite, .c = &m.configs[0] }, &suite, why,
			 sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_string_equal(json_string_value(json_object_get(suite, "name")), "toyhost");
	metric = json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(
		json_object_get(suite, "tests"), 0), "cases"), 0), "metrics"), 0);
	assert_string_equal(json_string_value(json_object_get(metric, "name")), "vcpus");
	assert_close(json_number_value(json_array_get(json_object_get(metric, "samples"), 0)), 3, 0);
	json_decref(suite);
	lab_matrix_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(toy_nic_is_planned_and_on_the_command_line),
		cmocka_unit_test(toy_key_is_planned_and_on_the_command_line),
		cmocka_unit_test(toy_rows_pass_the_start_up_check),
		cmocka_unit_test(toy_host_suite_is_a_row_that_measures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
