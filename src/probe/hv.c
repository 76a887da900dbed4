/* Which hypervisor runs this machine: the CPUID signature cross-checked with
 * DMI, /sys/hypervisor, the device tree and the CPU model. A name is always
 * the product's name ("Hyper-V", never its raw signature "Microsoft Hv"); the
 * raw signature has a field of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "internal.h"
#include "../core/util.h"
#include "../core/banned.h"

/* Products whose paravirtual interface others present: KVM's is presented by
 * VirtualBox, Hyper-V's by KVM, Xen and VirtualBox. */
#define HV_KVM "KVM"
#define HV_HYPERV "Hyper-V"
#define HV_QEMU "QEMU"
#define HV_TCG "QEMU TCG"

struct sig_row {
	const char *sig;   /* CPUID leaf 0x40000000, EBX ECX EDX, up to the first NUL */
	const char *name;  /* the product */
	const char *iface; /* the interface, when it is another product's */
};

static const struct sig_row sig_rows[] = {
	{ "KVMKVMKVM", HV_KVM, NULL },
	/* KVM's own Hyper-V emulation, when QEMU passes its vendor id through */
	{ "Linux KVM Hv", HV_KVM, HV_HYPERV },
	{ "Microsoft Hv", HV_HYPERV, NULL },
	{ "VMwareVMware", "VMware", NULL },
	{ "VBoxVBoxVBox", "VirtualBox", NULL },
	{ "XenVMMXenVMM", "Xen", NULL },
	{ "TCGTCGTCGTCG", HV_TCG, NULL },
	{ "bhyve bhyve ", "bhyve", NULL },
	{ "ACRNACRNACRN", "ACRN", NULL },
	{ " lrpepyh  vr", "Parallels", NULL }, /* "prl hyperv  " byte-swapped, as older Parallels said */
	{ "prl hyperv  ", "Parallels", NULL },
	{ "QNXQVMBSQG", "QNX", NULL },
	{ "EVMMEVMMEVMM", "Intel EVMM", NULL },
	{ "SRESRESRESRE", "SRE", NULL },
	{ "Jailhouse", "Jailhouse", NULL },
};

static const struct sig_row *sig_find(const char *sig)
{
	for (size_t i = 0; sig && i < ARRAY_SIZE(sig_rows); i++)
		if (!strcmp(sig, sig_rows[i].sig))
			return &sig_rows[i];
	return NULL;
}

const char *probe_hv_from_signature(const char *sig)
{
	const struct sig_row *r = sig_find(sig);

	return r ? r->name : NULL;
}

/* DMI: each needle that is not NULL must be in its field; first row wins. */
static const struct {
	const char *vendor, *product, *name;
} dmi_rows[] = {
	{ NULL, "VirtualBox", "VirtualBox" },
	{ "innotek", NULL, "VirtualBox" },
	{ "VMware", NULL, "VMware" },
	{ NULL, "VMware", "VMware" },
	{ "Parallels", NULL, "Parallels" },
	{ NULL, "Parallels", "Parallels" },
	{ NULL, "BHYVE", "bhyve" },
	{ "Xen", NULL, "Xen" },
	{ NULL, "HVM domU", "Xen" },
	{ "Microsoft Corporation", "Virtual Machine", HV_HYPERV },
	/* clouds whose hypervisor is KVM */
	{ "Amazon EC2", NULL, HV_KVM },
	{ NULL, "Google Compute Engine", HV_KVM },
	/* QEMU's arm and loongarch virt machines say in SMBIOS whether KVM runs them */
	{ NULL, "KVM Virtual Machine", HV_KVM },
	{ NULL, "QEMU Virtual Machine", HV_TCG },
	{ "QEMU", NULL, HV_QEMU },
	/* older QEMU's SeaBIOS named itself after Bochs, whose BIOS it took over */
	{ "Bochs", NULL, HV_QEMU },
	{ NULL, "Bochs", HV_QEMU },
	{ "KVM", NULL, HV_KVM },
	{ NULL, "KVM", HV_KVM },
};

const char *probe_hv_from_dmi(const char *vendor, const char *product)
{
	for (size_t i = 0; i < ARRAY_SIZE(dmi_rows); i++) {
		bool v = !dmi_rows[i].vendor || (vendor && strstr(vendor, dmi_rows[i].vendor));
		bool p = !dmi_rows[i].product || (product && strstr(product, dmi_rows[i].product));

		if (v && p)
			return dmi_rows[i].name;
	}
	return NULL;
}

/* Names that say "QEMU or a KVM built on it" rather than another product:
 * DMI naming one of them does not contradict a KVM or Hyper-V signature. */
