/* A bounded fuzzing loop for the targets in this directory, so `make test`
 * can fuzz every parser without libFuzzer: each target defines libFuzzer's
 * LLVMFuzzerTestOneInput(), and this driver feeds it every file of its seed
 * corpus, then mutations of them (bit flips, interesting bytes, cut, copied
 * and repeated ranges, splices of two seeds) until a run count or a time
 * limit is reached. The sequence depends only on the seed and the corpus,
 * so a failure reproduces with the seed it prints; FUZZ_SAVE=PATH writes
 * each input to PATH before it runs, to keep the one that crashed.
 *
 * usage: fuzz_NAME [--runs N] [--seconds S] [--seed N] CORPUS_DIR|FILE... */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FUZZ_MAX_INPUT (1u << 20) /* no mutation grows an input past this */
#define MAX_SEEDS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seed {
	uint8_t *data;
	size_t size;
};

static struct seed seeds[MAX_SEEDS];
static size_t nseeds;
static uint64_t rng_state;

/* splitmix64: small, fast and the same on every machine */
static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static size_t below(size_t n)
{
	return n ? (size_t)(rng() % n) : 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int add_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	ssize_t got;
	size_t len = 0;
	int fd;

	if (nseeds == MAX_SEEDS)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > FUZZ_MAX_INPUT) {
		fprintf(stderr, "fuzz: skipping %s: not a readable regular file under %u bytes\n", path, FUZZ_MAX_INPUT);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (len < (size_t)st.st_size && (got = read(fd, buf + len, (size_t)st.st_size - len)) > 0)
		len += (size_t)got;
	close(fd);
	seeds[nseeds].data = buf;
	seeds[nseeds].size = len;
	nseeds++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file in dir, in name order (so runs are reproducible). */
static int add_dir(const char *dir)
{
	char *names[MAX_SEEDS];
	size_t n = 0;
	struct dirent *e;
	DIR *d = opendir(dir);
	int r = 0;

	if (!d)
		return add_file(dir);
	while ((e = readdir(d)) && n < MAX_SEEDS) {
		if (e->d_name[0] == '.')
			continue;
		size_t len = strlen(dir) + strlen(e->d_name) + 2;

		names[n] = malloc(len);
		if (!names[n]) {
			r = -ENOMEM;
			break;
		}
		snprintf(names[n], len, "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		if (!r)
			r = add_file(names[i]);
		free(names[i]);
	}
	return r;
}

static const uint8_t interesting[] = { 0, 1, 0x7f, 0x80, 0xff, '"', '\\', '{', '}', '[', ']', ',', ':', '-',
				       '0', '9', '.', 'e', '\n', '\r', ' ', '=', '%', '<', '&', 0xc3, 0xef };

/* One mutation of buf (size *n, capacity FUZZ_MAX_INPUT) in place. */
static void mutate(uint8_t *buf, size_t *n)
{
	size_t at = below(*n), len;

	switch (below(8)) {
	case 0: /* flip a bit */
		if (*n)
			buf[at] ^= (uint8_t)(1u << below(8));
		break;
	case 1: /* an interesting byte */
		if (*n)
			buf[at] = interesting[below(sizeof(interesting))];
		break;
	case 2: /* a random byte */
		if (*n)
			buf[at] = (uint8_t)rng();
		break;
	case 3: /* cut a range */
		len = below(*n - at + 1);
		memmove(buf + at, buf + at + len, *n - at - len);
		*n -= len;
		break;
	case 4: /* truncate */
		*n = at;
		break;
	case 5: /* copy a range elsewhere (insert) */
		if (*n) {
			size_t from = below(*n), to = below(*n + 1);

			len = below(*n - from) + 1;
			if (len > 64)
				len = 1 + below(64);
			if (*n + len > FUZZ_MAX_INPUT)
				break;
			memmove(buf + to + len, buf + to, *n - to);
			memmove(buf + to, buf + (from < to ? from : from + len), len);
			*n += len;
		}
		break;
	case 6: /* repeat a short range many times: deep nesting, long lines */
		if (*n) {
			size_t times = 2 + below(2048);

			len = 1 + below(4);
			if (at + len > *n)
				len = *n - at;
			if (*n + times * len > FUZZ_MAX_INPUT)
				break;
			memmove(buf + at + times * len, buf + at, *n - at);
			for (size_t i = 1; i <= times; i++)
				memcpy(buf + at + i * len, buf + at, len);
			*n += times * len;
		}
		break;
	case 7: /* splice: the head of this input, the tail of another seed */
		if (nseeds) {
			const struct seed *o = &seeds[below(nseeds)];
			size_t from = below(o->size + 1);

			len = o->size - from;
			if (at + len > FUZZ_MAX_INPUT)
				len = FUZZ_MAX_INPUT - at;
			memcpy(buf + at, o->data + from, len);
			*n = at + len;
		}
		break;
	}
}

static void run_one(const uint8_t *data, size_t size, const char *save)
{
	/* a private copy with no slack, so ASan sees every overread */
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy) {
		fprintf(stderr, "fuzz: out of memory\n");
		exit(1);
	}
	memcpy(copy, data, size);
	if (save) {
		FILE *f = fopen(save, "wb");

		if (f) {
			(void)fwrite(copy, 1, size, f);
			fclose(f);
		}
	}
	(void)LLVMFuzzerTestOneInput(copy, size);
	free(copy);
}

static int parse_num(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || *out < 0 ? -EINVAL : 0;
}

int main(int argc, char **argv)
{
	double runs = 100000, seconds = 10, seed = 1, t0;
	const char *save = getenv("FUZZ_SAVE");
	uint8_t *buf;
	unsigned long long done = 0;
	int i;

	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i += 2) {
		double *dst = !strcmp(argv[i], "--runs") ? &runs :
			      !strcmp(argv[i], "--seconds") ? &seconds :
			      !strcmp(argv[i], "--seed") ? &seed : NULL;

		if (!dst || i + 1 >= argc || parse_num(argv[i + 1], dst) < 0) {
			fprintf(stderr, "usage: %s [--runs N] [--seconds S] [--seed N] CORPUS_DIR|FILE...\n", argv[0]);
			return 2;
		}
	}
	for (; i < argc; i++)
		if (add_dir(argv[i]) < 0) {
			fprintf(stderr, "fuzz: out of memory reading the corpus\n");
			return 1;
		}
	if (!nseeds) {
		fprintf(stderr, "fuzz: no seed inputs: an empty corpus fuzzes nothing\n");
		return 1;
	}
	rng_state = (uint64_t)seed;
	printf("# %s: %zu seeds, seed %.0f, at most %.0f runs or %.0f s\n", argv[0], nseeds, seed, runs, seconds);
	fflush(stdout);
	for (size_t k = 0; k < nseeds; k++)
		run_one(seeds[k].data, seeds[k].size, save);
	buf = malloc(FUZZ_MAX_INPUT);
	if (!buf)
		return 1;
	t0 = now_s();
	while (done < (unsigned long long)runs && ((done & 63) || now_s() - t0 < seconds)) {
		const struct seed *s = &seeds[below(nseeds)];
		size_t n = s->size, k = 1 + below(4);

		memcpy(buf, s->data, n);
		while (k--)
			mutate(buf, &n);
		run_one(buf, n, save);
		done++;
	}
	printf("# %llu mutated inputs in %.1f s, no crash\n", done, now_s() - t0);
	printf("1..1\nok 1 - %zu seeds and %llu mutations ran without a crash or a sanitizer report\n", nseeds, done);
	free(buf);
	for (size_t k = 0; k < nseeds; k++)
		free(seeds[k].data);
	return 0;
}
