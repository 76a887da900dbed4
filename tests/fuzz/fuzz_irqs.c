/* Fuzz target for /proc/interrupts as the net suite reads it (a NIC's
 * interrupts per round trip): any text gives the count of the lines asked
 * or -EINVAL, never more lines found than asked, and the same text asked
 * for a line twice counts it once. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/suites/net_irq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned irqs[] = { 0, 1, 11, 24, 25, 26, 4294967295u }, twice[] = { 11, 11 }, once[] = { 11 };
	char *text = malloc(size + 1);
	uint64_t sum = 0, a = 0, b = 0;
	int r, ra, rb;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	r = net_irq_sum(text, irqs, sizeof(irqs) / sizeof(irqs[0]), &sum);
	if (r != -EINVAL && (r < 0 || r > (int)(strlen(text) / 2 + 1)))
		abort();
	ra = net_irq_sum(text, twice, 2, &a);
	rb = net_irq_sum(text, once, 1, &b);
	if (ra != rb || (ra >= 0 && a != b))
		abort();
	free(text);
	return 0;
}
