/* The VM-exit suite's pure parts: the guest code assembler's bytes against
 * encodings checked by hand in the Intel SDM's opcode tables, the programs
 * of every exit kind, the empty-loop subtraction and its noise guard, and
 * the ACPI PM timer's port from /proc/ioports. */
#include <errno.h>
#include <string.h>

#include "test.h"
#include "../../src/suites/vmexit.h"

struct bytes {
	uint8_t b[32];
	size_t n;
};

#define B(...) { { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }) }

static void expect_bytes(const char *what, const uint8_t *got, size_t n, const struct bytes *want)
{
	if (n != want->n || memcmp(got, want->b, n)) {
		char g[128] = "", w[128] = "";

		for (size_t i = 0; i < n && i < 40; i++)
			(void)snprintf(g + strlen(g), sizeof(g) - strlen(g), "%02x ", got[i]);
		for (size_t i = 0; i < want->n; i++)
			(void)snprintf(w + strlen(w), sizeof(w) - strlen(w), "%02x ", want->b[i]);
		fail_msg("%s: got %s(%zu bytes), expected %s(%zu bytes)", what, g, n, w, want->n);
	}
}

static void emit_mov_ebp_ecx(struct vmx_asm *a) { vmx_mov_rr(a, VMX_EBP, VMX_ECX); }
static void emit_mov_esi_eax(struct vmx_asm *a) { vmx_mov_rr(a, VMX_ESI, VMX_EAX); }
static void emit_mov_edi_edx(struct vmx_asm *a) { vmx_mov_rr(a, VMX_EDI, VMX_EDX); }
static void emit_xor_eax(struct vmx_asm *a) { vmx_xor_rr(a, VMX_EAX, VMX_EAX); }
static void emit_add_esp_ebx(struct vmx_asm *a) { vmx_add_rr(a, VMX_ESP, VMX_EBX); }
static void emit_mov_eax_1(struct vmx_asm *a) { vmx_mov_imm32(a, VMX_EAX, 1); }
static void emit_mov_edi_imm(struct vmx_asm *a) { vmx_mov_imm32(a, VMX_EDI, 0x12345678); }
static void emit_store(struct vmx_asm *a) { vmx_mov_store_abs(a, 0x100000, VMX_EAX); }
static void emit_store_ecx(struct vmx_asm *a) { vmx_mov_store_abs(a, 0xfee00000, VMX_ECX); }
static void emit_out(struct vmx_asm *a) { vmx_out_imm8_al(a, 0xe0); }
static void emit_dec_ebp(struct vmx_asm *a) { vmx_dec(a, VMX_EBP); }
static void emit_dec_ecx(struct vmx_asm *a) { vmx_dec(a, VMX_ECX); }
/* a loop back over 2 bytes: the displacement counts from the branch's end */
static void emit_jnz_short(struct vmx_asm *a) { vmx_hlt(a); vmx_hlt(a); vmx_jnz_back(a, 0); }
static void emit_jmp_short(struct vmx_asm *a) { vmx_hlt(a); vmx_jmp_back(a, 0); }

static void instructions(void **state)
{
	static const struct {
		const char *what;
		void (*emit)(struct vmx_asm *);
		struct bytes want;
	} cases[] = {
		{ "mov ebp, ecx", emit_mov_ebp_ecx, B(0x89, 0xcd) },
		{ "mov esi, eax", emit_mov_esi_eax, B(0x89, 0xc6) },
		{ "mov edi, edx", emit_mov_edi_edx, B(0x89, 0xd7) },
		{ "xor eax, eax", emit_xor_eax, B(0x31, 0xc0) },
		{ "add esp, ebx", emit_add_esp_ebx, B(0x01, 0xdc) },
		{ "mov eax, 1", emit_mov_eax_1, B(0xb8, 0x01, 0x00, 0x00, 0x00) },
		{ "mov edi, 0x12345678", emit_mov_edi_imm, B(0xbf, 0x78, 0x56, 0x34, 0x12) },
		{ "mov [0x100000], eax", emit_store, B(0x89, 0x05, 0x00, 0x00, 0x10, 0x00) },
		{ "mov [0xfee00000], ecx", emit_store_ecx, B(0x89, 0x0d, 0x00, 0x00, 0xe0, 0xfe) },
		{ "out 0xe0, al", emit_out, B(0xe6, 0xe0) },
		{ "dec ebp", emit_dec_ebp, B(0x4d) },
		{ "dec ecx", emit_dec_ecx, B(0x49) },
		{ "cpuid", vmx_cpuid, B(0x0f, 0xa2) },
		{ "rdtsc", vmx_rdtsc, B(0x0f, 0x31) },
		{ "vmcall", vmx_vmcall, B(0x0f, 0x01, 0xc1) },
		{ "vmmcall", vmx_vmmcall, B(0x0f, 0x01, 0xd9) },
		{ "hlt", vmx_hlt, B(0xf4) },
		{ "hlt; hlt; jnz 0", emit_jnz_short, B(0xf4, 0xf4, 0x75, 0xfc) },
		{ "hlt; jmp 0", emit_jmp_short, B(0xf4, 0xeb, 0xfd) },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t buf[32];
		struct vmx_asm a;

		vmx_asm_init(&a, buf, sizeof(buf));
		cases[i].emit(&a);
		assert_int_equal(a.err, 0);
		expect_bytes(cases[i].what, buf, a.len, &cases[i].want);
	}
}

