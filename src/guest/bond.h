/* The guest's side of the nics key: the NICs the host asks it to bond on
 * the kernel command line (vmbench.bond=MODE,N, with the link's address
 * in vmbench.net=ADDR/PREFIX), bonded by the agent before HELLO through
 * the bonding driver's sysfs files, as ifenslave does, and the address
 * given to the bond. */
#ifndef VMB_BOND_H
#define VMB_BOND_H

#include <stddef.h>

#include "../core/strv.h"

#define LAB_BOND_DEV "bond0"

struct lab_bond {
	char mode[24]; /* the bonding driver's mode name (balance-rr) */
	unsigned n;    /* the NICs to bond, 2 to 8 */
	char addr[32]; /* ADDR/PREFIX of the bond; "" when the command line gives none */
};

/* The vmbench.bond=MODE,N and vmbench.net= words of a kernel command line:
 * 0, -ENOENT when there is no vmbench.bond, -EINVAL when it is not a mode
 * of lowercase letters, digits, dots and dashes (802.3ad) and a count from 2 to 8. */
int lab_cmdline_bond(const char *cmdline, size_t len, struct lab_bond *b);
/* The NICs below root's /sys/class/net (a directory with a device link:
 * not lo, not a bond), sorted: 0 or a negative errno. */
int lab_bond_nics(const char *root, struct strv *nics);
/* The sysfs writes that make bond b of nics, in order, each as
 * "FILE VALUE" with FILE below /sys/class/net: the bond made if the driver
 * made none, its mode (while it has no slaves), the link monitor, each NIC
 * enslaved (the driver brings it up). 0 or -ENOMEM. */
int lab_bond_plan(const struct lab_bond *b, const struct strv *nics, struct strv *writes);
/* The writes of lab_bond_plan done below root (the file of "bonding_masters"
 * only when the bond is not there yet): 0, or a negative errno with why. */
int lab_bond_apply(const char *root, const struct strv *writes, char *why, size_t len);
/* In the guest: wait up to timeout_ms for b's n NICs, bond them, give the
 * bond b's address and bring it up, and wait for it to be up. 0, or a
 * negative errno with why. */
int lab_bond_setup(const struct lab_bond *b, unsigned timeout_ms, char *why, size_t len);

#endif
