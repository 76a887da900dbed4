/* The arithmetic of the network figures, pure so that unit tests can check
 * it against hand-worked cases: UDP loss, reordering and jitter as iperf3
 * counts them (jitter as RFC 3550's smoothed interarrival variation), and
 * wrk2's intended send times (latency measured from the schedule). */
#ifndef VMB_NET_CALC_H
#define VMB_NET_CALC_H

#include <stdbool.h>
#include <stdint.h>

/* A UDP receiver's counters. Sequence numbers start at 1. */
struct udp_rx {
	uint64_t packets;  /* datagrams received */
	uint64_t max_seq;  /* highest sequence number seen */
	uint64_t lost;     /* missing sequence numbers, less the late ones that came */
	uint64_t ooo;      /* datagrams that came after a higher number */
	double jitter_ns;  /* J, RFC 3550 6.4.1 */
	int64_t prev_transit;
	bool have_transit;
};

/* The highest sequence number a receiver counts: more datagrams than a
 * test can carry (600 s at 100 Gbit/s of the smallest datagrams is about
 * 2^38), so that lost and every other counter stay far below the control
 * protocol's bound of 10^18 whatever number a sender forges. */
#define UDP_MAX_SEQ (UINT64_C(1) << 40)

/* One datagram: its sequence number, the sender's clock when it was sent
 * and the receiver's when it came (the clocks' offset cancels in D).
 * False, and nothing counted, for a number of 0 or above UDP_MAX_SEQ. */
bool udp_rx_record(struct udp_rx *s, uint64_t seq, uint64_t sent_ns, uint64_t recv_ns);
/* Loss in percent of the datagrams expected (the highest number seen), as
 * iperf3 reports it; 0 when none was expected. */
double udp_rx_loss_pct(const struct udp_rx *s);

/* wrk2: request i (from 0) of a schedule at `rate` requests per second
 * that began at start_ns is due at this time. */
uint64_t sched_intended_ns(uint64_t start_ns, uint64_t i, double rate);
/* Latency of a response at done_ns to a request due at intended_ns and
 * actually sent at sent_ns: from the intended time, never from the later
 * send (coordinated omission), and never negative. */
uint64_t sched_latency_ns(uint64_t intended_ns, uint64_t sent_ns, uint64_t done_ns);

#endif
