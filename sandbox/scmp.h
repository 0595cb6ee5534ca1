/* scmp.h - the libseccomp functions the sandbox's filter uses, reached through
 * sandbox/seccomp_dl.c, which loads libseccomp.so.2 with dlopen() at the first call.
 *
 * Each has the meaning, arguments and return values of the libseccomp function of the
 * same name without the sbx_scmp_ prefix (seccomp_init(3) ...). Without the library the
 * calls fail: sbx_scmp_init() and sbx_scmp_syscall_resolve_num_arch() return NULL, the
 * others -ENOSYS, and `dcg sandbox` says it cannot build its filter. The string
 * sbx_scmp_syscall_resolve_num_arch() returns is the caller's to free(). */
#ifndef DCG_SANDBOX_SCMP_H
#define DCG_SANDBOX_SCMP_H

#include <seccomp.h>
#include <stdint.h>

scmp_filter_ctx sbx_scmp_init(uint32_t def_action);
void sbx_scmp_release(scmp_filter_ctx ctx);
int sbx_scmp_attr_set(scmp_filter_ctx ctx, enum scmp_filter_attr attr, uint32_t value);
int sbx_scmp_rule_add_array(scmp_filter_ctx ctx, uint32_t action, int syscall, unsigned int arg_cnt,
			    const struct scmp_arg_cmp *arg_array);
/* the variadic form: at most six comparisons (-EINVAL beyond) */
int sbx_scmp_rule_add(scmp_filter_ctx ctx, uint32_t action, int syscall, unsigned int arg_cnt, ...);
int sbx_scmp_export_bpf(const scmp_filter_ctx ctx, int fd);
char *sbx_scmp_syscall_resolve_num_arch(uint32_t arch_token, int num);

#endif /* DCG_SANDBOX_SCMP_H */
