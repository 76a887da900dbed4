/* The distribution image's pure parts: the package list, the files written
 * into the tree, the cache key; and a tiny tree assembled into a qcow2
 * (mke2fs -d, qemu-img), read back with debugfs. No debootstrap here: that
 * build is `make test-distro`'s. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "../../src/lab/distro.h"
#include "../../src/lab/mirror.h"
#include "../../src/lab/qemu.h"
#include "../../src/core/util.h"
#include "../../src/suites/systemd.h"

static const struct lab_distro *debian(void)
{
	const struct lab_distro *d = lab_distro_find("debian");

	assert_non_null(d);
	return d;
}

static void package_lists(void **state)
{
	static const struct {
		const char *extra;
		int r;
		const char *last; /* the list's last name when r == 0 */
	} cases[] = {
		{ NULL, 0, "linux-image-amd64" },
		{ "gcc,make", 0, "make" },
		{ "linux-source-6.1", 0, "linux-source-6.1" },
		{ "g++,libc6-dev", 0, "libc6-dev" },
		{ "gcc,,make", -22, NULL },           /* an empty name */
		{ "gcc,", -22, NULL },                /* a trailing comma is an empty name too */
		{ "Gcc", -22, NULL },                 /* uppercase */
		{ "gcc;rm -rf /", -22, NULL },        /* no shell words reach debootstrap */
		{ "-gcc", -22, NULL },                /* an option, not a name */
		{ "g", -22, NULL },                   /* one character */
		{ "gcc,gcc", -22, NULL },             /* twice */
		{ "openssh-server", -22, NULL },      /* the image's own */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strv v = { 0 };
		char err[512] = "";
		int r = lab_distro_packages(debian(), "amd64", cases[i].extra, &v, err, sizeof(err));

		if (r != cases[i].r)
			fail_msg("'%s': %d, want %d (%s)", cases[i].extra ? cases[i].extra : "(none)", r, cases[i].r, err);
		if (r == 0) {
			assert_true(v.n >= 3);
			assert_string_equal(v.v[v.n - 1], cases[i].last);
			assert_string_equal(v.v[0], "systemd");
		} else {
			assert_true(*err != '\0');
		}
		strv_clear(&v);
	}
}

static const struct lab_distro_file *file_at(const char *path)
{
	for (size_t i = 0; i < lab_distro_nfiles; i++)
		if (!strcmp(lab_distro_files[i].path, path))
			return &lab_distro_files[i];
	fail_msg("no file %s in the image's table", path);
	return NULL;
}

static void files_written(void **state)
{
	const struct lab_distro_opts o = { .d = debian(), .arch = "x86_64", .pubkeys = "ssh-ed25519 AAAA lab" };
	static const struct {
		const char *path;
		unsigned mode;
		const char *has[4];
	} cases[] = {
		{ "/etc/systemd/system/vmbench-agent.service", 0644,
		  { "After=network-online.target ssh.service nginx.service mariadb.service vmbench-db.service "
		    "memcached.service\n", "Wants=network-online.target\n",
		    "ExecStart=" LAB_DISTRO_LIBDIR "/agent-start\n", "ExecStopPost=" LAB_DISTRO_LIBDIR "/agent-stop\n" } },
		/* db=mariadb's database and user, once MariaDB runs; nothing in an image without it */
		{ "/etc/systemd/system/vmbench-db.service", 0644,
		  { "After=mariadb.service\n", "ConditionPathExists=/usr/sbin/mariadbd\n",
		    "CREATE USER IF NOT EXISTS 'vmbench'@'localhost' IDENTIFIED BY 'vmbench'; "
		    "GRANT ALL ON vmbench.* TO 'vmbench'@'localhost'\"\n", "WantedBy=multi-user.target\n" } },
		/* after REBOOT the agent's status 3 reboots; anything else powers off */
		{ LAB_DISTRO_LIBDIR "/agent-stop", 0755,
		  { "#!/bin/sh\n", "if [ \"$EXIT_STATUS\" = 3 ]; then exec /bin/systemctl --no-block reboot; fi\n",
		    "exec /bin/systemctl --no-block poweroff\n", NULL } },
		{ LAB_DISTRO_LIBDIR "/agent-start", 0755,
		  { "#!/bin/sh\n", "vmbench.agent=*) port=${w#vmbench.agent=}", "exec " LAB_DISTRO_VMBENCH " agent --port \"$port\"",
		    "LD_LIBRARY_PATH=" LAB_DISTRO_LIBDIR "\n" } },
		{ "/etc/systemd/network/10-vmbench.network", 0644,
		  { "[Match]\nType=ether\n", "Address=" LAB_NET_GUEST "/" LAB_NET_PREFIX "\n", "Address=10.251.0.2/30\n", NULL } },
		/* memcached on the tap link's address too, where the host's net.memcached loads it */
		{ "/etc/systemd/system/memcached.service.d/vmbench.conf", 0644,
		  { "ExecStart=\n", "ExecStart=/usr/bin/memcached -l 127.0.0.1," LAB_NET_GUEST " -p 11211 -U 0 ",
		    "-u memcache\n", NULL } },
		{ "/etc/systemd/system/systemd-networkd-wait-online.service.d/vmbench.conf", 0644,
		  { "ExecStart=\n", "--any --timeout=20\n", NULL } },
		{ "/etc/fstab", 0644, { "LABEL=" LAB_DISTRO_ROOT_LABEL " / ext4 ", NULL } },
		{ "/etc/hostname", 0644, { "vmbench-debian\n", NULL } },
		{ "/root/.ssh/authorized_keys", 0600, { "ssh-ed25519 AAAA lab\n", NULL } },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct lab_distro_file *f = file_at(cases[i].path);
		char *text = f->text(&o);

		assert_non_null(text);
		assert_int_equal(f->mode, cases[i].mode);
		for (size_t k = 0; k < 4 && cases[i].has[k]; k++)
			if (!strstr(text, cases[i].has[k]))
				fail_msg("%s lacks '%s':\n%s", cases[i].path, cases[i].has[k], text);
		free(text);
	}
}

