/* The libvirt row's parts shared between its files (hv_libvirt.c, the
 * connection, the boot and the VM operations; hv_libvirt_tune.c, a
 * guest's share of the host for lab contend). Not for the lab above the
 * seam, which calls through the row (hv.h). */
#ifndef VMB_LAB_HV_LIBVIRT_H
#define VMB_LAB_HV_LIBVIRT_H

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

struct lab_hv_mon;

#define LV_FUNCS(X)                                                                                          \
	X(virConnectOpen) X(virConnectClose) X(virConnectGetHostname) X(virDomainCreateXML)                 \
	X(virDomainLookupByName) X(virDomainDestroy) X(virDomainFree) X(virDomainGetState) X(virDomainReset) \
	X(virGetLastErrorMessage) X(virSetErrorFunc) X(virDomainSetMemoryFlags) X(virDomainMemoryStats)  \
	X(virDomainGetVcpusFlags) X(virDomainPinVcpuFlags) X(virDomainGetVcpuPinInfo) X(virNodeGetCPUMap)       \
	X(virDomainSnapshotCreateXML) X(virDomainSnapshotFree) X(virDomainBlockCommit)                       \
	X(virDomainGetBlockJobInfo) X(virDomainBlockJobAbort) X(virEventRegisterDefaultImpl)                  \
	X(virEventRunDefaultImpl) X(virConnectSetKeepAlive) X(virConnectRegisterCloseCallback)                 \
	X(virConnectIsAlive) X(virGetLastErrorCode) X(virConnectDomainEventRegisterAny)                       \
	X(virConnectDomainEventDeregisterAny)

/* libvirt as the connection opened it: its functions (dlsym), the
 * session's one connection, and what is known of its daemon */
struct lv_api {
	void *h;
#define LV_FIELD(f) __typeof__(f) *f;
	LV_FUNCS(LV_FIELD)
#undef LV_FIELD
	virConnectPtr conn;
	char uri[256], host[256];
	/* the daemon lost (its connection closed or silent past the keepalive):
	 * why, said once; the domains started on it and not destroyed yet */
	pthread_mutex_t mu;
	bool lost;
	char lost_why[600];
	struct lv_dom {
		char name[200], kernel[4300];
	} doms[4];
	/* --migrate-to: the destination's connection, its label, whether it is
	 * this machine (the guest then moves over loopback); the domains that
	 * run there now (moved), by name */
	virConnectPtr dest;
	char dest_uri[256];
	bool dest_here;
	char moved[4][200];
};
extern struct lv_api lv;

/* hv_libvirt_conn.c: the connection, libvirt's event loop, a daemon lost */
/* The connection the domain named runs on now: the session's, or after a
 * migration the destination's */
virConnectPtr lv_conn_of(const char *name);
/* The domain named, on the connection it runs on now, or NULL */
virDomainPtr lv_lookup(const char *name);
/* The domain named runs on the destination now (moved), or no more; -ENOSPC
 * when more domains are moved at once than the table holds */
int lv_set_moved(const char *name, bool moved);
/* libvirt's words on the calling thread's last error, or why the daemon is lost */
const char *lv_err(void);
/* Is the daemon lost (its connection closed, or silent past the keepalive)? */
bool lv_is_lost(void);
/* The daemon lost, how: said once, its domains' QEMUs on this machine ended */
void lv_lose(const char *how);
/* Lost, or found lost now (virConnectIsAlive)? */
bool lv_gone(void);
/* A domain the lost daemon started: its QEMU on this machine ended, or where it may still run said */
void lv_end_orphan(const struct lv_dom *d);

/* A symbol of the libvirt opened at --connect (dlsym), or NULL. */
void *lv_symbol(const char *name);
/* The domain named, or NULL with why. */
virDomainPtr lv_domain(const char *name, char *why, size_t len);
void lv_domain_free(virDomainPtr d);
/* libvirt's last error message ("no message" when it has none) */
const char *lv_error(void);
/* The CPUs of the host the domain named runs on, or -1. */
int lv_host_cpus(const char *name);
/* The domain a connection about a guest is about */
const char *lv_mon_name(const struct lab_hv_mon *m);
/* The domain's cpu_shares before the lab's first tune (0: not read yet),
 * kept with its connection (hv_libvirt_tune.c) */
unsigned long long *lv_mon_shares_first(struct lab_hv_mon *m);

/* hv_libvirt_tune.c: the row's tune, vcpu_stat and confine (hv.h) */
int lv_tune(struct lab_hv_mon *m, unsigned weight, unsigned long long quota_us, unsigned period_us, char *why,
	    size_t len);
int lv_vcpu_stat(struct lab_hv_mon *m, unsigned long long *cpu_ns, unsigned long long *wait_ns, bool *exact,
		 char *why, size_t len);
int lv_confine(struct lab_hv_mon *m, const cpu_set_t *cpus, char *why, size_t len);

/* hv_libvirt_move.c: the row's migrate (hv.h) to --migrate-to's host */
struct lab_vm;
struct lab_hv_move;
struct lab_hv_moved;
int lv_migrate(struct lab_vm *vm, const struct lab_hv_move *how, struct lab_hv_moved *out, bool *lost, char *why,
	       size_t len);
/* and its save_restore and savevm (hv.h) */
int lv_save_restore(struct lab_vm *vm, const struct lab_hv_move *how, struct lab_hv_moved *out, bool *lost,
		    char *why, size_t len);
int lv_savevm(struct lab_vm *vm, const char *tag, double *save_s, double *load_s, char *why, size_t len);

#endif
