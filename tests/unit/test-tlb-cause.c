// SPDX-License-Identifier: MIT
/*
 * doctor names only a cause it saw: made-up hosts (a /proc/cpuinfo, an
 * architecture and a kernel log under MBBENCH_SYSROOT, and the hypervisor's
 * features) give the remote_tlb_flush and paravirt_interface facts, and
 * mprotect-barrier's fix when it is affected. A PVM guest without the
 * invlpgb flag is told its hypervisor's flush hypercall, never INVLPGB; a
 * host with nothing to see is told "cause not identified".
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor.h"
#include "hostinfo.h"
#include "tap.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	f = fopen(p, "w");
	if (!f) {
		perror(p);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

#define X86_FLAGS "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu vme de pse tsc msr hypervisor lahf_lm%s\n\n"

/* One made-up host; kmsg NULL: no kernel log at all. */
static void host(struct hostinfo *h, const char *arch, const char *flags, const char *kmsg,
		 const char *features)
{
	char cpuinfo[512], p[512];

	snprintf(cpuinfo, sizeof(cpuinfo), X86_FLAGS, flags);
	put("/proc/sys/kernel/arch", arch);
	if (!strcmp(arch, "aarch64\n"))
		put("/proc/cpuinfo", "processor\t: 0\nFeatures\t: fp asimd evtstrm\nCPU implementer\t: 0x41\n\n");
	else
		put("/proc/cpuinfo", cpuinfo);
	snprintf(p, sizeof(p), "%s/dev/kmsg", root);
	unlink(p);
	if (kmsg)
		put("/dev/kmsg", kmsg);
	memset(h, 0, sizeof(*h));
	hostinfo_add(h, "hypervisor_features", features, NULL);
	guestfacts_kernel(h);
}

static int has(const char *s, const char *sub)
{
	return s && strstr(s, sub);
}

static void affected(struct finding *f, const struct hostinfo *h)
{
	memset(f, 0, sizeof(*f));
	f->result = RES_AFFECTED;
	doctor_mprotect_fix(f, h);
}

