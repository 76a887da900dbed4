/* The mini-VM's guest code, assembled by vmbench: the dozen 32-bit x86
 * instructions its programs need, and the program of each exit kind. Plain
 * bytes, so it builds and is unit-tested on any host; only an x86 host runs
 * it (vmexit_kvm.c). */
#include <errno.h>
#include <string.h>

#include "vmexit.h"
#include "../core/banned.h"

const struct vmx_kind_info vmx_kinds[VMX_NKINDS] = {
	[VMX_IO] = { "io", true, "port write to user space (KVM_EXIT_IO)" },
	[VMX_MMIO] = { "mmio", true, "store to unbacked memory (KVM_EXIT_MMIO)" },
	[VMX_HLT] = { "hlt", true, "hlt without an in-kernel irqchip (KVM_EXIT_HLT)" },
	[VMX_CPUID] = { "cpuid", false, "cpuid, handled in the kernel" },
	[VMX_HYPERCALL] = { "hypercall", false, "vmcall/vmmcall, handled in the kernel" },
	[VMX_IOEVENTFD] = { "ioeventfd", false, "port write to a KVM_IOEVENTFD, handled in the kernel" },
};

void vmx_asm_init(struct vmx_asm *a, uint8_t *buf, size_t cap)
{
	a->buf = buf;
	a->cap = cap;
	a->len = 0;
	a->err = 0;
}

static void emit(struct vmx_asm *a, const uint8_t *bytes, size_t n)
{
	if (a->err)
		return;
	if (a->cap - a->len < n) {
		a->err = -ENOSPC;
		return;
	}
	memcpy(a->buf + a->len, bytes, n);
	a->len += n;
}

static void emit_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* ModR/M with mod 11: register to register. */
static uint8_t modrm_rr(enum vmx_reg reg, enum vmx_reg rm)
{
	return (uint8_t)(0xc0 | (unsigned)reg << 3 | (unsigned)rm);
}

void vmx_mov_imm32(struct vmx_asm *a, enum vmx_reg r, uint32_t imm)
{
	uint8_t b[5] = { (uint8_t)(0xb8 + r) };

	emit_u32(b + 1, imm);
	emit(a, b, sizeof(b));
}

void vmx_mov_rr(struct vmx_asm *a, enum vmx_reg dst, enum vmx_reg src)
{
	emit(a, (const uint8_t[]){ 0x89, modrm_rr(src, dst) }, 2);
}

void vmx_xor_rr(struct vmx_asm *a, enum vmx_reg dst, enum vmx_reg src)
{
	emit(a, (const uint8_t[]){ 0x31, modrm_rr(src, dst) }, 2);
}

void vmx_add_rr(struct vmx_asm *a, enum vmx_reg dst, enum vmx_reg src)
{
	emit(a, (const uint8_t[]){ 0x01, modrm_rr(src, dst) }, 2);
}

void vmx_mov_store_abs(struct vmx_asm *a, uint32_t addr, enum vmx_reg src)
{
	uint8_t b[6] = { 0x89, (uint8_t)((unsigned)src << 3 | 0x05) };

	emit_u32(b + 2, addr);
	emit(a, b, sizeof(b));
}

void vmx_out_imm8_al(struct vmx_asm *a, uint8_t port)
{
	emit(a, (const uint8_t[]){ 0xe6, port }, 2);
}

void vmx_dec(struct vmx_asm *a, enum vmx_reg r)
{
	emit(a, (const uint8_t[]){ (uint8_t)(0x48 + r) }, 1);
}

/* A backward branch to target: the displacement counts from the end of the
 * instruction, so the short form is tried first with its own length. */
static void branch_back(struct vmx_asm *a, size_t target, uint8_t short_op, const uint8_t *near_op, size_t near_len)
{
	long d = (long)target - (long)(a->len + 2);
	uint8_t b[6];

	if (a->err)
		return;
	if (target > a->len) {
		a->err = -EINVAL;
		return;
	}
	if (d >= -128) {
		emit(a, (const uint8_t[]){ short_op, (uint8_t)(int8_t)d }, 2);
		return;
	}
	memcpy(b, near_op, near_len);
	d = (long)target - (long)(a->len + near_len + 4);
	emit_u32(b + near_len, (uint32_t)(int32_t)d);
	emit(a, b, near_len + 4);
}

void vmx_jnz_back(struct vmx_asm *a, size_t target)
{
	branch_back(a, target, 0x75, (const uint8_t[]){ 0x0f, 0x85 }, 2);
}

void vmx_jmp_back(struct vmx_asm *a, size_t target)
{
	branch_back(a, target, 0xeb, (const uint8_t[]){ 0xe9 }, 1);
}

void vmx_cpuid(struct vmx_asm *a)
{
	emit(a, (const uint8_t[]){ 0x0f, 0xa2 }, 2);
}

void vmx_rdtsc(struct vmx_asm *a)
{
	emit(a, (const uint8_t[]){ 0x0f, 0x31 }, 2);
}

void vmx_vmcall(struct vmx_asm *a)
{
	emit(a, (const uint8_t[]){ 0x0f, 0x01, 0xc1 }, 3);
}

void vmx_vmmcall(struct vmx_asm *a)
{
	emit(a, (const uint8_t[]){ 0x0f, 0x01, 0xd9 }, 3);
}

void vmx_hlt(struct vmx_asm *a)
{
	emit(a, (const uint8_t[]){ 0xf4 }, 1);
}

/* start: ebp = iterations (the host sets ecx; cpuid clobbers ecx, not ebp)
 *        rdtsc; edi:esi = start
 * loop:  <the exiting instruction>; dec ebp; jnz loop
 *        rdtsc; out DONE (the host reads the registers); jmp start */
int vmx_program(enum vmx_kind kind, bool amd, uint8_t *buf, size_t cap)
{
	struct vmx_asm a;
	size_t start, loop;

	vmx_asm_init(&a, buf, cap);
	start = a.len;
	vmx_mov_rr(&a, VMX_EBP, VMX_ECX);
	vmx_rdtsc(&a);
	vmx_mov_rr(&a, VMX_ESI, VMX_EAX);
	vmx_mov_rr(&a, VMX_EDI, VMX_EDX);
	loop = a.len;
	switch (kind) {
	case VMX_IO:
		vmx_out_imm8_al(&a, VMX_PORT_EXIT);
		break;
	case VMX_MMIO:
		vmx_mov_store_abs(&a, VMX_MMIO_GPA, VMX_EAX);
		break;
	case VMX_HLT:
		vmx_hlt(&a);
		break;
	case VMX_CPUID:
		vmx_xor_rr(&a, VMX_EAX, VMX_EAX); /* leaf 0 */
		vmx_cpuid(&a);
		/* KVM answers ebx = 1 from the table vmbench gave it: esp counts the answers */
		vmx_add_rr(&a, VMX_ESP, VMX_EBX);
		break;
	case VMX_HYPERCALL:
		vmx_mov_imm32(&a, VMX_EAX, 1); /* KVM_HC_VAPIC_POLL_IRQ: a no-op that returns 0 */
		if (amd)
			vmx_vmmcall(&a);
		else
			vmx_vmcall(&a);
		break;
	case VMX_IOEVENTFD:
		vmx_out_imm8_al(&a, VMX_PORT_EVENTFD);
		break;
	default:
		return -EINVAL;
	}
	vmx_dec(&a, VMX_EBP);
	vmx_jnz_back(&a, loop);
	vmx_rdtsc(&a);
	vmx_out_imm8_al(&a, VMX_PORT_DONE);
	vmx_jmp_back(&a, start);
	return a.err ? a.err : (int)a.len;
}
