/* Which link devices lab_links_reclaim deletes (src/lab/lablink.c): only
 * those whose ifalias carries the lab's mark, of a process of this PID
 * namespace that is gone. A device named like the lab's without it (a
 * user's vmbt...), one of another PID namespace's vmbench (whose PID says
 * nothing here), one whose vmbench still runs: left. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/lab/lablink.h"
#include "../../src/core/banned.h"

/* The processes of the table's world: 4242 started at tick 777, 4343 at
 * 100 (its PID taken by a process that started later than the mark's) */
static unsigned long long start_of(long pid)
{
	return pid == 4242 ? 777 : pid == 4343 ? 100 : 0;
}

#define NS 4026531836ULL

static const struct {
	const char *what, *name, *alias;
	bool left;
} cases[] = {
	{ "its vmbench gone", "vmbt999-0", "vmbench lab link pid=999 start=5 pidns=4026531836\n", true },
	{ "its vmbench gone, the alias as read_file gives it", "vmbt999-0", "vmbench lab link pid=999 start=5 "
	  "pidns=4026531836", true },
	{ "the veth's root end, its vmbench gone", "vmbv999-12", "vmbench lab link pid=999 start=5 pidns=4026531836\n",
	  true },
	{ "its PID another process's now", "vmbt4343-1", "vmbench lab link pid=4343 start=50 pidns=4026531836\n", true },
	{ "its vmbench still running", "vmbt4242-0", "vmbench lab link pid=4242 start=777 pidns=4026531836\n", false },
	{ "a user's own device, no alias", "vmbt999-0", "\n", false },
	{ "a user's own device, no alias as read_file gives it", "vmbt999-0", "", false },
	{ "a user's own device, an alias of its own", "vmbt999-0", "uplink to the lab bench\n", false },
	{ "another PID namespace's vmbench", "vmbt999-0", "vmbench lab link pid=999 start=5 pidns=4026532000\n", false },
	{ "the mark names another PID than the name", "vmbt999-0", "vmbench lab link pid=998 start=5 pidns=4026531836\n",
	  false },
	{ "the mark with more after it", "vmbt999-0", "vmbench lab link pid=999 start=5 pidns=4026531836 x\n", false },
	{ "the mark with more lines after it", "vmbt999-0", "vmbench lab link pid=999 start=5 pidns=4026531836\n\n",
	  false },
	{ "a name not the lab's form: no count", "vmbt999", "vmbench lab link pid=999 start=5 pidns=4026531836\n", false },
	{ "a name not the lab's form: letters", "vmbtx999-0", "vmbench lab link pid=999 start=5 pidns=4026531836\n", false },
	{ "a name not the lab's form: a tail", "vmbt999-0a", "vmbench lab link pid=999 start=5 pidns=4026531836\n", false },
	{ "another prefix", "vmbx999-0", "vmbench lab link pid=999 start=5 pidns=4026531836\n", false },
};

static void reclaims_only_its_own(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (lab_link_left(cases[i].name, cases[i].alias, NS, start_of) != cases[i].left)
			fail_msg("%s: %s with '%s' %s", cases[i].what, cases[i].name, cases[i].alias,
				 cases[i].left ? "kept" : "deleted");
}

/* this process's own devices are never another's leftovers */
static void never_its_own(void **state)
{
	char name[32], alias[128];

	(void)state;
	snprintf(name, sizeof(name), "vmbt%ld-0", (long)getpid());
	snprintf(alias, sizeof(alias), "vmbench lab link pid=%ld start=1 pidns=%llu\n", (long)getpid(), NS);
	assert_false(lab_link_left(name, alias, NS, start_of));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reclaims_only_its_own),
		cmocka_unit_test(never_its_own),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
