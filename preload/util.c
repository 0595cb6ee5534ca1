/* util.c - small pure helpers of the guard: flag mapping, PATH search, messages,
 * executable kinds. No policy calls, no malloc, no stdio: unit tests drive them. */
#include "guard.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

__thread int *guard_errno_at __attribute__((tls_model("initial-exec")));

int *guard_errno_location(void)
{
	int *at = guard_errno_at;

	return __builtin_expect(at != NULL, 1) ? at : (guard_errno_at = __errno_location());
}

/* Sixteen bytes at a time (SSE2, which every x86-64 has), else a word at a time:
 * aligned reads past the end stay in the string's last block, so in its page (which a
 * sanitizer cannot know). */
__attribute__((no_sanitize("address"), optimize("no-tree-loop-distribute-patterns"))) size_t
guard_strnlen(const char *s, size_t max)
{
#if defined(__SSE2__)
	const char *a = (const char *)((uintptr_t)s & ~(uintptr_t)15);
	const __m128i zero = _mm_setzero_si128();
	unsigned m = (unsigned)_mm_movemask_epi8(
			 _mm_cmpeq_epi8(_mm_load_si128((const __m128i *)(const void *)a), zero)) >>
		     (s - a);
	size_t n;

	if (m)
		n = (size_t)__builtin_ctz(m);
	else
		for (n = (size_t)(a + 16 - s);; n += 16) {
			if (n >= max)
				return max;
			m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
			    _mm_load_si128((const __m128i *)(const void *)(s + n)), zero));
			if (m) {
				n += (size_t)__builtin_ctz(m);
				break;
			}
		}
	return n < max ? n : max;
#else
	typedef uint64_t __attribute__((may_alias)) word;
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	size_t n = 0;

	while (n < max && ((uintptr_t)(s + n) & 7)) {
		if (!s[n])
			return n;
		n++;
	}
	while (n + 8 <= max) {
		uint64_t v = *(const word *)(const void *)(s + n);

		if ((v - ones) & ~v & highs)
			break;
		n += 8;
	}
	while (n < max && s[n])
		n++;
	return n;
#endif
}

const char *guard_copy_path(const char *path, char *buf, size_t size)
{
	size_t n;

	if (!path)
		return NULL;
	n = guard_strnlen(path, size);
	if (n == size)
		return NULL;
	memcpy(buf, path, n + 1);
	return buf;
}

enum pol_op guard_open_op(int oflags, unsigned *flags)
{
	return rt_open_op(oflags, RT_EXISTS_UNKNOWN, flags);
}

enum pol_op guard_fopen_op(const char *mode, unsigned *flags)
{
	int plus = 0, excl = 0;
	const char *m;

	if (!mode || !*mode)
		return POL_OP_READ;
	for (m = mode + 1; *m && *m != ','; m++) {
		if (*m == '+')
			plus = 1;
		else if (*m == 'x')
			excl = 1;
	}
	switch (mode[0]) {
	case 'w':
		if (excl)
			*flags |= POL_PATH_NOFOLLOW;
		return excl ? POL_OP_CREATE : POL_OP_TRUNCATE;
	case 'a':
		return POL_OP_WRITE;
	default:
		return plus ? POL_OP_WRITE : POL_OP_READ;
	}
}

int guard_fopen_excl_mode(const char *mode, char *out, size_t size)
{
	size_t n, opts;

	if (!mode || (mode[0] != 'w' && mode[0] != 'a'))
		return 0;
	n = guard_strnlen(mode, GUARD_FOPEN_MODE_MAX);
	for (opts = 1; opts < n && mode[opts] != ','; opts++)
		if (mode[opts] == 'x') { /* exclusive already: as it is */
			if (n >= GUARD_FOPEN_MODE_MAX)
				return 0;
			if (out && n < size)
				memcpy(out, mode, n + 1);
			return !out || n < size;
		}
	/* glibc reads six option letters after the first: one more must still fit */
	if (opts > 6 || n + 1 >= GUARD_FOPEN_MODE_MAX)
		return 0;
	if (!out)
		return 1;
	if (n + 2 > size)
		return 0;
	out[0] = mode[0];
	out[1] = 'x';
	memcpy(out + 2, mode + 1, n); /* the rest and its NUL */
	return 1;
}

