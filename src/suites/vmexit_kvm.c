/* vmexit.kvm: a minimal virtual machine made through the KVM API directly
 * (no firmware, no QEMU): 64 KiB of RAM, one vCPU in 32-bit protected mode
 * with flat segments, and a guest program from vmexit_asm.c that loops on
 * one exiting instruction per kind between two rdtsc. Every kind is timed
 * the same way, from the guest's side, so that exits vmbench never sees (the
 * ones the kernel handles) and exits it handles itself compare fairly; the
 * exits are counted where they land: vmbench's run loop for user-space
 * exits, the eventfd's counter for the ioeventfd, the vCPU's binary stats
 * for cpuid and the hypercall. kvm-unit-tests' x86/vmexit.c measures the
 * same things with a guest kernel of its own. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vmexit.h"
#include "../core/clock.h"
#include "../core/str.h"
#include "../core/banned.h"

#if defined(__x86_64__)

#include <cpuid.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <linux/kvm.h>

struct vmx_vm {
	int kvm, vm, vcpu, efd, stats;
	uint8_t *mem;
	struct kvm_run *run;
	size_t run_size;
	uint64_t tsc_khz;
	bool amd;
	/* a watchdog: its signal interrupts KVM_RUN, so a guest that makes no
	 * progress is noticed instead of hanging vmbench */
	timer_t timer;
	bool timer_armed, sig_saved;
	struct sigaction old_sa;
	/* binary stats: the offset of the hypercall counter, or -1 */
	long off_hypercalls;
};

#ifndef sigev_notify_thread_id /* glibc before 2.41 names it only in its internals */
#define sigev_notify_thread_id _sigev_un._tid
#endif
#define VMX_WATCHDOG_SIG (SIGRTMIN + 2)
#define VMX_WATCHDOG_NS 100000000L /* how often KVM_RUN is interrupted */
#define VMX_STUCK_S 1.0            /* a pass this much longer than planned is stuck */

static void watchdog_tick(int sig)
{
	(void)sig;
}

static void vm_close(struct vmx_vm *v)
{
	if (v->timer_armed)
		(void)timer_delete(v->timer);
	if (v->sig_saved)
		(void)sigaction(VMX_WATCHDOG_SIG, &v->old_sa, NULL);
	if (v->run)
		(void)munmap(v->run, v->run_size);
	if (v->mem)
		(void)munmap(v->mem, VMX_MEM_SIZE);
	if (v->stats >= 0)
		(void)close(v->stats);
	if (v->efd >= 0)
		(void)close(v->efd);
	if (v->vcpu >= 0)
		(void)close(v->vcpu);
	if (v->vm >= 0)
		(void)close(v->vm);
	if (v->kvm >= 0)
		(void)close(v->kvm);
}

static bool cpu_is_amd(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(0, &a, &b, &c, &d))
		return false;
	/* "AuthenticAMD" or Hygon's "HygonGenuine": both take vmmcall */
	return (b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163) ||
	       (b == 0x6f677948 && d == 0x6e65476e && c == 0x656e6975);
}

/* The offset of "hypercalls" in the vCPU's binary stats
 * (KVM_GET_STATS_FD, Linux 5.14): a header, descriptors with names, data. */
