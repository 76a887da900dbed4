/* The suites vmbench knows, in the order `vmbench run` runs them.
 * Adding a suite: one file in src/suites/ exporting `const struct vmb_suite
 * NAME_suite`, one line here, one line in meson.build. */
#define VMB_SUITES(X) \
	X(cpu) \
	X(mem) \
	X(disk) \
	X(net) \
	X(sched) \
	X(vmexit) \
	X(app) \
	X(boot)