static int is_executable_file(const char *path)
{
	struct stat st;

	if (access(path, X_OK) != 0 || stat(path, &st) != 0)
		return 0;
	return S_ISREG(st.st_mode);
}

int guard_path_search(const char *file, const char *path_env, char *out, size_t size)
{
	const char *p, *end;
	size_t flen;

	if (!file || !*file)
		return -ENOENT;
	if (strchr(file, '/'))
		return guard_copy_path(file, out, size) ? 0 : -ENAMETOOLONG;
	if (!path_env)
		path_env = "/bin:/usr/bin"; /* glibc's default */
	flen = strlen(file);
	for (p = path_env;; p = end + 1) {
		size_t dlen;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		dlen = (size_t)(end - p);
		/* An empty entry is the working directory. */
		if (dlen == 0) {
			if (flen + 1 <= size) {
				memcpy(out, file, flen + 1);
				if (is_executable_file(out))
					return 0;
			}
		} else if (dlen + 1 + flen + 1 <= size) {
			memcpy(out, p, dlen);
			out[dlen] = '/';
			memcpy(out + dlen + 1, file, flen + 1);
			if (is_executable_file(out))
				return 0;
		}
		if (!*end)
			break;
	}
	return -ENOENT;
}

enum guard_exe_kind guard_exe_kind(const char *path)
{
	enum guard_exe_kind kind;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return GUARD_EXE_OTHER;
	kind = guard_exe_kind_fd(fd);
	close(fd);
	return kind;
}

enum guard_exe_kind guard_exe_kind_fd(int fd)
{
	return guard_exe_kind_sys(fd, NULL);
}

/* fstat, pread and the ids, through sys (libc's syscall()) when given. */
static int k_fstat(long (*sys)(long, ...), int fd, struct stat *st)
{
	return sys ? (int)sys(SYS_fstat, (long)fd, (long)st, 0L, 0L) : fstat(fd, st);
}

static ssize_t k_pread(long (*sys)(long, ...), int fd, void *b, size_t n, off_t at)
{
	return sys ? (ssize_t)sys(SYS_pread64, (long)fd, (long)b, (long)n, (long)at)
		   : pread(fd, b, n, at);
}

enum guard_exe_kind guard_exe_kind_sys(int fd, long (*sys)(long nr, ...))
{
	enum guard_exe_kind kind = GUARD_EXE_OTHER;
	/* The ELF header and the first program headers (PT_INTERP comes early): one
	 * read. Small: this runs in every fork child that execs, where each stack page
	 * written is a page fault. */
	union {
		unsigned char b[512];
		Elf64_Ehdr eh;
	} head;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	struct stat st;
	ssize_t got;

	if (k_fstat(sys, fd, &st) != 0 || !S_ISREG(st.st_mode))
		return GUARD_EXE_OTHER;
	/* The loader ignores LD_PRELOAD for set-id programs run by someone else. */
	if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
	    ((st.st_mode & S_ISGID) && st.st_gid != getegid()))
		return GUARD_EXE_SETUID;
	got = k_pread(sys, fd, head.b, sizeof(head.b), 0);
	if (got < (ssize_t)sizeof(eh))
		return GUARD_EXE_OTHER;
	eh = head.eh;
	if (eh.e_ident[EI_MAG0] != ELFMAG0 || eh.e_ident[EI_MAG1] != ELFMAG1 ||
	    eh.e_ident[EI_MAG2] != ELFMAG2 || eh.e_ident[EI_MAG3] != ELFMAG3 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr))
		return GUARD_EXE_OTHER;
	kind = GUARD_EXE_STATIC;
	for (unsigned i = 0; i < eh.e_phnum && i < 128; i++) {
		unsigned long long at = eh.e_phoff + (unsigned long long)i * sizeof(ph);

		if (at <= (unsigned long long)got - sizeof(ph)) /* got >= sizeof(eh) > sizeof(ph) */
			memcpy(&ph, head.b + at, sizeof(ph));
		else if (k_pread(sys, fd, &ph, sizeof(ph), (off_t)at) != (ssize_t)sizeof(ph))
			return GUARD_EXE_OTHER;
		if (ph.p_type == PT_INTERP)
			return GUARD_EXE_DYNAMIC;
	}
	return kind;
}
