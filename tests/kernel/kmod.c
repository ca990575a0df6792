/* A module-shaped test object (tests/e2e/kernel_modules.sh): compiled
 * -c -mcmodel=kernel -fno-pic and linked `ld -r --build-id` into a
 * relocatable kvm_test.ko with DWARF and a build-id note, as a kernel
 * module is. Never loaded; the generated recording
 * (tests/tools/kernel_perfdata.c --module) places samples at its
 * instructions on a module map. The functions are not first in .text, so
 * section-relative values of 0 and the relocated DWARF both matter.
 * -DOTHER builds another build (another build-id). */
struct kvm_run_state {
	long exits;
	long halts;
	int preempted;
};

struct kvm_run_state run_state;

/* First in .text and longer than the build-id note before it (all the
 * sections of a .ko sit at address 0, so addr2line would look a small
 * .text offset up in the note). */
__attribute__((noinline)) void kvm_test_init(void)
{
	__asm__ volatile(".skip 64, 0x90");
}

__attribute__((noinline)) void kvm_test_count_exit(struct kvm_run_state *s)
{
	s->exits++;
}

__attribute__((noinline)) int kvm_test_halt_poll(struct kvm_run_state *s)
{
	s->halts += 2;
#ifdef OTHER
	return s->preempted + 1;
#else
	return s->preempted;
#endif
}