static bool qemu_family(const char *name)
{
	return !strcmp(name, HV_QEMU) || !strcmp(name, HV_TCG) || !strcmp(name, HV_KVM);
}

static void decided(struct probe_hv_verdict *v, const char *source)
{
	size_t n = 0;

	while (v->decided_by[n])
		n++;
	if (n + 1 < ARRAY_SIZE(v->decided_by))
		v->decided_by[n] = source;
}

static bool str_set(const char *s)
{
	return s && *s;
}

void probe_hv_decide(const struct probe_hv_evidence *e, struct probe_hv_verdict *v)
{
	const struct sig_row *sig = e->hv_bit && str_set(e->sig) ? sig_find(e->sig) : NULL;
	const char *dmi = probe_hv_from_dmi(e->dmi_vendor, e->dmi_product);
	bool kvm_behind = str_set(e->sig2) && !strcmp(e->sig2, "KVMKVMKVM");

	memset(v, 0, sizeof(*v));
	if (sig) {
		v->name = sig->name;
		v->interface = sig->iface;
		decided(v, "cpuid");
		if ((!strcmp(sig->name, HV_KVM) || !strcmp(sig->name, HV_HYPERV)) && !sig->iface) {
			if (dmi && !qemu_family(dmi) && strcmp(dmi, sig->name)) {
				/* VirtualBox, Xen, ... presenting KVM's or Hyper-V's interface */
				v->name = dmi;
				v->interface = sig->name;
				decided(v, "dmi");
			} else if (!strcmp(sig->name, HV_HYPERV) && (kvm_behind || (dmi && qemu_family(dmi)))) {
				/* KVM presenting Hyper-V's interface (hv-* enlightenments need KVM) */
				v->name = HV_KVM;
				v->interface = HV_HYPERV;
				decided(v, kvm_behind ? "cpuid_0x40000100" : "dmi");
			}
		}
		return;
	}
	if (dmi) {
		v->name = dmi;
		decided(v, "dmi");
		if (!strcmp(dmi, HV_QEMU)) {
			/* No signature: QEMU before 4.0 under TCG gave none, while KVM
			 * always does (unless started with kvm=off, which hides it on
			 * purpose). Its default CPU model names QEMU. */
			bool model = e->cpu_model && str_has_prefix(e->cpu_model, "QEMU Virtual CPU");
			bool bit_alone = e->hv_bit && !str_set(e->sig);

			if (model || bit_alone) {
				v->name = HV_TCG;
				if (bit_alone)
					decided(v, "cpuid_hypervisor_bit");
				if (model)
					decided(v, "cpu_model");
			}
		}
		return;
	}
	if (str_set(e->sys_hypervisor)) {
		v->name = !strcmp(e->sys_hypervisor, "xen") ? "Xen" : e->sys_hypervisor;
		decided(v, "sys_hypervisor");
		return;
	}
	if (str_set(e->dt_hypervisor)) {
		v->name = strstr(e->dt_hypervisor, "xen") ? "Xen" : e->dt_hypervisor;
		decided(v, "device_tree");
		return;
	}
	if (e->dt_machine && !strcmp(e->dt_machine, "linux,dummy-virt")) {
		/* QEMU's arm virt machine booted without firmware: no DMI, a device
		 * tree. Its emulated 'max' CPU has implementer 0 (software) part 0x051. */
		v->name = e->midr_qemu ? HV_TCG : HV_QEMU;
		decided(v, "device_tree");
		if (e->midr_qemu)
			decided(v, "midr");
		return;
	}
	if (e->hv_bit) {
		v->name = "unknown";
		decided(v, "cpuid_hypervisor_bit");
		return;
	}
	v->name = "none";
}

struct cpuid_info {
	bool hv_bit; /* leaf 1 ECX bit 31 */
	char sig[13], sig2[13];
};

#if defined(__x86_64__) || defined(__i386__)
static void cpuid_sig(unsigned leaf, char out[13])
{
	unsigned a, b, c, d;

	__cpuid(leaf, a, b, c, d);
	memcpy(out, &b, 4);
	memcpy(out + 4, &c, 4);
	memcpy(out + 8, &d, 4);
	out[12] = '\0';
}
#endif

