/* UDP receive statistics (iperf3, RFC 3550) and wrk2's schedule: see calc.h. */
#include <math.h>

#include "calc.h"
#include "../core/clock.h"
#include "../core/banned.h"

/* iperf3's iperf_udp_recv(): a number above the next expected one counts
 * the gap as lost; one below it is out of order and takes one back from the
 * lost count (it was counted lost when the gap was seen). */
bool udp_rx_record(struct udp_rx *s, uint64_t seq, uint64_t sent_ns, uint64_t recv_ns)
{
	int64_t transit = (int64_t)(recv_ns - sent_ns);

	if (seq == 0 || seq > UDP_MAX_SEQ)
		return false;
	s->packets++;
	if (seq > s->max_seq) {
		s->lost += seq - s->max_seq - 1;
		s->max_seq = seq;
	} else {
		s->ooo++;
		if (s->lost > 0)
			s->lost--;
	}
	/* RFC 3550 6.4.1: D(i-1,i) = (Rj - Ri) - (Sj - Si) = transit_j - transit_i;
	 * J += (|D| - J) / 16. Unlike iperf3, the first datagram (which has no
	 * predecessor) does not feed a D against a transit of zero. */
	if (s->have_transit) {
		/* in double: two forged send times must not overflow the difference */
		double d = fabs((double)transit - (double)s->prev_transit);

		s->jitter_ns += (d - s->jitter_ns) / 16.0;
	}
	s->prev_transit = transit;
	s->have_transit = true;
	return true;
}

double udp_rx_loss_pct(const struct udp_rx *s)
{
	if (s->max_seq == 0)
		return 0;
	return 100.0 * (double)s->lost / (double)s->max_seq;
}

uint64_t sched_intended_ns(uint64_t start_ns, uint64_t i, double rate)
{
	return start_ns + (uint64_t)llround((double)i * NSEC_PER_SEC / rate);
}

uint64_t sched_latency_ns(uint64_t intended_ns, uint64_t sent_ns, uint64_t done_ns)
{
	uint64_t from = intended_ns < sent_ns ? intended_ns : sent_ns;

	return done_ns > from ? done_ns - from : 0;
}
