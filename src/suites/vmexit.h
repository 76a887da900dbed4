/* The VM-exit suite's pieces shared between its files and the unit tests:
 * the empty-loop subtraction, the guest code assembler of the KVM mini-VM
 * and the mini-VM itself. */
#ifndef VMB_VMEXIT_H
#define VMB_VMEXIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/suite.h"

/* ---- empty-loop subtraction ----
 * op_ns is the loop with the operation, per iteration; empty_ns[0..n) are
 * per-iteration figures of the same loop without it, measured several times.
 * *net = op_ns - the median of empty_ns; *floor = the empty loop's own noise
 * (its spread, max - min, or without the lowest and highest run when there
 * are five or more; never below resolution_ns). Returns 1 when the
 * net figure is measurable (net > floor), 0 when it is not, -EINVAL on
 * input that is not finite or n == 0. */
int vmexit_subtract(double op_ns, const double *empty_ns, size_t n, double resolution_ns, double *net,
		    double *floor);

/* The ACPI PM timer's port from the text of /proc/ioports: 0, or -ENOENT. */
int vmexit_pmtimer_port(const char *text, size_t len, unsigned *port);

/* ---- the guest code assembler (32-bit protected mode, flat segments) ----
 * Each emitter appends the instruction's bytes; a buffer that would
 * overflow sets err (-ENOSPC) and stops taking bytes. */
struct vmx_asm {
	uint8_t *buf;
	size_t cap, len;
	int err;
};

enum vmx_reg { VMX_EAX = 0, VMX_ECX, VMX_EDX, VMX_EBX, VMX_ESP, VMX_EBP, VMX_ESI, VMX_EDI };

void vmx_asm_init(struct vmx_asm *a, uint8_t *buf, size_t cap);
void vmx_mov_imm32(struct vmx_asm *a, enum vmx_reg r, uint32_t imm); /* B8+r id */
void vmx_mov_rr(struct vmx_asm *a, enum vmx_reg dst, enum vmx_reg src); /* 89 /r */
void vmx_xor_rr(struct vmx_asm *a, enum vmx_reg dst, enum vmx_reg src); /* 31 /r */
void vmx_add_rr(struct vmx_asm *a, enum vmx_reg dst, enum vmx_reg src); /* 01 /r */
void vmx_mov_store_abs(struct vmx_asm *a, uint32_t addr, enum vmx_reg src); /* 89 /r, mod 00 rm 101 */
void vmx_out_imm8_al(struct vmx_asm *a, uint8_t port); /* E6 ib */
void vmx_dec(struct vmx_asm *a, enum vmx_reg r);        /* 48+r */
void vmx_jnz_back(struct vmx_asm *a, size_t target);    /* 75 cb, or 0F 85 cd when far */
void vmx_jmp_back(struct vmx_asm *a, size_t target);    /* EB cb, or E9 cd when far */
void vmx_cpuid(struct vmx_asm *a);                      /* 0F A2 */
void vmx_rdtsc(struct vmx_asm *a);                      /* 0F 31 */
void vmx_vmcall(struct vmx_asm *a);                     /* 0F 01 C1 (Intel) */
void vmx_vmmcall(struct vmx_asm *a);                    /* 0F 01 D9 (AMD) */
void vmx_hlt(struct vmx_asm *a);                        /* F4 */

/* The exit kinds of the mini-VM, in the order they are measured. */
enum vmx_kind {
	VMX_IO,        /* out to a port nobody claims: KVM_EXIT_IO to user space */
	VMX_MMIO,      /* a store to unbacked guest memory: KVM_EXIT_MMIO */
	VMX_HLT,       /* hlt without an in-kernel irqchip: KVM_EXIT_HLT */
	VMX_CPUID,     /* handled in the kernel */
	VMX_HYPERCALL, /* vmcall/vmmcall, KVM_HC_VAPIC_POLL_IRQ: handled in the kernel */
	VMX_IOEVENTFD, /* out to a port with a KVM_IOEVENTFD: handled in the kernel */
	VMX_NKINDS,
};

/* Where the guest lives and what it talks to. */
#define VMX_CODE_GPA 0x1000u
#define VMX_MEM_SIZE 0x10000u    /* guest RAM: 64 KiB from 0 */
#define VMX_MMIO_GPA 0x100000u   /* nothing there: an MMIO exit */
#define VMX_PORT_EXIT 0x10       /* no handler: a user-space exit */
#define VMX_PORT_EVENTFD 0xe0    /* a KVM_IOEVENTFD */
#define VMX_PORT_DONE 0xf0       /* the guest's report: start in edi:esi, end in edx:eax */

struct vmx_kind_info {
	const char *name;    /* metric prefix: io, mmio, ... */
	bool user;           /* handled by vmbench in user space */
	const char *what;    /* for messages and notes */
};
extern const struct vmx_kind_info vmx_kinds[VMX_NKINDS];

/* The guest program of one kind: ebp iterations of the exiting instruction
 * between two rdtsc, then a report on VMX_PORT_DONE, then over again.
 * amd picks vmmcall over vmcall. Returns the length, or -ENOSPC. */
int vmx_program(enum vmx_kind kind, bool amd, uint8_t *buf, size_t cap);

/* ---- the mini-VM (vmexit_kvm.c) ----
 * Runs each kind for about duration_s in all and reports <kind>_ns per exit
 * round trip, the exits counted, and user_kernel_ratio. A kind whose guest
 * makes no progress is noted in memo and left out of later repetitions. 0, or a negative
 * errno after vmb_fail()/vmb_skip(). */
struct vmx_memo {
	unsigned stuck;  /* bit k: kind k never completed here; not tried again */
	char why[512];
};
int vmexit_kvm_run(struct vmb_ctx *ctx, double duration_s, struct vmb_rep *rep, struct vmx_memo *memo);

#endif
