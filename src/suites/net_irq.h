/* The interrupts of the NIC a request/response test's packets cross, as
 * the client's machine counts them (net_irq.c): its lines found once, their
 * counts read before and after a repetition. docs/methodology.md, "NIC
 * interrupts per round trip". */
#ifndef VMB_NET_IRQ_H
#define VMB_NET_IRQ_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define NET_IRQ_MAX 64

struct net_irqs {
	char ifname[IF_NAMESIZE];   /* the interface the route to the server leaves by */
	unsigned irq[NET_IRQ_MAX];  /* its device's interrupt lines */
	size_t n;
	bool msi;                   /* MSI/MSI-X vectors, else its legacy line */
};

/* The NIC the route to `to` leaves by and its lines: 0, or -ENOENT when
 * the route stays on loopback or the interface has no device with an
 * interrupt line (a tap, a bridge, a veth), or a negative errno. */
int net_irqs_find(const struct sockaddr_storage *to, socklen_t len, struct net_irqs *q);
/* The lines' counts now, summed over every CPU, from /proc/interrupts. */
int net_irqs_read(const struct net_irqs *q, uint64_t *sum);
/* The parser behind it: text is /proc/interrupts (a header of CPU columns,
 * then "IRQ: count per CPU ... name" lines); *sum the counts of the lines
 * numbered in irqs. How many of those lines were found, or -EINVAL for a
 * text that is not /proc/interrupts (no CPU column, a line of irqs with
 * fewer counts than CPUs, a sum past 2^64). */
int net_irq_sum(const char *text, const unsigned *irqs, size_t n, uint64_t *sum);

#endif