/* Branches further back than a rel8 reaches take the rel32 forms. */
static void far_branches(void **state)
{
	static const struct {
		bool jnz;
		struct bytes tail;
	} cases[] = {
		{ true, B(0x0f, 0x85, 0x32, 0xff, 0xff, 0xff) }, /* 0 - (200 + 6) = -206 */
		{ false, B(0xe9, 0x33, 0xff, 0xff, 0xff) },      /* 0 - (200 + 5) = -205 */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t buf[256];
		struct vmx_asm a;

		vmx_asm_init(&a, buf, sizeof(buf));
		for (int k = 0; k < 200; k++)
			vmx_hlt(&a);
		if (cases[i].jnz)
			vmx_jnz_back(&a, 0);
		else
			vmx_jmp_back(&a, 0);
		assert_int_equal(a.err, 0);
		expect_bytes(cases[i].jnz ? "jnz rel32" : "jmp rel32", buf + 200, a.len - 200, &cases[i].tail);
	}
}

/* Every program: ebp = ecx; rdtsc; esi, edi = start; loop: <op>; dec ebp;
 * jnz loop; rdtsc; out 0xf0, al; jmp start. */
static void programs(void **state)
{
#define HEAD 0x89, 0xcd, 0x0f, 0x31, 0x89, 0xc6, 0x89, 0xd7
	static const struct {
		enum vmx_kind kind;
		bool amd;
		struct bytes want;
	} cases[] = {
		{ VMX_IO, false, B(HEAD, 0xe6, 0x10, 0x4d, 0x75, 0xfb, 0x0f, 0x31, 0xe6, 0xf0, 0xeb, 0xed) },
		{ VMX_IOEVENTFD, false, B(HEAD, 0xe6, 0xe0, 0x4d, 0x75, 0xfb, 0x0f, 0x31, 0xe6, 0xf0, 0xeb, 0xed) },
		{ VMX_HLT, true, B(HEAD, 0xf4, 0x4d, 0x75, 0xfc, 0x0f, 0x31, 0xe6, 0xf0, 0xeb, 0xee) },
		{ VMX_MMIO, false, B(HEAD, 0x89, 0x05, 0x00, 0x00, 0x10, 0x00, 0x4d, 0x75, 0xf7, 0x0f, 0x31, 0xe6, 0xf0,
				     0xeb, 0xe9) },
		{ VMX_CPUID, false, B(HEAD, 0x31, 0xc0, 0x0f, 0xa2, 0x01, 0xdc, 0x4d, 0x75, 0xf7, 0x0f, 0x31, 0xe6, 0xf0,
				      0xeb, 0xe9) },
		{ VMX_HYPERCALL, true, B(HEAD, 0xb8, 0x01, 0x00, 0x00, 0x00, 0x0f, 0x01, 0xd9, 0x4d, 0x75, 0xf5, 0x0f,
					 0x31, 0xe6, 0xf0, 0xeb, 0xe7) },
		{ VMX_HYPERCALL, false, B(HEAD, 0xb8, 0x01, 0x00, 0x00, 0x00, 0x0f, 0x01, 0xc1, 0x4d, 0x75, 0xf5, 0x0f,
					  0x31, 0xe6, 0xf0, 0xeb, 0xe7) },
	};
#undef HEAD

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t buf[64];
		int n = vmx_program(cases[i].kind, cases[i].amd, buf, sizeof(buf));

		assert_true(n > 0);
		expect_bytes(vmx_kinds[cases[i].kind].name, buf, (size_t)n, &cases[i].want);
		/* too small a buffer is an error, never a truncated program */
		assert_int_equal(vmx_program(cases[i].kind, cases[i].amd, buf, (size_t)n - 1), -ENOSPC);
	}
	assert_int_equal(vmx_program(VMX_NKINDS, false, (uint8_t[64]){ 0 }, 64), -EINVAL);
}

