// SPDX-License-Identifier: GPL-2.0
/* The holder's vCPU of bench-host-preempt, on KVM or as the thread backend's loop (spin_vcpu.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../vmm/payload/guest/work.h"
#include "spin_vcpu.h"
#include "vmm/kick.h"

static int spin_kvm_init(struct spin_vcpu *v)
{
	static const unsigned char jmp_self[] = { 0xeb, 0xfe };	/* jmp $ */
	struct kvm_userspace_memory_region mr = { .memory_size = 4096 };
	struct kvm_sregs sr;
	struct kvm_regs r = { .rip = 0, .rflags = 2 };
	int sz;

	v->kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (v->kvm_fd < 0)
		return -errno;
	v->vm_fd = ioctl(v->kvm_fd, KVM_CREATE_VM, 0);
	v->mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (v->vm_fd < 0 || v->mem == MAP_FAILED)
		return -ENODEV;
	memcpy(v->mem, jmp_self, sizeof(jmp_self));
	mr.userspace_addr = (unsigned long)v->mem;
	sz = ioctl(v->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (ioctl(v->vm_fd, KVM_SET_USER_MEMORY_REGION, &mr) < 0 || sz <= 0)
		return -ENODEV;
	v->vcpu_fd = ioctl(v->vm_fd, KVM_CREATE_VCPU, 0);
	if (v->vcpu_fd < 0)
		return -errno;
	v->run_size = (size_t)sz;
	v->run = mmap(NULL, v->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, v->vcpu_fd, 0);
	if (v->run == MAP_FAILED || ioctl(v->vcpu_fd, KVM_GET_SREGS, &sr) < 0)
		return -ENODEV;
	sr.cs.base = 0;
	sr.cs.selector = 0;
	if (ioctl(v->vcpu_fd, KVM_SET_SREGS, &sr) < 0 || ioctl(v->vcpu_fd, KVM_SET_REGS, &r) < 0)
		return -ENODEV;
	return 0;
}

int spin_vcpu_init(struct spin_vcpu *v, bool kvm)
{
	int ret;

	memset(v, 0, sizeof(*v));
	/* vmm/kick.c's handler: a kick from the daemon sets the holder's immediate_exit too. */
	ret = kick_init();
	if (ret)
		return ret;
	v->kvm = kvm;
	v->kvm_fd = v->vm_fd = v->vcpu_fd = -1;
	v->run = &v->own;
	if (!kvm)
		return 0;
	v->run = NULL;
	return spin_kvm_init(v);
}

void spin_vcpu_exit(struct spin_vcpu *v)
{
	if (v->kvm && v->run && v->run != MAP_FAILED)
		munmap(v->run, v->run_size);
	if (v->mem && v->mem != MAP_FAILED)
		munmap(v->mem, 4096);
	if (v->vcpu_fd >= 0)
		close(v->vcpu_fd);
	if (v->vm_fd >= 0)
		close(v->vm_fd);
	if (v->kvm_fd >= 0)
		close(v->kvm_fd);
}

int spin_vcpu_run(struct spin_vcpu *v)
{
	int ret;

	for (;;) {
		if (!v->kvm) {
			/* The hog kind's loop on the thread backend (thread_cpu.c's thread_work()). */
			static struct payload_page page;

			do
				work_unit(&page);
			while (!__atomic_load_n(&v->run->immediate_exit, __ATOMIC_RELAXED) &&
			       !(v->exit_word &&
				 __atomic_load_n(v->exit_word, __ATOMIC_RELAXED) != v->exit_val));
			ret = 0;
			break;
		}
		ret = ioctl(v->vcpu_fd, KVM_RUN, 0);
		if (ret < 0 && errno == EINTR) {
			ret = 0;
			break;
		}
		if (ret < 0)
			return -errno;
		/* An exit of its own (none is expected from `jmp $`): back in. */
	}
	__atomic_store_n(&v->run->immediate_exit, 0, __ATOMIC_SEQ_CST);
	return ret;
}

void spin_vcpu_kick(struct spin_vcpu *v, pthread_t thread)
{
	__atomic_store_n(&v->run->immediate_exit, 1, __ATOMIC_SEQ_CST);
	pthread_kill(thread, VCPU_KICK_SIGNAL);
}