/* Whether the key has the string s among its inputs */
static bool has_input(const struct strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return true;
	return false;
}

static void cache_key(void **state)
{
	struct lab_distro_opts o = { .d = debian(), .arch = "x86_64", .pubkeys = "ssh-ed25519 AAAA lab" };
	struct strv a = { 0 }, b = { 0 };
	size_t differ = 0;

	(void)state;
	assert_int_equal(lab_distro_inputs(&o, "/x/vmbench:10:20", "1.0.128", &a), 0);
	/* the same inputs: the same key */
	assert_int_equal(lab_distro_inputs(&o, "/x/vmbench:10:20", "1.0.128", &b), 0);
	assert_int_equal(a.n, b.n);
	for (size_t i = 0; i < a.n; i++)
		assert_string_equal(a.v[i], b.v[i]);
	assert_true(has_input(&a, "arch:amd64"));
	assert_true(has_input(&a, "vmbench:/x/vmbench:10:20"));
	assert_true(has_input(&a, "debootstrap:1.0.128"));
	strv_clear(&b);
	/* each input changed alone changes exactly one string of the key */
	{
		static const char *const keys[] = { "ssh-ed25519 BBBB other", NULL };

		o.pubkeys = keys[0];
		assert_int_equal(lab_distro_inputs(&o, "/x/vmbench:10:20", "1.0.128", &b), 0);
		for (size_t i = 0; i < a.n; i++)
			differ += strcmp(a.v[i], b.v[i]) != 0;
		assert_int_equal(differ, 1);
		strv_clear(&b);
		o.pubkeys = "ssh-ed25519 AAAA lab";
	}
	o.packages = "gcc";
	assert_int_equal(lab_distro_inputs(&o, "/x/vmbench:10:20", "1.0.128", &b), 0);
	differ = 0;
	for (size_t i = 0; i < a.n; i++)
		differ += strcmp(a.v[i], b.v[i]) != 0;
	assert_int_equal(differ, 1);
	strv_clear(&b);
	o.packages = NULL;
	o.arch = "aarch64";
	assert_int_equal(lab_distro_inputs(&o, "/x/vmbench:10:21", "1.0.128", &b), 0);
	assert_true(has_input(&b, "arch:arm64"));
	assert_false(has_input(&b, "vmbench:/x/vmbench:10:20"));
	strv_clear(&a);
	strv_clear(&b);
}