static void subtraction(void **state)
{
	static const struct {
		double op;
		double empty[5];
		size_t n;
		double res;
		int r;
		double net, floor;
	} cases[] = {
		/* the median of the empty loop is subtracted; its spread is the floor */
		{ 10, { 1, 1.2, 0.8 }, 3, 0.1, 1, 9, 0.4 },
		{ 10, { 1, 3 }, 2, 0.1, 1, 8, 2 },
		/* with four runs, one disturbed run widens the floor: "not measurable" */
		{ 10, { 3, 1, 2, 100 }, 4, 0.1, 0, 7.5, 99 },
		/* with five, the lowest and highest are left out of the spread */
		{ 10, { 3, 1, 2, 100, 2.5 }, 5, 0.1, 1, 7.5, 1 },
		{ 10, { 0.01, 1, 1.1, 1.2, 50 }, 5, 0.1, 1, 8.9, 0.2 },
		/* below the noise: not measurable */
		{ 1.3, { 1, 1.2, 0.8 }, 3, 0.1, 0, 0.3, 0.4 },
		/* the clock's resolution is the floor when the empty loop is steadier */
		{ 5, { 1, 1, 1 }, 3, 5, 0, 4, 5 },
		{ 5, { 1, 1, 1 }, 3, 3, 1, 4, 3 },
		/* an operation faster than the empty loop: negative, so not measurable */
		{ 0.5, { 1, 1, 1 }, 3, 0.01, 0, -0.5, 0.01 },
		/* bad input */
		{ NAN, { 1 }, 1, 0, -EINVAL, 0, 0 },
		{ 1, { INFINITY }, 1, 0, -EINVAL, 0, 0 },
		{ 1, { -1 }, 1, 0, -EINVAL, 0, 0 },
		{ 1, { 1 }, 0, 0, -EINVAL, 0, 0 },
		{ 1, { 1 }, 1, -1, -EINVAL, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double net = -77, floor = -77;
		int r = vmexit_subtract(cases[i].op, cases[i].empty, cases[i].n, cases[i].res, &net, &floor);

		if (r != cases[i].r)
			fail_msg("case %zu: %d, expected %d", i, r, cases[i].r);
		if (r < 0)
			continue;
		assert_close(net, cases[i].net, 1e-9);
		assert_close(floor, cases[i].floor, 1e-9);
	}
}

static void pmtimer(void **state)
{
	static const struct {
		const char *text;
		int r;
		unsigned port;
	} cases[] = {
		{ "0000-0cf7 : PCI Bus 0000:00\n  0000-001f : dma1\n  0600-067f : pnp 00:00\n"
		  "    0608-060b : ACPI PM_TMR\n    0620-062f : ACPI GPE0_BLK\n", 0, 0x608 },
		{ "  b008-b00b : ACPI PM_TMR", 0, 0xb008 }, /* the last line, no newline */
		{ "    0000-0000 : ACPI PM_TMR\n", 0, 0 },   /* unprivileged readers see zeros */
		{ "0000-0cf7 : PCI Bus 0000:00\n  03f8-03ff : serial\n", -ENOENT, 0 },
		{ "    zzzz-060b : ACPI PM_TMR\n", -ENOENT, 0 },
		{ "ACPI PM_TMR\n", -ENOENT, 0 },
		{ "    fffd-ffff : ACPI PM_TMR\n", -ENOENT, 0 }, /* four bytes do not fit */
		{ "    0608-060b : ACPI PM_TMR2\n", -ENOENT, 0 },
		{ "", -ENOENT, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned port = 7;
		int r = vmexit_pmtimer_port(cases[i].text, strlen(cases[i].text), &port);

		if (r != cases[i].r)
			fail_msg("case %zu: %d, expected %d", i, r, cases[i].r);
		assert_int_equal(port, r == 0 ? cases[i].port : 7);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(instructions), cmocka_unit_test(far_branches), cmocka_unit_test(programs),
		cmocka_unit_test(subtraction), cmocka_unit_test(pmtimer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