static void stats_find(struct vmx_vm *v)
{
	struct kvm_stats_header h;
	size_t dsz;
	char *descs;

	v->off_hypercalls = -1;
	if (pread(v->stats, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || h.num_desc > 4096 || h.name_size > 4096)
		return;
	dsz = sizeof(struct kvm_stats_desc) + h.name_size;
	descs = malloc(dsz * h.num_desc);
	if (!descs)
		return;
	if (pread(v->stats, descs, dsz * h.num_desc, h.desc_offset) == (ssize_t)(dsz * h.num_desc)) {
		for (uint32_t i = 0; i < h.num_desc; i++) {
			struct kvm_stats_desc *d = (struct kvm_stats_desc *)(descs + i * dsz);
			long off = (long)h.data_offset + (long)d->offset;

			d->name[h.name_size - 1] = 0;
			if (d->size != 1)
				continue;
			if (!strcmp(d->name, "hypercalls"))
				v->off_hypercalls = off;
		}
	}
	free(descs);
}

static uint64_t stat_read(const struct vmx_vm *v, long off)
{
	uint64_t x = 0;

	if (off < 0 || pread(v->stats, &x, sizeof(x), off) != (ssize_t)sizeof(x))
		return 0;
	return x;
}

/* A flat 4 GiB segment of the given type, as the loader would leave it. */
static void flat_seg(struct kvm_segment *s, uint16_t sel, uint8_t type)
{
	memset(s, 0, sizeof(*s));
	s->base = 0;
	s->limit = 0xffffffff;
	s->selector = sel;
	s->type = type;
	s->present = 1;
	s->db = 1;
	s->s = 1;
	s->g = 1;
}

static int vm_open(struct vmb_ctx *ctx, struct vmx_vm *v)
{
	struct kvm_userspace_memory_region region;
	struct kvm_ioeventfd ioev;
	struct kvm_sregs sregs;
	int r, api, mmap_size;

	v->kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (v->kvm < 0) {
		if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
			return vmb_skip(ctx, "no /dev/kvm on this machine (%s): no KVM virtual machine can be made",
					strerror(errno));
		if (errno == EACCES || errno == EPERM)
			return vmb_skip(ctx, "no permission to open /dev/kvm (%s): run as root or in the kvm group",
					strerror(errno));
		return vmb_fail(ctx, -errno, "open /dev/kvm");
	}
	api = ioctl(v->kvm, KVM_GET_API_VERSION, 0);
	if (api < 0)
		return vmb_fail(ctx, -errno, "KVM_GET_API_VERSION");
	if (api != KVM_API_VERSION)
		return vmb_skip(ctx, "/dev/kvm speaks KVM API %d, vmbench knows %d", api, KVM_API_VERSION);
	if (ioctl(v->kvm, KVM_CHECK_EXTENSION, KVM_CAP_IOEVENTFD) <= 0)
		return vmb_skip(ctx, "this KVM lacks KVM_CAP_IOEVENTFD");
	v->vm = ioctl(v->kvm, KVM_CREATE_VM, 0);
	if (v->vm < 0)
		return vmb_fail(ctx, -errno, "KVM_CREATE_VM");

	v->mem = mmap(NULL, VMX_MEM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (v->mem == MAP_FAILED) {
		v->mem = NULL;
		return vmb_fail(ctx, -errno, "mmap of %u bytes of guest memory", VMX_MEM_SIZE);
	}
	region = (struct kvm_userspace_memory_region){
		.slot = 0, .guest_phys_addr = 0, .memory_size = VMX_MEM_SIZE, .userspace_addr = (uintptr_t)v->mem,
	};
	if (ioctl(v->vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		return vmb_fail(ctx, -errno, "KVM_SET_USER_MEMORY_REGION (%u bytes at 0)", VMX_MEM_SIZE);

	v->vcpu = ioctl(v->vm, KVM_CREATE_VCPU, 0);
	if (v->vcpu < 0)
		return vmb_fail(ctx, -errno, "KVM_CREATE_VCPU");
	mmap_size = ioctl(v->kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (mmap_size < (int)sizeof(struct kvm_run))
		return vmb_fail(ctx, mmap_size < 0 ? -errno : -EPROTO, "KVM_GET_VCPU_MMAP_SIZE");
	v->run = mmap(NULL, (size_t)mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, v->vcpu, 0);
	if (v->run == MAP_FAILED) {
		v->run = NULL;
		return vmb_fail(ctx, -errno, "mmap of the vCPU's kvm_run (%d bytes)", mmap_size);
	}
	v->run_size = (size_t)mmap_size;

	/* 32-bit protected mode straight away: the segment caches are set
	 * directly, so no GDT is needed, and no paging. */
	if (ioctl(v->vcpu, KVM_GET_SREGS, &sregs) < 0)
		return vmb_fail(ctx, -errno, "KVM_GET_SREGS");
	flat_seg(&sregs.cs, 0x08, 0x0b);
	flat_seg(&sregs.ds, 0x10, 0x03);
	sregs.es = sregs.fs = sregs.gs = sregs.ss = sregs.ds;
	sregs.cr0 |= 1; /* PE */
	if (ioctl(v->vcpu, KVM_SET_SREGS, &sregs) < 0)
		return vmb_fail(ctx, -errno, "KVM_SET_SREGS (flat 32-bit protected mode)");

	/* leaf 0 answers ebx = 1: the cpuid program adds it up, so the guest
	 * counts the answers that came from KVM and not from the processor */
	{
		struct {
			struct kvm_cpuid2 h;
			struct kvm_cpuid_entry2 e[1];
		} cpuid;

		memset(&cpuid, 0, sizeof(cpuid));
		cpuid.h.nent = 1;
		cpuid.e[0].function = 0;
		cpuid.e[0].ebx = 1;
		if (ioctl(v->vcpu, KVM_SET_CPUID2, &cpuid) < 0)
			return vmb_fail(ctx, -errno, "KVM_SET_CPUID2 (one leaf)");
	}

	r = ioctl(v->vcpu, KVM_GET_TSC_KHZ, 0);
	if (r <= 0)
		return vmb_fail(ctx, r < 0 ? -errno : -EPROTO, "KVM_GET_TSC_KHZ (the guest's TSC rate)");
	v->tsc_khz = (uint64_t)r;

	v->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (v->efd < 0)
		return vmb_fail(ctx, -errno, "eventfd");
	ioev = (struct kvm_ioeventfd){ .addr = VMX_PORT_EVENTFD, .len = 1, .fd = v->efd,
				       .flags = KVM_IOEVENTFD_FLAG_PIO };
	if (ioctl(v->vm, KVM_IOEVENTFD, &ioev) < 0)
		return vmb_fail(ctx, -errno, "KVM_IOEVENTFD on port 0x%x", VMX_PORT_EVENTFD);

	v->stats = -1;
	v->off_hypercalls = -1;
	if (ioctl(v->kvm, KVM_CHECK_EXTENSION, KVM_CAP_BINARY_STATS_FD) > 0) {
		v->stats = ioctl(v->vcpu, KVM_GET_STATS_FD, 0);
		if (v->stats < 0)
			return vmb_fail(ctx, -errno, "KVM_GET_STATS_FD of the vCPU");
		stats_find(v);
	}
	{
		struct sigaction sa = { .sa_handler = watchdog_tick };
		struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = VMX_WATCHDOG_SIG };
		struct itimerspec its = { .it_interval = { 0, VMX_WATCHDOG_NS }, .it_value = { 0, VMX_WATCHDOG_NS } };

		(void)sigemptyset(&sa.sa_mask);
		if (sigaction(VMX_WATCHDOG_SIG, &sa, &v->old_sa) < 0)
			return vmb_fail(ctx, -errno, "sigaction for the run loop's watchdog");
		v->sig_saved = true;
		sev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
		if (timer_create(CLOCK_MONOTONIC, &sev, &v->timer) < 0)
			return vmb_fail(ctx, -errno, "timer_create for the run loop's watchdog");
		v->timer_armed = true;
		if (timer_settime(v->timer, 0, &its, NULL) < 0)
			return vmb_fail(ctx, -errno, "timer_settime for the run loop's watchdog");
	}
	v->amd = cpu_is_amd();
	return 0;
}

static const char *exit_name(uint32_t reason)
{
	static const char *const names[] = {
		[KVM_EXIT_UNKNOWN] = "KVM_EXIT_UNKNOWN", [KVM_EXIT_EXCEPTION] = "KVM_EXIT_EXCEPTION",
		[KVM_EXIT_IO] = "KVM_EXIT_IO", [KVM_EXIT_HYPERCALL] = "KVM_EXIT_HYPERCALL",
		[KVM_EXIT_DEBUG] = "KVM_EXIT_DEBUG", [KVM_EXIT_HLT] = "KVM_EXIT_HLT",
		[KVM_EXIT_MMIO] = "KVM_EXIT_MMIO", [KVM_EXIT_SHUTDOWN] = "KVM_EXIT_SHUTDOWN",
		[KVM_EXIT_FAIL_ENTRY] = "KVM_EXIT_FAIL_ENTRY", [KVM_EXIT_INTR] = "KVM_EXIT_INTR",
		[KVM_EXIT_INTERNAL_ERROR] = "KVM_EXIT_INTERNAL_ERROR",
	};

	return reason < sizeof(names) / sizeof(names[0]) && names[reason] ? names[reason] : "another exit";
}

struct vmx_pass {
	uint64_t cycles;    /* guest TSC cycles between the two rdtsc */
	uint64_t user_exits;/* exits vmbench handled (not counting the report) */
	uint64_t host_ns;   /* wall time of the pass on the host */
	uint64_t guest_count; /* esp at the report: the cpuid program's count */
};

/* One pass of the loaded program: n iterations, then the report exit. */
static int vm_pass(struct vmb_ctx *ctx, struct vmx_vm *v, enum vmx_kind kind, uint32_t n, double planned_s,
		   struct vmx_pass *out)
{
	struct kvm_regs regs;
	uint64_t t0, stuck;

	memset(&regs, 0, sizeof(regs));
	regs.rip = VMX_CODE_GPA;
	regs.rflags = 2;
	regs.rcx = n;
	if (ioctl(v->vcpu, KVM_SET_REGS, &regs) < 0)
		return vmb_fail(ctx, -errno, "KVM_SET_REGS");
	memset(out, 0, sizeof(*out));
	t0 = clock_ns();
	stuck = t0 + (uint64_t)((planned_s * 3 + VMX_STUCK_S) * NSEC_PER_SEC);
	for (;;) {
		struct kvm_run *run = v->run;

		if (ioctl(v->vcpu, KVM_RUN, 0) < 0) {
			if (errno == EINTR || errno == EAGAIN) {
				if (vmb_stop_requested())
					return -EINTR;
				if (clock_ns() > stuck) {
					if (ioctl(v->vcpu, KVM_GET_REGS, &regs) < 0)
						return vmb_fail(ctx, -errno, "KVM_GET_REGS");
					(void)snprintf(ctx->reason, sizeof(ctx->reason),
						       "the guest made no progress for %.0f s (rip 0x%llx, %llu of %u "
						       "iterations left): this KVM does not complete the %s",
						       (double)(clock_ns() - t0) / NSEC_PER_SEC, (unsigned long long)regs.rip,
						       (unsigned long long)regs.rbp, n, vmx_kinds[kind].what);
					return -ETIMEDOUT;
				}
				continue;
			}
			return vmb_fail(ctx, -errno, "KVM_RUN (%s)", vmx_kinds[kind].what);
		}
		switch (run->exit_reason) {
		case KVM_EXIT_IO:
			if (run->io.direction == KVM_EXIT_IO_OUT && run->io.port == VMX_PORT_DONE)
				goto done;
			if (kind == VMX_IO && run->io.direction == KVM_EXIT_IO_OUT && run->io.port == VMX_PORT_EXIT) {
				out->user_exits++;
				continue;
			}
			return vmb_fail(ctx, -EPROTO, "unexpected KVM_EXIT_IO on port 0x%x in the %s case",
					run->io.port, vmx_kinds[kind].name);
		case KVM_EXIT_MMIO:
			if (kind == VMX_MMIO && run->mmio.is_write && run->mmio.phys_addr == VMX_MMIO_GPA) {
				out->user_exits++;
				continue;
			}
			return vmb_fail(ctx, -EPROTO, "unexpected KVM_EXIT_MMIO at 0x%llx in the %s case",
					(unsigned long long)run->mmio.phys_addr, vmx_kinds[kind].name);
		case KVM_EXIT_HLT:
			if (kind == VMX_HLT) {
				out->user_exits++;
				continue;
			}
			break;
		case KVM_EXIT_INTR:
			if (vmb_stop_requested())
				return -EINTR;
			continue;
		case KVM_EXIT_FAIL_ENTRY:
			return vmb_fail(ctx, -EIO, "KVM_EXIT_FAIL_ENTRY: hardware entry failure reason 0x%llx",
					(unsigned long long)run->fail_entry.hardware_entry_failure_reason);
		case KVM_EXIT_INTERNAL_ERROR:
			return vmb_fail(ctx, -EIO, "KVM_EXIT_INTERNAL_ERROR: suberror %u in the %s case",
					run->internal.suberror, vmx_kinds[kind].name);
		default:
			break;
		}
		return vmb_fail(ctx, -EPROTO, "unexpected %s (exit reason %u) in the %s case",
				exit_name(run->exit_reason), run->exit_reason, vmx_kinds[kind].name);
	}
done:
	out->host_ns = clock_ns() - t0;
	if (ioctl(v->vcpu, KVM_GET_REGS, &regs) < 0)
		return vmb_fail(ctx, -errno, "KVM_GET_REGS");
	if (regs.rbp != 0)
		return vmb_fail(ctx, -EPROTO, "the guest reported before its loop ended (%llu iterations left)",
				(unsigned long long)regs.rbp);
	out->guest_count = regs.rsp & 0xffffffff;
	out->cycles = ((regs.rdx & 0xffffffff) << 32 | (regs.rax & 0xffffffff)) -
		      ((regs.rdi & 0xffffffff) << 32 | (regs.rsi & 0xffffffff));
	return 0;
}

/* Check that every one of the n iterations was the exit it was meant to be,
 * where that exit can be counted. *how says where it was counted. */
static int count_check(struct vmb_ctx *ctx, struct vmx_vm *v, enum vmx_kind kind, uint32_t n,
		       const struct vmx_pass *p, uint64_t stat_before, uint64_t *counted, const char **how)
{
	uint64_t c = 0;

	switch (kind) {
	case VMX_IO:
	case VMX_MMIO:
	case VMX_HLT:
		c = p->user_exits;
		*how = "vmbench's run loop";
		break;
	case VMX_IOEVENTFD:
		if (read(v->efd, &c, sizeof(c)) != (ssize_t)sizeof(c))
			c = 0; /* EAGAIN: never signalled */
		*how = "the eventfd's counter";
		break;
	case VMX_CPUID:
		c = p->guest_count;
		*how = "the guest (answers from the CPUID table vmbench set)";
		break;
	case VMX_HYPERCALL:
		if (v->off_hypercalls < 0) {
			*counted = 0;
			*how = "not counted (no binary stats of the vCPU)";
			return 0;
		}
		c = stat_read(v, v->off_hypercalls) - stat_before;
		*how = "the vCPU's 'hypercalls' statistic";
		break;
	default:
		return vmb_fail(ctx, -EINVAL, "no way to count exit kind %d", (int)kind);
	}
	*counted = c;
	if (c != n)
		return vmb_fail(ctx, -EPROTO, "%s: %llu exits counted by %s, %u expected", vmx_kinds[kind].what,
				(unsigned long long)c, *how, n);
	return 0;
}

static int measure_kind(struct vmb_ctx *ctx, struct vmx_vm *v, enum vmx_kind kind, double target_s,
			double *ns, uint64_t *counted, uint32_t *expected, const char **how)
{
	uint8_t code[128];
	struct vmx_pass p;
	uint64_t before = 0, junk;
	uint32_t n = 64;
	double per;
	int len, r;

	len = vmx_program(kind, v->amd, code, sizeof(code));
	if (len < 0)
		return vmb_fail(ctx, len, "assembling the %s program", vmx_kinds[kind].name);
	memset(v->mem + VMX_CODE_GPA, 0xf4, 4096);
	memcpy(v->mem + VMX_CODE_GPA, code, (size_t)len);
	/* a short pass tells how many iterations fill target_s */
	r = vm_pass(ctx, v, kind, n, 0, &p);
	if (r < 0)
		return r;
	per = (double)p.host_ns / n;
	n = per > 0 ? (uint32_t)fmin(fmax(target_s * NSEC_PER_SEC / per, 64), 1e8) : 1000;
	if (read(v->efd, &junk, sizeof(junk)) < 0 && errno != EAGAIN)
		return vmb_fail(ctx, -errno, "reading the ioeventfd's eventfd");
	if (kind == VMX_HYPERCALL)
		before = stat_read(v, v->off_hypercalls);
	r = vm_pass(ctx, v, kind, n, target_s, &p);
	if (r < 0)
		return r;
	r = count_check(ctx, v, kind, n, &p, before, counted, how);
	if (r < 0)
		return r;
	*expected = n;
	*ns = (double)p.cycles * 1e6 / (double)v->tsc_khz / n;
	return 0;
}

int vmexit_kvm_run(struct vmb_ctx *ctx, double duration_s, struct vmb_rep *rep, struct vmx_memo *memo)
{
	struct vmx_vm v = { .kvm = -1, .vm = -1, .vcpu = -1, .efd = -1, .stats = -1 };
	double ns[VMX_NKINDS];
	uint64_t counted[VMX_NKINDS];
	uint32_t expected[VMX_NKINDS];
	const char *how[VMX_NKINDS];
	bool done[VMX_NKINDS] = { false };
	char text[512];
	size_t off = 0, moff = strlen(memo->why);
	int r, nmeasured = 0;

	r = vm_open(ctx, &v);
	if (r < 0)
		goto out;
	for (int k = 0; k < VMX_NKINDS; k++) {
		char metric[32];

		how[k] = "not measured";
		counted[k] = expected[k] = 0;
		if (memo->stuck & (1u << k))
			continue;
		r = measure_kind(ctx, &v, (enum vmx_kind)k, duration_s / VMX_NKINDS, &ns[k], &counted[k],
				 &expected[k], &how[k]);
		if (r == -ETIMEDOUT) {
			/* one kind this KVM does not complete: the others still count */
			str_appendf(memo->why, sizeof(memo->why), &moff,
				    "%s%s: %s", moff ? "; " : "", vmx_kinds[k].name, ctx->reason);
			memo->stuck |= 1u << k;
			ctx->reason[0] = 0;
			continue;
		}
		if (r < 0)
			goto out;
		if (!isfinite(ns[k]) || ns[k] <= 0) {
			r = vmb_fail(ctx, -EIO, "the %s case gave %g ns per exit", vmx_kinds[k].name, ns[k]);
			goto out;
		}
		(void)snprintf(metric, sizeof(metric), "%s_ns", vmx_kinds[k].name);
		vmb_rep_value(rep, metric, VMB_UNIT_NS, VMB_LOWER, ns[k]);
		done[k] = true;
		nmeasured++;
		str_appendf(text, sizeof(text), &off, "%s%s %llu/%u",
			    off ? ", " : "", vmx_kinds[k].name, (unsigned long long)counted[k], expected[k]);
	}
	if (nmeasured == 0) {
		r = vmb_fail(ctx, -ETIMEDOUT, "no exit kind completed: %s", memo->why);
		goto out;
	}
	/* the same port write, handled by vmbench and by the kernel */
	if (done[VMX_IO] && done[VMX_IOEVENTFD])
		vmb_rep_value(rep, "user_kernel_ratio", VMB_UNIT_RATIO, VMB_HIGHER, ns[VMX_IO] / ns[VMX_IOEVENTFD]);
	(void)vmb_note(ctx, "kvm_exits_counted", "%s", text);
	(void)vmb_note(ctx, "kvm_counted_by", "io, mmio, hlt: %s; ioeventfd: %s; cpuid: %s; hypercall: %s",
		       how[VMX_IO], how[VMX_IOEVENTFD], how[VMX_CPUID], how[VMX_HYPERCALL]);
	if (memo->why[0])
		(void)vmb_note(ctx, "kvm_not_measured", "%s", memo->why);
	(void)vmb_note(ctx, "kvm_guest", "32-bit protected mode, %u KiB, one vCPU, no irqchip; %s; TSC %llu kHz",
		       VMX_MEM_SIZE >> 10, v.amd ? "vmmcall" : "vmcall", (unsigned long long)v.tsc_khz);
	r = 0;
out:
	vm_close(&v);
	return r;
}

#else /* !__x86_64__ */

int vmexit_kvm_run(struct vmb_ctx *ctx, double duration_s, struct vmb_rep *rep, struct vmx_memo *memo)
{
	(void)memo;
	(void)duration_s;
	(void)rep;
	return vmb_skip(ctx, "not applicable on this architecture: the mini-VM's guest code is x86");
}

#endif
