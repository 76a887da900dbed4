/* The libvirt row's parts shared between its files (hv_libvirt.c, the
 * connection, the boot and the VM operations; hv_libvirt_tune.c, a
 * guest's share of the host for lab contend). Not for the lab above the
 * seam, which calls through the row (hv.h). */
#ifndef VMB_LAB_HV_LIBVIRT_H
#define VMB_LAB_HV_LIBVIRT_H

#include <libvirt/libvirt.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

struct lab_hv_mon;

/* A symbol of the libvirt opened at --connect (dlsym), or NULL. */
void *lv_symbol(const char *name);
/* The domain named, or NULL with why. */
virDomainPtr lv_domain(const char *name, char *why, size_t len);
void lv_domain_free(virDomainPtr d);
/* libvirt's last error message ("no message" when it has none) */
const char *lv_error(void);
/* The daemon's host's CPUs, or -1. */
int lv_host_cpus(void);
/* The domain a connection about a guest is about */
const char *lv_mon_name(const struct lab_hv_mon *m);

/* hv_libvirt_tune.c: the row's tune, vcpu_stat and confine (hv.h) */
int lv_tune(struct lab_hv_mon *m, unsigned weight, unsigned long long quota_us, unsigned period_us, char *why,
	    size_t len);
int lv_vcpu_stat(struct lab_hv_mon *m, unsigned long long *cpu_ns, unsigned long long *wait_ns, bool *exact,
		 char *why, size_t len);
int lv_confine(struct lab_hv_mon *m, const cpu_set_t *cpus, char *why, size_t len);

#endif
