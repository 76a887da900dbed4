/* Option tables: parsing, validation, messages; every real table's defaults parse. */
#include <errno.h>
#include <string.h>

#include "test.h"
#include "../../src/cmd/cmd.h"
#include "../../src/suites/suites.h"

static const struct vmb_opt table[] = {
	{ .name = "time", .type = OPT_DOUBLE, .min = 0.01, .max = 100, .def = "2", .metavar = "S", .help = "t" },
	{ .name = "count", .type = OPT_INT, .min = 1, .max = 10, .def = "3", .help = "c" },
	{ .name = "bs", .type = OPT_SIZE, .min = 512, .max = 1 << 30, .def = "4k", .help = "b" },
	{ .name = "mode", .type = OPT_STRING, .choices = "a|bb|c", .def = "a", .help = "m" },
	{ .name = "threads", .type = OPT_LIST, .min = 1, .max = 64, .def = "1", .help = "l" },
	{ .name = "label", .type = OPT_KV, .help = "k" },
	{ .name = "quiet", .short_name = 'q', .type = OPT_BOOL, .help = "q" },
	{ .name = "connect", .type = OPT_STRING, .repeatable = true, .help = "u" },
	OPT_TABLE_END,
};

static void defaults(void **state)
{
	struct optset set;

	(void)state;
	assert_int_equal(optset_init(&set, table, ""), 0);
	assert_close(optset_double(&set, "time"), 2, 0);
	assert_int_equal(optset_int(&set, "count"), 3);
	assert_int_equal(optset_size(&set, "bs"), 4096);
	assert_string_equal(optset_str(&set, "mode"), "a");
	assert_int_equal(optset_get(&set, "threads")->nlist, 1);
	assert_false(optset_bool(&set, "quiet"));
	assert_false(optset_get(&set, "time")->set);
	optset_release(&set);
}

