/* A booted guest checked against its configuration (labcheck.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "labcheck.h"
#include "../core/parse.h"
#include "../core/str.h"
#include "../core/banned.h"

/* The guest's device of this list ("block_devices", "network") whose
 * driver is driver, or NULL. */
static const json_t *guest_device(const json_t *fp, const char *list, const char *driver)
{
	const json_t *one = json_object_get(fp, list);
	size_t i;
	json_t *d;

	/* the one device of its kind (the balloon: {"present", "driver"}) */
	if (json_is_object(one))
		return driver && !strcmp(json_string_value(json_object_get(one, "driver")) ?: "", driver) ? one : NULL;
	/* a distribution's root disk is never the device under test */
	json_array_foreach(json_object_get(fp, list), i, d)
		if (driver && !strcmp(json_string_value(json_object_get(d, "driver")) ?: "", driver) &&
		    json_string_value(json_object_get(d, "name")) &&
		    strcmp(json_string_value(json_object_get(d, "serial")) ?: "", LAB_ROOT_SERIAL))
			return d;
	return NULL;
}

/* A back end with a link: the guest's device is up, with the guest's
 * address of the link (the init script's work before HELLO). */
static int check_link(const struct lab_backend *be, const json_t *dev, const char *what, char *err, size_t errlen)
{
	const char *name = json_string_value(json_object_get(dev, "name"));
	const char *state = json_string_value(json_object_get(dev, "state"));
	const json_t *a;
	size_t i;

	if (!be->guest_addr)
		return 0;
	/* RFC 2863's "unknown": a driver that reports no carrier (pcnet32), its link up */
	if (!state || (strcmp(state, "up") && strcmp(state, "unknown")))
		return errf(err, errlen, -ENETDOWN, "the guest's %s %s is %s, not up", what, name, state ? state : "of no state");
	json_array_foreach(json_object_get(dev, "ipv4"), i, a)
		if (!strcmp(json_string_value(a) ?: "", be->guest_addr))
			return 0;
	return errf(err, errlen, -ENETDOWN, "the guest's %s %s does not have the address %s of the lab's link", what,
		    name, be->guest_addr);
}

/* Several NICs (the nics key): nics of the model's driver, each a slave of
 * one bond, up; the bond up, with the link's address (the agent's work
 * before HELLO, src/guest/bond.c) */
static int check_bond(const struct lab_config *c, const struct lab_backend *be, const json_t *fp,
		      const struct lab_device *d, char *err, size_t errlen)
{
	const json_t *list = json_object_get(fp, be->guest_list), *dev, *bond = NULL;
	const char *master = NULL;
	unsigned seen = 0;
	size_t i;
	int r;

	json_array_foreach(list, i, dev) {
		const char *drv = json_string_value(json_object_get(dev, "driver"));
		const char *m = json_string_value(json_object_get(dev, "master"));
		const char *state = json_string_value(json_object_get(dev, "state"));

		if (!drv || strcmp(drv, d->driver))
			continue;
		seen++;
		if (!m || (master && strcmp(m, master)))
			return errf(err, errlen, -ENETDOWN, "the guest's %s %s is not a slave of its bond (nics=%u)",
				    be->guest_what, json_string_value(json_object_get(dev, "name")) ?: "?", c->nics);
		master = m;
		if (!state || (strcmp(state, "up") && strcmp(state, "unknown")))
			return errf(err, errlen, -ENETDOWN, "the guest's %s %s, a slave of %s, is %s, not up", be->guest_what,
				    json_string_value(json_object_get(dev, "name")) ?: "?", m, state ? state : "of no state");
	}
	if (seen != c->nics)
		return errf(err, errlen, -ENODEV, "the guest shows %u %s with the %s driver, nics=%u asked for %u", seen,
			    be->guest_what, d->driver, c->nics, c->nics);
	json_array_foreach(list, i, dev)
		if (!strcmp(json_string_value(json_object_get(dev, "name")) ?: "", master))
			bond = dev;
	if (!bond || strcmp(json_string_value(json_object_get(bond, "bond_mode")) ?: "", LAB_BOND_MODE))
		return errf(err, errlen, -ENETDOWN, "the guest's bond %s is not in mode " LAB_BOND_MODE " (it says %s)",
			    master, bond ? json_string_value(json_object_get(bond, "bond_mode")) ?: "none" : "nothing");
	r = check_link(be, bond, "bond", err, errlen);
	return r;
}

/* A count in the guest's fingerprint object o is want (null: not known there) */
static int check_count(const json_t *o, const char *field, json_int_t want, const char *what, char *err, size_t errlen)
{
	const json_t *v = json_object_get(o, field);

	if (json_is_integer(v) && json_integer_value(v) == want)
		return 0;
	if (json_is_integer(v))
		return errf(err, errlen, -EPROTO, "the guest shows %lld %s, the configuration asked for %lld",
			    (long long)json_integer_value(v), what, (long long)want);
	return errf(err, errlen, -EPROTO, "the guest shows no count of its %s (the configuration asked for %lld)", what,
		    (long long)want);
}