static bool have(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

/* A tree of two files into ext4 into qcow2, and back: the label and a
 * file's bytes are there. */
static void tiny_tree_assembled(void **state)
{
	char dir[] = "/tmp/vmbench-distro-XXXXXX", tree[64], path[128], qcow2[96], raw[96], cmd[512], err[1024] = "";
	char *out = NULL;
	FILE *f;

	(void)state;
	if (!have("mke2fs") || !have("qemu-img") || !have("debugfs")) {
		skip(); /* e2fsprogs, qemu-utils: scripts/deps.sh test installs them */
		return;
	}
	assert_non_null(mkdtemp(dir));
	snprintf(tree, sizeof(tree), "%s/tree", dir);
	assert_int_equal(mkdir(tree, 0755), 0);
	snprintf(path, sizeof(path), "%s/etc", tree);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/etc/hostname", tree);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("vmbench-debian\n", f);
	fclose(f);
	snprintf(qcow2, sizeof(qcow2), "%s/root.qcow2", dir);
	if (lab_distro_assemble(tree, "16M", qcow2, err, sizeof(err)) != 0)
		fail_msg("assemble: %s", err);
	/* a new file only: the image is not made over an existing one */
	assert_int_equal(lab_distro_assemble(tree, "16M", qcow2, err, sizeof(err)), -17);
	/* a qcow2, and no raw file left beside it */
	snprintf(raw, sizeof(raw), "%s.raw", qcow2);
	assert_int_not_equal(access(raw, F_OK), 0);
	snprintf(cmd, sizeof(cmd), "qemu-img info --output=json %s", qcow2);
	f = popen(cmd, "r");
	assert_non_null(f);
	{
		char buf[4096];
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);

		buf[n] = '\0';
		assert_non_null(strstr(buf, "\"format\": \"qcow2\""));
		assert_non_null(strstr(buf, "\"virtual-size\": 16777216"));
	}
	pclose(f);
	snprintf(raw, sizeof(raw), "%s/back.raw", dir);
	snprintf(cmd, sizeof(cmd), "qemu-img convert -O raw %s %s && debugfs -R 'cat /etc/hostname' %s 2>/dev/null && "
		 "dumpe2fs -h %s 2>/dev/null | grep '^Filesystem volume name'", qcow2, raw, raw, raw);
	f = popen(cmd, "r");
	assert_non_null(f);
	{
		char buf[4096];
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);

		buf[n] = '\0';
		assert_non_null(strstr(buf, "vmbench-debian\n"));
		assert_non_null(strstr(buf, LAB_DISTRO_ROOT_LABEL));
	}
	pclose(f);
	/* a missing tree is an error with the tool's words, and leaves nothing */
	unlink(qcow2);
	snprintf(path, sizeof(path), "%s/none", dir);
	assert_true(lab_distro_assemble(path, "16M", qcow2, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "mke2fs -d"));
	assert_int_not_equal(access(qcow2, F_OK), 0);
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* The package mirror's plan: Packages and the directory's .debs by name,
 * nothing else (no link); the request line names one of them,
 * percent-decoded, as apt asks for a flat repository's ./NAME, and no
 * path out of the directory. */
