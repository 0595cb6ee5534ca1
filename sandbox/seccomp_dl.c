/* seccomp_dl.c - libseccomp as the sandbox reaches it (scmp.h is the manual): each call
 * loads the library with dlopen() at its first use and forwards to it.
 *
 * Every start of dcg (the hook starts once per tool call) would otherwise map and
 * relocate libseccomp, which only `dcg sandbox` uses. libseccomp (LGPL-2.1) stays a
 * shared library the user can replace, found by the dynamic loader. The loader belongs
 * to the sandbox: filter.c calls these sbx_scmp_* names, so no binary depends on which
 * definition of a seccomp_* name a link order picks. */
#include "scmp.h"

#include <dlfcn.h>
#include <errno.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stddef.h>

#define SECCOMP_SONAME "libseccomp.so.2"

/* The library's function of that name, or NULL. */
static void *sym(const char *name)
{
	static void *lib;
	void *h = __atomic_load_n(&lib, __ATOMIC_ACQUIRE);

	if (!h) { /* two threads may both open it: dlopen counts, the handle is the same */
		h = dlopen(SECCOMP_SONAME, RTLD_NOW | RTLD_LOCAL);
		if (!h)
			return NULL;
		__atomic_store_n(&lib, h, __ATOMIC_RELEASE);
	}
	return dlsym(h, name);
}

scmp_filter_ctx sbx_scmp_init(uint32_t def_action)
{
	scmp_filter_ctx (*f)(uint32_t) = (scmp_filter_ctx(*)(uint32_t))sym("seccomp_init");

	return f ? f(def_action) : NULL;
}

void sbx_scmp_release(scmp_filter_ctx ctx)
{
	void (*f)(scmp_filter_ctx) = (void (*)(scmp_filter_ctx))sym("seccomp_release");

	if (f)
		f(ctx);
}

int sbx_scmp_attr_set(scmp_filter_ctx ctx, enum scmp_filter_attr attr, uint32_t value)
{
	int (*f)(scmp_filter_ctx, enum scmp_filter_attr, uint32_t) =
	    (int (*)(scmp_filter_ctx, enum scmp_filter_attr, uint32_t))sym("seccomp_attr_set");

	return f ? f(ctx, attr, value) : -ENOSYS;
}

int sbx_scmp_rule_add_array(scmp_filter_ctx ctx, uint32_t action, int syscall, unsigned int arg_cnt,
			    const struct scmp_arg_cmp *arg_array)
{
	int (*f)(scmp_filter_ctx, uint32_t, int, unsigned int, const struct scmp_arg_cmp *) =
	    (int (*)(scmp_filter_ctx, uint32_t, int, unsigned int, const struct scmp_arg_cmp *))sym(
		"seccomp_rule_add_array");

	return f ? f(ctx, action, syscall, arg_cnt, arg_array) : -ENOSYS;
}

/* The variadic form: its comparisons gathered into an array (at most one per argument
 * of a system call, six). */
int sbx_scmp_rule_add(scmp_filter_ctx ctx, uint32_t action, int syscall, unsigned int arg_cnt, ...)
{
	struct scmp_arg_cmp cmp[6];
	va_list ap;

	if (arg_cnt > sizeof(cmp) / sizeof(cmp[0]))
		return -EINVAL;
	va_start(ap, arg_cnt);
	for (unsigned int i = 0; i < arg_cnt; i++)
		cmp[i] = va_arg(ap, struct scmp_arg_cmp);
	va_end(ap);
	return sbx_scmp_rule_add_array(ctx, action, syscall, arg_cnt, cmp);
}

int sbx_scmp_export_bpf(const scmp_filter_ctx ctx, int fd)
{
	int (*f)(const scmp_filter_ctx, int) =
	    (int (*)(const scmp_filter_ctx, int))sym("seccomp_export_bpf");

	return f ? f(ctx, fd) : -ENOSYS;
}

char *sbx_scmp_syscall_resolve_num_arch(uint32_t arch_token, int num)
{
	char *(*f)(uint32_t, int) =
	    (char *(*)(uint32_t, int))sym("seccomp_syscall_resolve_num_arch");

	return f ? f(arch_token, num) : NULL;
}