static void read_cpuid(const char *root, struct cpuid_info *ci)
{
	memset(ci, 0, sizeof(*ci));
	if (strcmp(root, "/")) {
		char *s, bit[8] = "";
		size_t n;

		if (probe_read(root, "/.cpuid", PROBE_MAX_TEXT, &s, &n) < 0)
			return;
		(void)probe_kv(s, n, "hypervisor_bit", bit, sizeof(bit));
		ci->hv_bit = !strcmp(bit, "1");
		(void)probe_kv(s, n, "signature", ci->sig, sizeof(ci->sig));
		(void)probe_kv(s, n, "signature_0x40000100", ci->sig2, sizeof(ci->sig2));
		free(s);
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned a, b, c, d;

		__cpuid(1, a, b, c, d);
		ci->hv_bit = (c >> 31) & 1;
		if (ci->hv_bit) {
			cpuid_sig(0x40000000, ci->sig);
			/* where KVM moves its leaves when it presents Hyper-V's at
			 * 0x40000000; Linux looks there too (kvm_cpuid_base) */
			cpuid_sig(0x40000100, ci->sig2);
		}
	}
#endif
}

/* "CPU implementer : 0x00" and "CPU part : 0x051": QEMU's TCG 'max' arm CPU */
static bool arm_midr_is_qemu(const struct probe_cpuinfo *ci)
{
	return ci->have_midr && ci->implementer == 0 && ci->part == 0x051;
}

json_t *probe_hypervisor(const char *root, const struct probe_cpuinfo *ci)
{
	struct cpuid_info cpuid;
	char vendor[256] = "", product[256] = "", systype[64] = "", dt[128] = "", machine[128] = "";
	bool flag = probe_has_flag(ci, "hypervisor");
	struct probe_hv_verdict v;
	json_t *sources = json_array(), *decided_by = json_array();
	bool bad = !sources || !decided_by;

	read_cpuid(root, &cpuid);
	(void)probe_read_line(root, "/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));
	(void)probe_read_line(root, "/sys/class/dmi/id/product_name", product, sizeof(product));
	(void)probe_read_line(root, "/sys/hypervisor/type", systype, sizeof(systype));
	(void)probe_read_line(root, "/proc/device-tree/hypervisor/compatible", dt, sizeof(dt));
	(void)probe_read_line(root, "/proc/device-tree/compatible", machine, sizeof(machine));

	probe_hv_decide(&(struct probe_hv_evidence){
		.hv_bit = cpuid.hv_bit || flag, .sig = cpuid.hv_bit ? cpuid.sig : "", .sig2 = cpuid.sig2,
		.dmi_vendor = vendor, .dmi_product = product, .sys_hypervisor = systype,
		.dt_hypervisor = dt, .dt_machine = machine, .cpu_model = ci->model,
		.midr_qemu = arm_midr_is_qemu(ci),
	}, &v);

	/* every source that said something, whether or not it decided */
	if (cpuid.hv_bit && probe_hv_from_signature(cpuid.sig))
		bad |= json_array_append_new(sources, json_string("cpuid")) < 0;
	if (probe_hv_from_dmi(vendor, product))
		bad |= json_array_append_new(sources, json_string("dmi")) < 0;
	if (*systype)
		bad |= json_array_append_new(sources, json_string("sys_hypervisor")) < 0;
	if (flag)
		bad |= json_array_append_new(sources, json_string("cpuinfo_flag")) < 0;
	for (size_t i = 0; v.decided_by[i]; i++) {
		bool listed = false;
		size_t k;
		json_t *x;

		bad |= json_array_append_new(decided_by, json_string(v.decided_by[i])) < 0;
		/* what decided also said something (the device tree, the MIDR) */
		json_array_foreach(sources, k, x)
			listed |= !strcmp(json_string_value(x), v.decided_by[i]);
		if (!listed && strcmp(v.decided_by[i], "cpuid_hypervisor_bit") && strcmp(v.decided_by[i], "cpu_model"))
			bad |= json_array_append_new(sources, json_string(v.decided_by[i])) < 0;
	}

	if (bad) { /* out of memory: no verdict rather than one missing its sources */
		json_decref(sources);
		json_decref(decided_by);
		return NULL;
	}
	return json_pack("{s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:b}",
			 "name", probe_jstr(v.name),
			 "cpuid_signature", probe_jstr(cpuid.hv_bit && *cpuid.sig ? cpuid.sig : NULL),
			 "interface", probe_jstr(v.interface),
			 "cpuid_hypervisor_bit", cpuid.hv_bit || flag,
			 "dmi_vendor", probe_jstr(*vendor ? vendor : NULL),
			 "dmi_product", probe_jstr(*product ? product : NULL),
			 "sys_hypervisor", probe_jstr(*systype ? systype : NULL),
			 "sources", sources,
			 "decided_by", decided_by,
			 /* The CPU-flag view: a guest that sees vmx/svm may run its own
			  * guests. Whether /dev/kvm really works is "kvm" beside it. */
			 "nested_virt_available", strcmp(v.name, "none") &&
				 (probe_has_flag(ci, "vmx") || probe_has_flag(ci, "svm")));
}