static void mirror_plan_and_requests(void **state)
{
	static const char *const names[] = { "hostname_3.23+nmu1_amd64.deb", "bsdutils_1%3a2.38.1-5_amd64.deb",
					     "notes.txt", ".hidden.deb", "with space.deb" };
	static const struct {
		const char *req, *file; /* file: the plan's name it serves; NULL: refused with r */
		bool head;
		int r;
	} cases[] = {
		{ "GET /./Packages HTTP/1.1\r\nHost: x\r\n\r\n", "Packages", false, 0 },
		{ "GET /Packages HTTP/1.0\r\n\r\n", "Packages", false, 0 },
		{ "HEAD /./hostname_3.23+nmu1_amd64.deb HTTP/1.1\r\n\r\n", "hostname_3.23+nmu1_amd64.deb", true, 0 },
		/* apt quotes '%' and '+' of a Filename */
		{ "GET /./bsdutils_1%253a2.38.1-5_amd64.deb HTTP/1.1\r\n\r\n", "bsdutils_1%3a2.38.1-5_amd64.deb", false, 0 },
		{ "GET /./hostname_3.23%2bnmu1_amd64.deb HTTP/1.1\r\n\r\n", "hostname_3.23+nmu1_amd64.deb", false, 0 },
		{ "GET /./Packages.xz HTTP/1.1\r\n\r\n", NULL, false, -ENOENT },
		{ "GET /./InRelease HTTP/1.1\r\n\r\n", NULL, false, -ENOENT },
		{ "GET /notes.txt HTTP/1.1\r\n\r\n", NULL, false, -ENOENT },
		{ "GET /.hidden.deb HTTP/1.1\r\n\r\n", NULL, false, -ENOENT },
		{ "GET /../Packages HTTP/1.1\r\n\r\n", NULL, false, -ENOENT },
		{ "GET /%2e%2e/etc/passwd HTTP/1.1\r\n\r\n", NULL, false, -ENOENT },
		/* out of the directory every way: absolute, encoded, behind ./ */
		{ "GET //etc/shadow HTTP/1.1\r\n\r\n", NULL, false, -ENOENT },
		{ "GET /%2fetc%2fshadow HTTP/1.1\r\n\r\n", NULL, false, -ENOENT },
		{ "GET /./../../etc/shadow HTTP/1.1\r\n\r\n", NULL, false, -ENOENT },
		{ "GET /.%2f%2e%2e%2fPackages HTTP/1.1\r\n\r\n", NULL, false, -ENOENT },
		{ "GET http://h/Packages HTTP/1.1\r\n\r\n", NULL, false, -EPROTO },
		/* a link in the directory, though named as a .deb */
		{ "GET /./evil_1_all.deb HTTP/1.1\r\n\r\n", NULL, false, -ENOENT },
		{ "POST /Packages HTTP/1.1\r\n\r\n", NULL, false, -EPROTO },
		{ "GET Packages HTTP/1.1\r\n\r\n", NULL, false, -EPROTO },
		{ "GET /Packages HTTP/2.0\r\n\r\n", NULL, false, -EPROTO },
		{ "GET /Packages\r\n\r\n", NULL, false, -EPROTO },
		{ "GET /Pack%zzages HTTP/1.1\r\n\r\n", NULL, false, -EPROTO },
		{ "GET /Pack%00ages HTTP/1.1\r\n\r\n", NULL, false, -EPROTO },
		{ "GET /Packages HTTP/1.1", NULL, false, -EPROTO }, /* no end of line */
	};
	char dir[] = "/tmp/vmb-mirror-XXXXXX", path[256], err[512];
	struct lab_mirror_plan p;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		assert_true(fd >= 0);
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/evil_1_all.deb", dir);
	assert_int_equal(symlink("/etc/shadow", path), 0);
	assert_int_equal(lab_mirror_plan(dir, "/w/Packages", &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 3); /* Packages and the two .debs of good names, not the link */
	assert_string_equal(p.v[0].name, "Packages");
	assert_string_equal(p.v[0].path, "/w/Packages");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct lab_mirror_file *f = NULL;
		bool head = false;
		int r = lab_mirror_request(&p, cases[i].req, strlen(cases[i].req), &f, &head);

		if (r != cases[i].r)
			fail_msg("case %zu (%s): %d, expected %d", i, cases[i].req, r, cases[i].r);
		if (r == 0 && (strcmp(f->name, cases[i].file) || head != cases[i].head))
			fail_msg("case %zu: served %s (head %d)", i, f->name, head);
	}
	/* a path of the plan is in the directory */
	assert_true(!strncmp(p.v[1].path, dir, strlen(dir)) && p.v[1].path[strlen(dir)] == '/');
	lab_mirror_plan_clear(&p);
	snprintf(path, sizeof(path), "%s/evil_1_all.deb", dir);
	assert_int_equal(unlink(path), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		assert_int_equal(unlink(path), 0);
	}
	/* a directory without .debs is no mirror */
	assert_int_equal(lab_mirror_plan(dir, "/w/Packages", &p, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no .deb there"));
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(lab_mirror_plan(dir, "/w/Packages", &p, err, sizeof(err)), -ENOENT);
}

static void ssh_banners(void **state)
{
	static const struct {
		const char *in;
		int r;
		const char *version;
	} cases[] = {
		{ "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n", 1, "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3" },
		{ "SSH-2.0-dropbear\n", 1, "SSH-2.0-dropbear" },              /* LF alone, as some servers */
		{ "SSH-1.99-OpenSSH_3.9\r\n", 1, "SSH-1.99-OpenSSH_3.9" },    /* 1.99: 2.0 and 1 both */
		{ "welcome\r\nSSH-2.0-x\r\n", 1, "SSH-2.0-x" },            /* lines before it (RFC 4253 4.2) */
		{ "SSH-2.0-OpenSSH", 0, NULL },                                 /* more to come */
		{ "", 0, NULL },
		{ "SSH-1.5-old\r\n", -71, NULL },                             /* SSH 1 only */
		{ "SSH-2.0-\r\n", -71, NULL },                                /* no software version */
		{ "SSH-2.0-a\x01b\r\n", -71, NULL },                         /* not printable */
		{ "HTTP/1.1 400 Bad Request\r\n\r\n", 0, NULL },            /* not yet refused: lines may lead */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char v[256] = "";
		int r = lab_ssh_banner(cases[i].in, strlen(cases[i].in), v, sizeof(v));

		if (r != cases[i].r)
			fail_msg("'%s': %d, want %d", cases[i].in, r, cases[i].r);
		if (r == 1)
			assert_string_equal(v, cases[i].version);
	}
	{
		/* a line over 255 bytes, and 8 KiB of lines with no banner: not SSH */
		char big[9000];

		memset(big, 'a', 300);
		assert_int_equal(lab_ssh_banner(big, 300, NULL, 0), -71);
		for (size_t i = 0; i < sizeof(big); i++)
			big[i] = i % 100 == 99 ? '\n' : 'b';
		assert_int_equal(lab_ssh_banner(big, sizeof(big), NULL, 0), -71);
	}
}

static void systemd_analyze_parsed(void **state)
{
	static const struct {
		const char *in;
		int r;
		double part[SD_NPARTS], total; /* -1: NaN */
	} cases[] = {
		{ "Startup finished in 1.851s (kernel) + 5.373s (initrd) + 21.468s (userspace) = 28.693s \n"
		  "graphical.target reached after 21.421s in userspace.\n",
		  0, { -1, -1, 1.851, 5.373, 21.468 }, 28.692 },
		{ "Startup finished in 3.100s (firmware) + 402ms (loader) + 1min 2.004s (kernel) + 1.200s (userspace) = "
		  "1min 6.706s\n", 0, { 3.1, 0.402, 62.004, -1, 1.2 }, 66.706 },
		{ "Startup finished in 123ms (kernel) + 2.5s (userspace) = 2.623s\n", 0, { -1, -1, 0.123, -1, 2.5 }, 2.623 },
		{ "Bootup is not yet finished (org.freedesktop.systemd1.Manager.FinishTimestampMonotonic=0).\n", -2, { 0 }, 0 },
		{ "", -2, { 0 }, 0 },
		{ "Startup finished in 1s (kernel) + 2s (userspace) = 9s\n", -22, { 0 }, 0 },   /* does not add up */
		{ "Startup finished in 1s (kernel) + 1s (kernel) = 2s\n", -22, { 0 }, 0 },      /* a part twice */
		{ "Startup finished in 1s (bios) = 1s\n", -22, { 0 }, 0 },                      /* no such part */
		{ "Startup finished in 1x (kernel) = 1s\n", -22, { 0 }, 0 },                    /* no such unit */
		{ "Startup finished in (kernel) = 0s\n", -22, { 0 }, 0 },
		{ "Startup finished in 1s (kernel) + 2s (userspace)\n", -22, { 0 }, 0 },        /* no total */
		{ "Startup finished in 1e308s (kernel) = 1e308s\n", -22, { 0 }, 0 },            /* no exponent */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sd_startup st;
		int r = sd_parse_startup(cases[i].in, &st);

		if (r != cases[i].r)
			fail_msg("case %zu: %d, want %d", i, r, cases[i].r);
		if (r)
			continue;
		for (size_t k = 0; k < SD_NPARTS; k++)
			if (cases[i].part[k] < 0)
				assert_true(isnan(st.part[k]));
			else
				assert_close(st.part[k], cases[i].part[k], 1e-9);
		assert_close(st.total, cases[i].total, 2e-3);
	}
}

static void systemd_blame_parsed(void **state)
{
	struct sd_blame b[3];
	size_t n = 0;

	(void)state;
	assert_int_equal(sd_parse_blame("10.271s systemd-networkd-wait-online.service\n 4.501s ssh.service\n"
					"1min 2.3s apt-daily.service\n   51us dev-hugepages.mount\n",
					b, 3, &n), 0);
	assert_int_equal(n, 3); /* the first max */
	assert_string_equal(b[0].unit, "systemd-networkd-wait-online.service");
	assert_close(b[0].sec, 10.271, 1e-9);
	assert_string_equal(b[1].unit, "ssh.service");
	assert_close(b[2].sec, 62.3, 1e-9);
	assert_int_equal(sd_parse_blame("", b, 3, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(sd_parse_blame("ssh.service\n", b, 3, &n), -22);         /* no span */
	assert_int_equal(sd_parse_blame("1.0s\n", b, 3, &n), -22);                /* no unit */
	assert_int_equal(sd_parse_blame("1.0q ssh.service\n", b, 3, &n), -22);    /* no such unit of time */
	assert_int_equal(sd_parse_blame("1.0s a\x7f.service\n", b, 3, &n), -22); /* not printable */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(package_lists),
		cmocka_unit_test(files_written),
		cmocka_unit_test(cache_key),
		cmocka_unit_test(tiny_tree_assembled),
		cmocka_unit_test(mirror_plan_and_requests),
		cmocka_unit_test(ssh_banners),
		cmocka_unit_test(systemd_analyze_parsed),
		cmocka_unit_test(systemd_blame_parsed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
