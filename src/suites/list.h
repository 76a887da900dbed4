/* The suites vmbench knows, in the order `vmbench run` runs them.
 * Adding a suite: one file in src/suites/ exporting `const struct vmb_suite
 * NAME_suite`, one line here, one line in meson.build (docs/extending.md). */
#define VMB_SUITES(X) \
	X(cpu) \
	X(mem) \
	X(disk) \
	X(net) \
	X(sched) \
	X(vmexit) \
	X(app) \
	X(boot) \
	X(balloon) \
	X(vmops) \
	X(contend) \
	X(systemd) \
	VMB_SUITES_TEST(X)

/* Suites built only into a test build (tests/meson.build's vmbench-toy,
 * compiled with -DVMB_TEST_SUITES), never into the shipped binary. */
#ifdef VMB_TEST_SUITES
#ifdef VMB_TEST_LAB /* and a lab row: the host-measured toyhost (tests/toy/toylab.c) */
#define VMB_SUITES_TEST(X) X(toy) X(toyhost)
#else
#define VMB_SUITES_TEST(X) X(toy)
#endif
#else
#define VMB_SUITES_TEST(X)
#endif
