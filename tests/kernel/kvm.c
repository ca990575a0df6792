/* A kernel-shaped test image (tests/e2e/kernel_vmlinux.sh): a few
 * functions that touch a shared vcpu structure, built with -mcmodel=kernel
 * and kernel.lds so that _text is at 0xffffffff81000000 like an x86-64
 * vmlinux, with DWARF and a build-id note. Never run; the samples of the
 * generated recording (tests/tools/kernel_perfdata.c) sit at its
 * instructions. -DOTHER builds a second image with another build-id. */
struct kvm_vcpu {
	long mode;
	long requests;
	int cpu;
	long stat_exits;
};

struct kvm_vcpu vcpu0;

/* First in .text, where _text is: the functions sampled never alias it. */
__attribute__((noinline)) void startup_64(void)
{
	__asm__ volatile("nop");
}

__attribute__((noinline)) void kvm_vcpu_kick(struct kvm_vcpu *v)
{
	v->requests |= 1;
}

__attribute__((noinline)) long vcpu_enter_guest(struct kvm_vcpu *v)
{
	v->stat_exits++;
	return v->mode;
}

__attribute__((noinline)) int kvm_arch_vcpu_runnable(struct kvm_vcpu *v)
{
#ifdef OTHER
	return v->cpu + 1;
#else
	return v->cpu;
#endif
}

void start_kernel(void)
{
	kvm_vcpu_kick(&vcpu0);
	vcpu_enter_guest(&vcpu0);
	kvm_arch_vcpu_runnable(&vcpu0);
}
