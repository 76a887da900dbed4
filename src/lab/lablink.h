/* The lab's link for a hypervisor that opens the guest's tap by name in
 * its own network namespace (a libvirt daemon's QEMU, in the host's root
 * namespace, which the lab cannot hand a descriptor to). The guest's end
 * stays as QEMU driven directly has it (qemu.c's tap_child), and the
 * host's end in a network namespace of the lab's own:
 *
 *   root namespace (no address)              the lab's namespace
 *   QEMU -- vmbtPID-N (tap, persistent) ==tc mirred== vmbvPID-N ===veth=== vmbtap0 10.251.0.1/30
 *
 * The tap and the veth's root end carry no address (IPv6 off on both):
 * tc's mirred redirects whatever comes in on one out of the other, at
 * their ingress, before the root namespace's stack sees it. The lab's
 * namespace is held by a process of the lab's (its holder: whose network
 * namespace the net suite's server and client, the ping and the shaping
 * use, as QEMU's own is on the direct path); its end is named vmbtap0 as
 * the direct path's tap, so that lab_link_host_end gives it the address
 * and linkrate's shaping alike.
 *
 * Everything is named per boot (PID: this vmbench's; N: a count) and
 * removed by lab_link_down, by lab_links_remove_all in a stop signal's
 * cleanup, and the holder dies with vmbench (PR_SET_PDEATHSIG), its
 * namespace and the veth with it. A kill -9 leaves the persistent tap
 * alone: the next lab run removes those of a vmbench no longer running
 * (lab_links_reclaim). */
#ifndef VMB_LAB_LABLINK_H
#define VMB_LAB_LABLINK_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "matrix.h"
#include "qemu.h"

/* The names' prefixes: the tap the hypervisor opens, the veth's root end */
#define LAB_LINK_TAP "vmbt"
#define LAB_LINK_VETH "vmbv"
/* The most link devices held at once (a fixed table a signal handler reads) */
#define LAB_LINKS_MAX 64

struct lab_link {
	pid_t holder;        /* in the lab's namespace; 0: no link */
	char tap[IFNAMSIZ];  /* "": none */
	char veth[IFNAMSIZ]; /* the root namespace's end; "": none */
};

/* The link of be (a back end with addresses) for configuration c (one NIC
 * of one queue; its linkrate shaped): 0, or a negative errno with why,
 * nothing left. Needs CAP_NET_ADMIN in the root namespace, ip and tc. */
int lab_link_up(struct lab_link *l, const struct lab_backend *be, const struct lab_config *c, char *why, size_t len);
/* The link gone (idempotent); the hypervisor's QEMU should be gone first. */
void lab_link_down(struct lab_link *l);
/* Every link device held deleted (async-signal-safe); the holders are the
 * lab's processes (procs.h), killed with them. */
void lab_links_remove_all(void);
/* The taps and veth ends of vmbench processes no longer running (a kill
 * -9) deleted, each said in the log: those whose ifalias carries the mark
 * of a process of this PID namespace that is gone (its PID free, or
 * another process's now). A device of the same name without the mark (a
 * user's own) or of another PID namespace's vmbench (whose PID says
 * nothing here) is left. */
void lab_links_reclaim(void);
/* Is name, with its ifalias alias, such a device? ns: this process's PID
 * namespace; start_of(pid): that process's start time, 0 when none. */
bool lab_link_left(const char *name, const char *alias, unsigned long long ns, unsigned long long (*start_of)(long));

#endif
