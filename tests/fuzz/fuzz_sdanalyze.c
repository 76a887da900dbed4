/* Fuzz target: what the lab reads of a guest it booted, which the guest
 * (its systemd, its SSH server) wrote: systemd-analyze's startup line and
 * blame's lines (the systemd suite), and an SSH server's identification
 * (the boot's end of userspace, src/lab/distro.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lab/distro.h"
#include "../../src/suites/systemd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), version[256];
	struct sd_blame blame[5];
	struct sd_startup st;
	size_t n = 99;
	int r;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (sd_parse_startup(text, &st) == 0) {
		/* every number that leaves: finite, not negative */
		if (!isfinite(st.total) || st.total < 0)
			abort();
		for (size_t k = 0; k < SD_NPARTS; k++)
			if (!isnan(st.part[k]) && (!isfinite(st.part[k]) || st.part[k] < 0))
				abort();
	}
	if (sd_parse_blame(text, blame, 5, &n) == 0) {
		if (n > 5)
			abort();
		for (size_t i = 0; i < n; i++)
			if (!isfinite(blame[i].sec) || blame[i].sec < 0 || !*blame[i].unit || strchr(blame[i].unit, ' ') ||
			    strlen(blame[i].unit) >= sizeof(blame[i].unit))
				abort();
	}
	/* the banner: bytes as they came, not NUL-terminated */
	r = lab_ssh_banner((const char *)data, size, version, sizeof(version));
	if (r == 1 && (strncmp(version, "SSH-", 4) || strpbrk(version, "\r\n") || strlen(version) > 254))
		abort();
	if (r != 1 && r != 0 && r != -71 /* -EPROTO */)
		abort();
	free(text);
	return 0;
}
