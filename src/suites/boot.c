/* Boot suite: how long a guest takes from QEMU's start (cold), a QMP
 * system_reset (warm) or its own reboot (reboot) to its agent's HELLO,
 * phase by phase, and how many of a configuration's cold boots start
 * (start). It is measured
 * from outside the guest, so only the lab (src/lab/labrun.c) can measure it:
 * here it is declared like any suite (tests, headline, phases) and says why
 * it does not run anywhere else. docs/methodology.md defines the marks. */
#include <stddef.h>

#include "boot.h"
#include "../core/banned.h"

const struct boot_phase boot_phases[BOOT_NPHASES] = {
	{ "phase_firmware", "QEMU started (or reset)", "the first console byte" },
	{ "phase_kernel", "the first console byte", "init's first line on the console" },
	{ "phase_agent", "init's first line", "the agent's HELLO on its channel" },
};
const size_t boot_nphases = sizeof(boot_phases) / sizeof(boot_phases[0]);
const struct boot_phase boot_ssh_phases[BOOT_SSH_NPHASES] = {
	{ "phase_firmware", "QEMU started (or reset)", "the first console byte" },
	{ "phase_kernel", "the first console byte", "the kernel's 'Run /init as init process' on the console" },
	{ "phase_userspace", "the initramfs's /init started", "the SSH server's banner, read by the host" },
	{ "phase_hello", "the SSH server's banner", "the agent's HELLO on its channel" },
};

/* why it runs nowhere but in the lab */
static const char boot_why[] = "a boot is timed from outside the guest: 'vmbench lab run --suites boot' measures it";

static int boot_supported(const struct vmb_env *env, const char **why)
{
	(void)env;
	*why = boot_why;
	return 0;
}


static const struct vmb_test boot_tests[] = {
	{ .name = BOOT_TEST_COLD, .summary = "a new QEMU process to the guest agent's HELLO, per --boots boot",
	  .headline = BOOT_TOTAL },
	{ .name = BOOT_TEST_WARM, .summary = "QMP system_reset to HELLO again, in the first boot's QEMU",
	  .headline = BOOT_TOTAL },
	{ .name = BOOT_TEST_REBOOT, .summary = "the guest's own reboot (its agent's REBOOT) to HELLO again, timed from QEMU's "
				       "RESET event, with the shutdown before it; in the first boot's QEMU; only when named "
				       "(--suites boot.reboot)",
	  .headline = BOOT_TOTAL, .flags = VMB_TEST_ON_REQUEST },
	{ .name = BOOT_TEST_START, .summary = "start success: of --boots cold boots, the share whose guest said HELLO with "
				      "its devices as asked and its NIC up and answering the host (an ICMP echo); a boot "
				      "that fails is counted, not retried; only when named (--suites boot.start)",
	  .headline = BOOT_START_PCT, .flags = VMB_TEST_ON_REQUEST },
	{ .name = NULL },
};

const struct vmb_suite boot_suite = {
	.name = "boot",
	.summary = "guest boot time, cold, warm and rebooted, phase by phase, and start success over many boots (measured by "
		   "'vmbench lab run' only)",
	.abi = VMB_SUITE_ABI,
	.flags = VMB_SUITE_LAB_ONLY,
	.tests = boot_tests,
	.supported = boot_supported,
	.phase_prefix = "phase_",
};
