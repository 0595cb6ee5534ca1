/* hook_bind.h - given first to every object of dcg (-include, cli/module.mk): the libc
 * and cJSON functions that every `dcg hook` call runs are called through the GOT, bound
 * once when dcg starts, instead of through the PLT, bound lazily at their first call.
 * A lazy binding looks the symbol up the same way, but through ld.so's trampoline, which
 * saves and restores the whole vector state (2.5 KiB on the stack, at the depth of the
 * first call) around it. The other functions of dcg stay lazy: binding all of them at
 * start (-z now) costs far more than the few a call runs. */
#ifndef DCG_HOOK_BIND_H
#define DCG_HOOK_BIND_H

#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define DCG_BIND_NOW __attribute__((noplt))

/* What every kind of call runs (allowed, refused, a path decision, a file tool), from
 * LD_DEBUG=bindings: cli/README.md, "cost". Not memcpy, memset, strlen and strcmp: the
 * compiler's own calls of them (a struct copied, a builtin not expanded) and the
 * embedded image's object still go through the PLT, so they would be bound twice. */
extern void *malloc(size_t size) DCG_BIND_NOW;
extern void *calloc(size_t n, size_t size) DCG_BIND_NOW;
extern void *realloc(void *p, size_t size) DCG_BIND_NOW;
extern void free(void *p) DCG_BIND_NOW;
extern char *strdup(const char *s) DCG_BIND_NOW;
extern size_t strnlen(const char *s, size_t max) DCG_BIND_NOW;
extern int strcasecmp(const char *a, const char *b) DCG_BIND_NOW;
extern char *strchr(const char *s, int c) DCG_BIND_NOW;
extern void *memmove(void *d, const void *s, size_t n) DCG_BIND_NOW;
extern int memcmp(const void *a, const void *b, size_t n) DCG_BIND_NOW;
extern void *memchr(const void *s, int c, size_t n) DCG_BIND_NOW;
extern void *memmem(const void *h, size_t hl, const void *n, size_t nl) DCG_BIND_NOW;
extern char *getenv(const char *name) DCG_BIND_NOW;
extern int *__errno_location(void) DCG_BIND_NOW;
extern int sigaction(int sig, const struct sigaction *act, struct sigaction *old) DCG_BIND_NOW;
extern unsigned int alarm(unsigned int seconds) DCG_BIND_NOW;
extern ssize_t read(int fd, void *buf, size_t n) DCG_BIND_NOW;
extern int access(const char *path, int mode) DCG_BIND_NOW;
extern int open(const char *path, int flags, ...) DCG_BIND_NOW;
extern int stat(const char *path, struct stat *st) DCG_BIND_NOW;
extern cJSON *cJSON_ParseWithLength(const char *value, size_t length) DCG_BIND_NOW;
extern cJSON_bool cJSON_IsObject(const cJSON *item) DCG_BIND_NOW;
extern cJSON_bool cJSON_IsString(const cJSON *item) DCG_BIND_NOW;
extern cJSON *cJSON_GetObjectItemCaseSensitive(const cJSON *object,
					       const char *string) DCG_BIND_NOW;

#endif /* DCG_HOOK_BIND_H */
