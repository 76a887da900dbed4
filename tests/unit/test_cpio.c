/* The initramfs writer: read the archive back, entry by entry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "test.h"
#include "../../src/lab/cpio.h"

static unsigned long hexfield(const char *h, int i)
{
	char f[9];

	memcpy(f, h + 6 + 8 * i, 8);
	f[8] = '\0';
	return strtoul(f, NULL, 16);
}

static void round_trip(void **state)
{
	char path[] = "/tmp/vmbench-cpio-XXXXXX", buf[1 << 16];
	struct cpio c;
	gzFile gz;
	size_t len, off = 0, n = 0;
	int fd;
	static const struct {
		const char *name;
		unsigned type;
		const char *data;
	} want[] = {
		{ "bin", S_IFDIR, "" }, { "bin/hello", S_IFREG, "hi\n" }, { "init", S_IFREG, "#!/bin/sh\necho x\n" },
		{ "bin/sh", S_IFLNK, "busybox" }, { "empty", S_IFREG, "" },
	};

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(cpio_open(&c, path), 0);
	cpio_dir(&c, "bin", 0755);
	cpio_file(&c, "bin/hello", 0644, "hi\n", 3);
	cpio_file(&c, "init", 0755, "#!/bin/sh\necho x\n", 17);
	cpio_symlink(&c, "bin/sh", "busybox");
	cpio_file(&c, "empty", 0600, "", 0);
	assert_int_equal(cpio_close(&c), 0);

	gz = gzopen(path, "rb");
	assert_non_null(gz);
	len = (size_t)gzread(gz, buf, sizeof(buf));
	gzclose(gz);
	unlink(path);
	for (;;) {
		const char *h = buf + off, *name;
		unsigned long mode, size, namesize;

		assert_true(off + 110 <= len);
		assert_memory_equal(h, "070701", 6);
		mode = hexfield(h, 1);
		size = hexfield(h, 6);
		namesize = hexfield(h, 11);
		name = h + 110;
		assert_int_equal(name[namesize - 1], '\0');
		off += (110 + namesize + 3) & ~3ul;
		if (!strcmp(name, "TRAILER!!!"))
			break;
		assert_true(n < sizeof(want) / sizeof(want[0]));
		assert_string_equal(name, want[n].name);
		assert_int_equal(mode & S_IFMT, want[n].type);
		assert_int_equal(size, strlen(want[n].data));
		assert_memory_equal(buf + off, want[n].data, size);
		off += (size + 3) & ~3ul;
		n++;
	}
	assert_int_equal(n, 5);
	assert_int_equal(off % 4, 0);
	/* a missing host file is an error, reported at close */
	fd = mkstemp(path);
	close(fd);
	assert_int_equal(cpio_open(&c, path), 0);
	cpio_copy(&c, "x", 0644, "/nonexistent/file");
	assert_int_equal(cpio_close(&c), -2);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
