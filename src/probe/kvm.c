/* Can this machine run KVM guests? The CPU flags (vmx/svm) are one view,
 * and a wrong one inside some guests: a nested hypervisor may hide the flag
 * yet give a working /dev/kvm. So /dev/kvm is asked directly, once and
 * cheaply: open it, KVM_GET_API_VERSION, KVM_CREATE_VM, close. Below another
 * root nothing is probed live: a ".kvm" file there stands in, if any. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/kvm.h>

#include "internal.h"
#include "../core/util.h"
#include "../core/banned.h"

static json_t *jbool_or_null(int v)
{
	return v < 0 ? json_null() : json_boolean(v);
}

static json_t *kvm_json(const char *probed, int present, int opens, long api, int creates, const char *error)
{
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}",
			 "probed", probed,
			 "device", jbool_or_null(present),
			 "opens", jbool_or_null(opens),
			 "api_version", api >= 0 ? json_integer(api) : json_null(),
			 "creates_vm", jbool_or_null(creates),
			 "error", probe_jstr(error));
}

/* A fixture's ".kvm": present=1, opens=1, api_version=12, creates_vm=1;
 * a key that is missing or not 0/1 is unknown (-1). */
static int kv_bool(const char *s, size_t n, const char *key)
{
	char v[8];

	if (probe_kv(s, n, key, v, sizeof(v)) < 0)
		return -1;
	return !strcmp(v, "1") ? 1 : !strcmp(v, "0") ? 0 : -1;
}

static json_t *kvm_recorded(const char *root)
{
	char *s, api[16], error[128];
	size_t n;
	int64_t v = -1;
	json_t *o;

	if (probe_read(root, "/.kvm", PROBE_MAX_TEXT, &s, &n) < 0)
		return kvm_json("not probed", -1, -1, -1, -1, NULL);
	if (probe_kv(s, n, "api_version", api, sizeof(api)) < 0 || parse_i64(api, 0, 1 << 20, &v) < 0)
		v = -1;
	/* error: the strerror text the live probe would have recorded */
	if (probe_kv(s, n, "error", error, sizeof(error)) < 0)
		error[0] = '\0';
	o = kvm_json("recorded", kv_bool(s, n, "present"), kv_bool(s, n, "opens"), (long)v,
		     kv_bool(s, n, "creates_vm"), *error ? error : NULL);
	free(s);
	return o;
}

json_t *probe_kvm(const char *root)
{
	struct stat st;
	int fd, vm, api;

	if (strcmp(root, "/"))
		return kvm_recorded(root);
	if (stat("/dev/kvm", &st) < 0)
		return kvm_json("live", 0, -1, -1, -1, errno == ENOENT ? NULL : strerror(errno));
	if (!S_ISCHR(st.st_mode))
		return kvm_json("live", 0, -1, -1, -1, "/dev/kvm is not a character device");
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return kvm_json("live", 1, 0, -1, -1, strerror(errno));
	api = ioctl(fd, KVM_GET_API_VERSION, 0);
	if (api < 0) {
		json_t *o = kvm_json("live", 1, 1, -1, -1, strerror(errno));

		close(fd);
		return o;
	}
	vm = ioctl(fd, KVM_CREATE_VM, 0);
	if (vm < 0) {
		json_t *o = kvm_json("live", 1, 1, api, 0, strerror(errno));

		close(fd);
		return o;
	}
	close(vm);
	close(fd);
	return kvm_json("live", 1, 1, api, 1, NULL);
}

bool probe_kvm_describe(const json_t *k, char *buf, size_t len)
{
	const char *probed = json_string_value(json_object_get(k, "probed"));
	const char *err = json_string_value(json_object_get(k, "error"));
	char api[32] = "";

	if (json_is_integer(json_object_get(k, "api_version")))
		snprintf(api, sizeof(api), " (API %lld)", (long long)json_integer_value(json_object_get(k, "api_version")));
	if (!probed || !strcmp(probed, "not probed"))
		snprintf(buf, len, "not probed (a recorded tree without a .kvm file)");
	else if (!json_is_true(json_object_get(k, "device")))
		snprintf(buf, len, "%s%s%s", json_is_false(json_object_get(k, "device")) ? "absent" : "unknown",
			 err ? ": " : "", err ? err : "");
	else if (!json_is_true(json_object_get(k, "opens")))
		snprintf(buf, len, "present, cannot be opened%s%s", err ? ": " : "", err ? err : "");
	else if (!json_is_true(json_object_get(k, "creates_vm")))
		snprintf(buf, len, "present, opens%s, cannot create a VM%s%s", api, err ? ": " : "", err ? err : "");
	else
		snprintf(buf, len, "present, opens, creates VMs%s", api);
	if (probed && !strcmp(probed, "recorded"))
		snprintf(buf + strlen(buf), len - strlen(buf), " [recorded]");
	return json_is_true(json_object_get(k, "creates_vm"));
}

bool probe_kvm_usable(const char *root, char *why, size_t len)
{
	json_t *k = probe_kvm(root);
	bool usable;

	if (!k) {
		snprintf(why, len, "unknown (out of memory probing it)");
		return false;
	}
	usable = probe_kvm_describe(k, why, len);
	json_decref(k);
	return usable;
}