/* The guest's CPUs: smp of them, the model the cpu row names, and the
 * sockets, cores and threads of the topology. */
static int check_cpu(const struct lab_config *c, const json_t *fp, char *err, size_t errlen)
{
	const json_t *cpu = json_object_get(fp, "cpu");
	const struct lab_cpu *row = lab_config_cpu(c);
	const char *model = json_string_value(json_object_get(cpu, "model"));
	unsigned t[3];
	int64_t smp = 0;
	int r;

	(void)parse_i64(c->v[LAB_SMP], 1, 256, &smp);
	r = check_count(cpu, "logical", smp, "vCPUs", err, errlen);
	if (r == 0 && row && row->model && (!model || strcmp(model, row->model)))
		r = errf(err, errlen, -EPROTO, "the guest's CPU is '%s', cpu=%s shows '%s'", model ? model : "(unnamed)",
			 row->name, row->model);
	if (r < 0 || lab_topology_parse(c->v[LAB_TOPOLOGY], t) < 0)
		return r;
	r = check_count(cpu, "sockets", t[0], "sockets", err, errlen);
	if (r == 0)
		r = check_count(cpu, "cores", (json_int_t)t[0] * t[1], "cores", err, errlen);
	if (r == 0)
		r = check_count(cpu, "threads_per_core", t[2], "threads per core", err, errlen);
	return r;
}

/* The guest is what the configuration asked for: its architecture, its
 * CPUs, its transparent huge pages, and behind each device key's model the driver the device table
 * names, where the model's back end says the guest shows it (with the
 * queues of a NIC that takes several). *scratch: the block device behind
 * the disk key, which the suites that need a scratch disk get. */
int lab_check_guest(const struct lab_config *c, const json_t *fp, const struct lab_paths *paths, const char **scratch,
		    char *err, size_t errlen)
{
	const char *arch = json_string_value(json_object_get(fp, "arch"));

	if (!arch || strcmp(arch, c->v[LAB_ARCH]))
		return errf(err, errlen, -EPROTO, "the guest says it is %s, the configuration asked for %s",
			    arch ? arch : "of no architecture", c->v[LAB_ARCH]);
	*scratch = NULL;
	if (check_cpu(c, fp, err, errlen) < 0)
		return -EPROTO;
	/* the firmware: a UEFI one hands the kernel its runtime services */
	if (lab_config_firmware(c) && json_is_true(json_object_get(json_object_get(fp, "kernel"), "efi")) !=
					      lab_config_firmware(c)->efi)
		return errf(err, errlen, -EPROTO, "the guest's kernel was %sbooted by UEFI, and firmware=%s %s",
			    lab_config_firmware(c)->efi ? "not " : "", c->v[LAB_FIRMWARE],
			    lab_config_firmware(c)->efi ? "is UEFI" : "is not");
	/* thp=: the mode the kernel was started with is the one in force */
	if (c->thp) {
		const char *thp = json_string_value(json_object_get(json_object_get(fp, "thp"), "enabled"));

		if (!thp || strcmp(thp, c->thp))
			return errf(err, errlen, -EPROTO, "the guest's transparent huge pages are %s, thp=%s asked for %s "
				    "(its kernel's transparent_hugepage=)", thp ? thp : "not shown (no "
				    "/sys/kernel/mm/transparent_hugepage/enabled)", c->thp, c->thp);
	}
	for (int k = 0; k < (int)lab_nkeys; k++) {
		const struct lab_device *d = lab_config_device(c, (enum lab_key)k);
		const struct lab_backend *be = d ? lab_backend_of(paths, (enum lab_key)k) : NULL;
		const json_t *dev = be ? guest_device(fp, be->guest_list, d->driver) : NULL;
		int r;

		if (d && !dev)
			return errf(err, errlen, -ENODEV, "the guest shows no %s with the %s driver that %s=%s needs",
				    be ? be->guest_what : "device", d->driver, lab_key_name((enum lab_key)k), d->name);
		if (dev && k == LAB_NIC && c->nics > 1)
			r = check_bond(c, be, fp, d, err, errlen);
		else
			r = dev ? check_link(be, dev, be->guest_what, err, errlen) : 0;
		/* the queue pairs the agent set: the device's queues in the guest */
		if (r == 0 && dev && k == LAB_NIC && lab_config_mq(c))
			r = check_count(dev, "queues", lab_config_queues(c), "queues on its NIC", err, errlen);
		if (r < 0)
			return r;
		if (k == LAB_DISK)
			*scratch = json_string_value(json_object_get(dev, "name"));
	}
	return 0;
}