static void command_lines(void **state)
{
	static const struct {
		const char *argv[6];
		int r;
		const char *msg; /* substring of the error */
	} cases[] = {
		{ { "--time", "5" }, 0, NULL },
		{ { "--time=5", "-q", "word" }, 0, NULL },
		{ { "--count", "0" }, -EINVAL, "--count: '0' is out of range; expected a whole number from 1 to 10" },
		{ { "--time", "-1" }, -EINVAL, "--time: '-1' is out of range" },
		{ { "--time", "abc" }, -EINVAL, "'abc' is not valid; expected a number from 0.01 to 100" },
		{ { "--time", "0x10" }, -EINVAL, "--time: '0x10' is not valid" }, /* once 16 s */
		{ { "--time", "inf" }, -EINVAL, "--time: 'inf' is not valid" },
		{ { "--time", "1e999" }, -EINVAL, "--time: '1e999' is out of range" },
		{ { "--time", "2s" }, -EINVAL, "--time: '2s' is not valid" },
		{ { "--count", "0x3" }, -EINVAL, "--count: '0x3' is not valid" },
		{ { "--threads", "0x2" }, -EINVAL, "--threads: '0x2' is not valid" },
		{ { "--bs", "0x1000" }, -EINVAL, "--bs: '0x1000' is not valid" },
		{ { "--threads", "abc" }, -EINVAL, "expected a comma-separated list of whole numbers" },
		{ { "--bs", "4q" }, -EINVAL, "k/m/g/t suffix" },
		{ { "--mode", "z" }, -EINVAL, "expected one of a|bb|c" },
		{ { "--label", "novalue" }, -EINVAL, "KEY=VALUE" },
		{ { "--label", "=v" }, -EINVAL, "KEY=VALUE" },
		{ { "--tiem", "1" }, -EINVAL, "unknown option '--tiem'; did you mean '--time'?" },
		{ { "--zzzzzz" }, -EINVAL, "unknown option '--zzzzzz'" },
		{ { "-x" }, -EINVAL, "unknown option '-x'" },
		{ { "-qq" }, -EINVAL, "cannot be combined" },
		{ { "--time" }, -EINVAL, "needs a value" },
		{ { "--quiet=yes" }, -EINVAL, "takes no value" },
		{ { "--", "--time" }, 0, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct optset set;
		struct strv pos = { 0 };
		char err[256] = "";
		int argc = 0, r;

		while (argc < 6 && cases[i].argv[argc])
			argc++;
		assert_int_equal(optset_init(&set, table, ""), 0);
		r = opts_parse(argc, (char **)cases[i].argv, &set, 1, &pos, err, sizeof(err));
		if (r != cases[i].r)
			fail_msg("case %zu (%s): r = %d, expected %d (%s)", i, cases[i].argv[0], r, cases[i].r, err);
		if (cases[i].msg && !strstr(err, cases[i].msg))
			fail_msg("case %zu: message \"%s\" lacks \"%s\"", i, err, cases[i].msg);
		optset_release(&set);
		strv_clear(&pos);
	}
}

static void values_and_positionals(void **state)
{
	const char *argv[] = { "cpu", "--time=0.5", "--label", "hv=kvm", "--label", "disk=sata", "-q",
			       "--threads", "4,1,2", "--", "--x" };
	struct optset set;
	struct strv pos = { 0 };
	char err[256];

	(void)state;
	assert_int_equal(optset_init(&set, table, ""), 0);
	assert_int_equal(opts_parse(11, (char **)argv, &set, 1, &pos, err, sizeof(err)), 0);
	assert_close(optset_double(&set, "time"), 0.5, 0);
	assert_true(optset_get(&set, "time")->set);
	assert_int_equal(optset_get(&set, "label")->kv.n, 2);
	assert_string_equal(optset_get(&set, "label")->kv.v[1], "disk=sata");
	assert_true(optset_bool(&set, "quiet"));
	assert_int_equal(optset_get(&set, "threads")->nlist, 3);
	assert_int_equal(optset_get(&set, "threads")->list[2], 4);
	assert_int_equal(pos.n, 2);
	assert_string_equal(pos.v[0], "cpu");
	assert_string_equal(pos.v[1], "--x");
	assert_false(optset_get(&set, "connect")->present);
	assert_int_equal(optset_get(&set, "connect")->kv.n, 0);
	/* a later default does not override what the user set */
	assert_int_equal(optset_default(&set, "time", "9"), 0);
	assert_close(optset_double(&set, "time"), 0.5, 0);
	assert_int_equal(optset_default(&set, "count", "9"), 0);
	assert_int_equal(optset_int(&set, "count"), 9);
	optset_release(&set);
	strv_clear(&pos);
}

/* a repeatable string keeps every value in order, its value the last (as --connect once per host) */
static void repeatable_strings(void **state)
{
	const char *argv[] = { "--connect", "qemu:///system", "--connect=direct", "--connect", "a=b,c" };
	struct optset set;
	struct strv pos = { 0 };
	char err[256];

	(void)state;
	assert_int_equal(optset_init(&set, table, ""), 0);
	assert_int_equal(opts_parse(5, (char **)argv, &set, 1, &pos, err, sizeof(err)), 0);
	assert_int_equal(optset_get(&set, "connect")->kv.n, 3);
	assert_string_equal(optset_get(&set, "connect")->kv.v[0], "qemu:///system");
	assert_string_equal(optset_get(&set, "connect")->kv.v[1], "direct");
	assert_string_equal(optset_get(&set, "connect")->kv.v[2], "a=b,c");
	assert_string_equal(optset_str(&set, "connect"), "a=b,c");
	/* a plain string keeps the last only */
	assert_int_equal(optset_get(&set, "mode")->kv.n, 0);
	optset_release(&set);
	strv_clear(&pos);
}

static void prefixed_sets(void **state)
{
	const char *argv[] = { "--cpu.max-prime", "20000", "--count", "2" };
	struct optset sets[2];
	struct strv pos = { 0 };
	char err[256];

	(void)state;
	assert_int_equal(optset_init(&sets[0], table, ""), 0);
	assert_int_equal(optset_init(&sets[1], cpu_suite.opts, "cpu."), 0);
	assert_int_equal(opts_parse(4, (char **)argv, sets, 2, &pos, err, sizeof(err)), 0);
	assert_int_equal(optset_int(&sets[1], "max-prime"), 20000);
	assert_int_equal(optset_int(&sets[0], "count"), 2);
	optset_release(&sets[0]);
	optset_release(&sets[1]);
}

/* Every real table: defaults parse, names are unique, help is present. */
static void real_tables(void **state)
{
	const struct vmb_opt *tables[64];
	size_t n = 0;

	(void)state;
	/* every command's descriptor is sound, and its table is checked below */
	assert_int_equal(cmd_check_all(), 0);
	for (const struct vmb_cmd *const *c = vmb_cmds; *c; c++)
		tables[n++] = (*c)->opts;
	for (size_t i = 0; i < vmb_nsuites; i++)
		tables[n++] = vmb_suites[i]->opts;
	for (size_t t = 0; t < n; t++) {
		struct optset set;

		assert_int_equal(optset_init(&set, tables[t], ""), 0);
		for (size_t i = 0; tables[t] && tables[t][i].name; i++) {
			assert_non_null(tables[t][i].help);
			for (size_t j = i + 1; tables[t][j].name; j++)
				assert_string_not_equal(tables[t][i].name, tables[t][j].name);
		}
		optset_release(&set);
	}
}

/* What a row tells other layers (neutral default, time per repetition)
 * must make sense for its type: a bad row is a table error at start-up. */
static void row_facts(void **state)
{
	static const struct {
		struct vmb_opt row[2];
		int r;
		const char *neutral;
	} cases[] = {
		{ { { .name = "ramp", .type = OPT_DOUBLE, .max = 9, .def = "1", .rep_overhead = true, .help = "r" } }, 0, NULL },
		{ { { .name = "ramp", .type = OPT_INT, .max = 9, .def = "1", .rep_overhead = true, .help = "r" } }, -EINVAL, NULL },
		{ { { .name = "buffered", .type = OPT_BOOL, .neutral = true, .help = "b" } }, 0, "false" },
		{ { { .name = "iomem", .type = OPT_STRING, .def = "malloc", .neutral = true, .help = "i" } }, 0, "malloc" },
		{ { { .name = "dir", .type = OPT_STRING, .neutral = true, .help = "d" } }, -EINVAL, NULL },
		{ { { .name = "dir", .type = OPT_STRING, .help = "d" } }, 0, NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct optset set;
		const char *nv = opt_neutral_value(&cases[i].row[0]);
		int r = optset_init(&set, cases[i].row, "");

		assert_int_equal(r, cases[i].r);
		if (r == 0)
			optset_release(&set);
		if (cases[i].r == 0 && cases[i].neutral)
			assert_string_equal(nv, cases[i].neutral);
		else if (cases[i].r == 0)
			assert_null(nv);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(command_lines),
		cmocka_unit_test(values_and_positionals),
		cmocka_unit_test(repeatable_strings),
		cmocka_unit_test(prefixed_sets),
		cmocka_unit_test(real_tables),
		cmocka_unit_test(row_facts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