int main(void)
{
	struct hostinfo h;
	struct finding f;
	const char *t, *pi;
	char dirs[600];

	plan(20);
	snprintf(root, sizeof(root), "%s/mbb-tlb-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root))
		return 1;
	snprintf(dirs, sizeof(dirs), "mkdir -p '%s/proc/sys/kernel' '%s/dev'", root, root);
	if (system(dirs))
		return 1;
	setenv("MBBENCH_SYSROOT", root, 1);

	/* The PVM guest: no invlpgb, the hypervisor flushes by hypercall (kmsg form). */
	host(&h, "x86_64\n", "",
	     "6,0,0,-;Linux version 6.18.44\n6,1,0,-;Hypervisor detected: PVM\n"
	     "6,2,24,-;pvm-pv: running under PVM (pv-lite)\n"
	     " SUBSYSTEM=none\n"
	     "6,3,247,-;pvm-pv: remote TLB flushes via PVM_HC_FLUSH_TLB_MULTI\n"
	     "6,4,63003,-;Booting paravirtualized kernel on PVM\n",
	     "unknown (hypervisor 'bhyve bhyve' does not describe its features here)");
	t = hostinfo_get(&h, "remote_tlb_flush");
	pi = hostinfo_get(&h, "paravirt_interface");
	ok(has(t, "by hypercall") && has(t, "pvm-pv: remote TLB flushes via PVM_HC_FLUSH_TLB_MULTI") &&
	   !has(t, "invlpgb") && !has(t, "INVLPGB"), "PVM guest: remote_tlb_flush is its hypercall (%s)", t);
	ok(pi && !strcmp(pi, "PVM (pvm-pv: running under PVM (pv-lite))"), "PVM guest: paravirt_interface (%s)", pi);
	affected(&f, &h);
	ok(has(f.fix, "PVM_HC_FLUSH_TLB_MULTI") && !has(f.fix, "INVLPGB") && !has(f.reference, "INVLPGB") &&
	   !has(f.fix, "arm64") && !has(f.reference, "arm64"),
	   "PVM guest, affected: the fix names the hypercall and not INVLPGB or arm64 (%s; %s)", f.fix, f.reference);
	hostinfo_free(&h);

	/* Bare metal with invlpgb (dmesg form). */
	host(&h, "x86_64\n", " invlpgb", "[    0.063003] Booting paravirtualized kernel on bare hardware\n",
	     "none (not a guest)");
	t = hostinfo_get(&h, "remote_tlb_flush");
	pi = hostinfo_get(&h, "paravirt_interface");
	ok(has(t, "broadcast by the CPU (flag invlpgb") && !has(t, "hypercall"), "invlpgb flag: broadcast by the CPU (%s)", t);
	ok(pi && !strcmp(pi, "none (bare hardware)"), "bare hardware: paravirt_interface (%s)", pi);
	affected(&f, &h);
	ok(has(f.fix, "invlpgb") && has(f.reference, "INVLPGB"), "invlpgb, affected: the fix and reference name it (%s)", f.fix);
	hostinfo_free(&h);

	/* Hyper-V's enlightened flush. */
	host(&h, "x86_64\n", "", "[    0.000000] Hypervisor detected: Microsoft Hyper-V\n"
	     "[    0.000100] Hyper-V: Using hypercall for remote TLB flush\n", "none");
	t = hostinfo_get(&h, "remote_tlb_flush");
	ok(has(t, "by hypercall (kernel log: \"Hyper-V: Using hypercall for remote TLB flush\")"), "Hyper-V: %s", t);
	ok(!strcmp(hostinfo_get(&h, "paravirt_interface"), "Microsoft Hyper-V"), "Hyper-V: the interface from Hypervisor detected");
	hostinfo_free(&h);

	/* KVM's PV TLB flush: for preempted vCPUs only, from the log or from CPUID. */
	host(&h, "x86_64\n", "", "[    0.1] kvm-guest: KVM setup pv remote TLB flush\n", "pv-eoi pv-tlb-flush pv-send-ipi");
	t = hostinfo_get(&h, "remote_tlb_flush");
	ok(has(t, "by hypercall for a preempted vCPU, by IPI for a running one (kernel log: \"kvm-guest:"), "KVM, log: %s", t);
	hostinfo_free(&h);
	host(&h, "x86_64\n", "", "", "pv-eoi pv-tlb-flush");
	t = hostinfo_get(&h, "remote_tlb_flush");
	ok(has(t, "by hypercall for a preempted vCPU") && has(t, "CPUID: KVM pv-tlb-flush"), "KVM, CPUID only: %s", t);
	hostinfo_free(&h);

	/* arm64: the architecture's broadcast. */
	host(&h, "aarch64\n", "", "", "unknown");
	t = hostinfo_get(&h, "remote_tlb_flush");
	ok(has(t, "broadcast by the architecture (arm64"), "arm64: %s", t);
	affected(&f, &h);
	ok(has(f.fix, "arm64") && !has(f.fix, "INVLPGB"), "arm64, affected: the fix names the architecture (%s)", f.fix);
	hostinfo_free(&h);

	/* riscv64 with IPIs through the SBI: the firmware's remote fence. */
	host(&h, "riscv64\n", "", "6,120,80,-;riscv: providing IPIs using SBI IPI extension\n", "unknown");
	t = hostinfo_get(&h, "remote_tlb_flush");
	ok(has(t, "by SBI call") && has(t, "providing IPIs using SBI IPI extension"), "riscv64, SBI IPIs: %s", t);
	affected(&f, &h);
	ok(has(f.fix, "by SBI call") && has(f.reference, "riscv") && !has(f.fix, "INVLPGB") &&
	   !has(f.fix, "cause not identified"), "riscv64, SBI IPIs, affected: the fix names the firmware (%s)", f.fix);
	hostinfo_free(&h);
	/* riscv64 whose IPIs do not go through the SBI: function-call IPIs. */
	host(&h, "riscv64\n", "", "6,120,80,-;riscv-imsic: providing IPIs using interrupt 1\n", "unknown");
	t = hostinfo_get(&h, "remote_tlb_flush");
	ok(has(t, "by IPI (riscv64") && !has(t, "SBI call"), "riscv64, IMSIC IPIs: %s", t);
	affected(&f, &h);
	ok(has(f.fix, "cause not identified"), "riscv64, IPIs, affected: not identified (%s)", f.fix);
	hostinfo_free(&h);

	/* Nothing seen: by IPI, and an affected host is told "not identified". */
	host(&h, "x86_64\n", "", "6,7,5,-;Linux version 6.18\n", "unknown (hypervisor 'bhyve bhyve' does not describe its features here)");
	t = hostinfo_get(&h, "remote_tlb_flush");
	ok(has(t, "by IPI") && has(t, "what is left of the kernel log"), "nothing seen, the log wrapped: %s", t);
	affected(&f, &h);
	ok(has(f.fix, "cause not identified") && !has(f.fix, "INVLPGB") && !has(f.fix, "hypercall (") &&
	   !has(f.reference, "INVLPGB"), "nothing seen, affected: not identified (%s)", f.fix);
	hostinfo_free(&h);

	/* No kernel log readable: unknown, with why. */
	host(&h, "x86_64\n", "", NULL, "none (not a guest)");
	t = hostinfo_get(&h, "remote_tlb_flush");
	pi = hostinfo_get(&h, "paravirt_interface");
	ok(has(t, "unknown") && has(t, "/dev/kmsg") && pi && !strcmp(pi, "unknown"), "no kernel log: %s; %s", t, pi);
	affected(&f, &h);
	ok(has(f.fix, "cause not identified"), "no kernel log, affected: not identified (%s)", f.fix);
	hostinfo_free(&h);

	snprintf(dirs, sizeof(dirs), "rm -rf '%s'", root);
	if (system(dirs))
		diag("could not remove %s", root);
	return done_testing();
}
