/* rt.c - the runtime core: syscall table lookups, open flags, lines, the ask. */
#include "rt.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <poll.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

const struct rt_syscall rt_syscalls[] = {
#define RT_SYSCALL(name, kind, fl, dfd, path, op, pf, dfd2, path2, op2, pf2) \
	{#name, RT_NR(name), kind, fl, dfd, path, dfd2, path2, op, op2, pf, pf2},
#include "syscalls.def"
#undef RT_SYSCALL
};
const size_t rt_syscall_count = sizeof(rt_syscalls) / sizeof(rt_syscalls[0]);
/* every name with its NUL (an array one byte too short would drop it silently) */
#define RT_SYSCALL(name, ...)                                \
	_Static_assert(sizeof(#name) <= RT_SYSCALL_NAME_MAX, \
		       "syscall name too long for struct rt_syscall: " #name);
#include "syscalls.def"
#undef RT_SYSCALL

const struct rt_syscall *rt_syscall_find(long nr)
{
	switch (nr) {
#define RT_SYSCALL(name, ...) \
	case RT_NR(name):     \
		return &rt_syscalls[RT_ROW_##name];
#include "syscalls.def"
#undef RT_SYSCALL
	default:
		return NULL;
	}
}

static void one_arg(struct rt_arg *o, const long a[6], int dfd, int path, enum pol_op op,
		    unsigned pflags)
{
	o->dirfd = dfd < 0 ? AT_FDCWD : (int)a[dfd];
	o->path = path < 0 ? NULL : (const char *)a[path];
	o->op = op;
	o->pflags = pflags;
	o->by_fd = path < 0;
}

unsigned rt_syscall_pflags(const struct rt_syscall *s, int which, long fl)
{
	unsigned pf = which ? s->pflags2 : s->pflags;

	if (which || s->fl < 0 || (s->kind != RT_PATH && s->kind != RT_HANDLE) ||
	    s->nr == RT_NR(renameat2))
		return pf;
	/* AT_* flags */
	if (fl & AT_SYMLINK_NOFOLLOW)
		pf |= POL_PATH_NOFOLLOW;
	if ((s->nr == RT_NR(linkat) || s->nr == RT_NR(name_to_handle_at)) &&
	    (fl & AT_SYMLINK_FOLLOW))
		pf &= ~(unsigned)POL_PATH_NOFOLLOW;
	if (s->nr == RT_NR(unlinkat) && (fl & AT_REMOVEDIR))
		pf |= POL_PATH_IS_DIR;
	return pf;
}

int rt_syscall_args(const struct rt_syscall *s, const long a[6], struct rt_arg out[2])
{
	int n = 0;
	long fl = s->fl >= 0 ? a[(int)s->fl] : 0;

	if (s->kind != RT_PATH && s->kind != RT_FD && s->kind != RT_HANDLE)
		return 0;
	if (s->path < 0 && s->dfd < 0)
		return 0;
	one_arg(&out[n++], a, s->dfd, s->path, s->op, rt_syscall_pflags(s, 0, fl));
	if (s->path2 >= 0)
		one_arg(&out[n++], a, s->dfd2, s->path2, s->op2, rt_syscall_pflags(s, 1, fl));
	if (s->nr == RT_NR(renameat2)) {
		if (fl & RENAME_EXCHANGE)
			out[1].op = POL_OP_RENAME_FROM;
		return n;
	}
	if (s->fl < 0 || s->kind == RT_FD)
		return n;
	/* An empty path with AT_EMPTY_PATH (or utimensat's NULL path) names the descriptor. */
	if (out[0].path && !out[0].path[0] && (fl & AT_EMPTY_PATH) && out[0].dirfd != AT_FDCWD)
		out[0].by_fd = 1;
	return n;
}

/* futimesat and utimensat take a NULL path for the descriptor itself; the table says
 * so by the caller checking path == NULL with a dirfd (see the preload and sandbox). */

enum pol_op rt_open_op(int oflags, enum rt_exists exists, unsigned *pflags)
{
	int acc = oflags & O_ACCMODE;
	int writes = acc == O_WRONLY || acc == O_RDWR;

	if (oflags & O_NOFOLLOW)
		*pflags |= POL_PATH_NOFOLLOW;
	if ((oflags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		*pflags |= POL_PATH_NOFOLLOW;
	if (oflags & O_PATH)
		return POL_OP_READ;
	if ((oflags & O_TMPFILE) == O_TMPFILE)
		return POL_OP_CREATE;
	if ((oflags & O_CREAT) && (exists == RT_EXISTS_NOT || exists == RT_EXISTS_UNKNOWN))
		return POL_OP_CREATE;
	if (oflags & O_TRUNC)
		return POL_OP_TRUNCATE;
	if (writes)
		return POL_OP_WRITE;
	if (exists == RT_EXISTS_DIR || (oflags & O_DIRECTORY))
		return POL_OP_LIST;
	return POL_OP_READ;
}

int rt_open_may_excl(int oflags)
{
	return (oflags & O_CREAT) && (oflags & O_TMPFILE) != O_TMPFILE && !(oflags & O_PATH) &&
	       !(oflags & O_DIRECTORY);
}

/* ---- sessions ------------------------------------------------------------------- */

static long long rt_stamp_ns(const struct statx_timestamp *t)
{
	return (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
}

/* The stamp of an object looked at with statx(): its birth, else its change time. */
static long long rt_born(const struct statx *stx)
{
	return rt_stamp_ns((stx->stx_mask & STATX_BTIME) ? &stx->stx_btime : &stx->stx_ctime);
}

int rt_obj_at(int dirfd, const char *path, struct rt_obj *o)
{
	struct statx stx;
	int saved = errno, rc = 0;

	if (statx(dirfd, path,
		  AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | (path[0] ? 0 : AT_EMPTY_PATH),
		  STATX_BTIME | STATX_CTIME | STATX_TYPE | STATX_MODE | STATX_INO, &stx) != 0)
		rc = -errno;
	else {
		o->dev = ((uint64_t)stx.stx_dev_major << 32) | stx.stx_dev_minor;
		o->ino = stx.stx_ino;
		o->born = rt_born(&stx);
		o->mode = stx.stx_mode;
		o->has_btime = (stx.stx_mask & STATX_BTIME) != 0;
	}
	errno = saved;
	return rc;
}

int rt_created_since(int dirfd, const char *path, long long start_ns)
{
	struct rt_obj o;
	int rc;

	if (!start_ns || !path)
		return 0;
	rc = rt_obj_at(dirfd, path, &o);
	/* Nothing there: nothing to protect (git unlinks MERGE_HEAD whether or not it
	 * exists); the call gets the kernel's ENOENT. */
	if (rc < 0)
		return rc == -ENOENT;
	return o.born > start_ns;
}

static long long rt_coarse_now(void)
{
	struct timespec now;

	if (clock_gettime(CLOCK_REALTIME_COARSE, &now) != 0)
		clock_gettime(CLOCK_REALTIME, &now);
	return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* The session starts at the stamp of the file fd made now. A file made earlier was
 * stamped at or before it: every stamp is the coarse clock, or (multigrain
 * timestamps) a fine one that raised the floor every later coarse stamp starts
 * from. Waits until the coarse clock has passed it, so that every file made from
 * then on is stamped strictly later, whatever file system it lies on. */
static long long rt_session_from(int fd)
{
	struct statx stx;
	long long start;
	int saved = errno;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_BTIME | STATX_CTIME, &stx) != 0) {
		errno = saved;
		return -1;
	}
	start = rt_born(&stx);
	/* one tick at most (HZ 100: 10 ms); bounded whatever the clock does */
	for (int i = 0; i < 200 && rt_coarse_now() <= start; i++) {
		struct timespec nap = {0, 100000};

		nanosleep(&nap, NULL);
	}
	errno = saved;
	return start;
}

long long rt_session_now(void)
{
	static const char *const dirs[] = {"/tmp", "/var/tmp", "/dev/shm", "."};
	long long start = -1;
	int saved = errno;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && start < 0; i++) {
		int fd = open(dirs[i], O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

		if (fd >= 0) {
			start = rt_session_from(fd);
			close(fd);
		}
	}
	if (start < 0) {
		/* No file can be made: the coarse clock, and one of its ticks waited out.
		 * A file stamped finely (multigrain) in that tick may pass for older. */
		start = rt_coarse_now();
		for (int i = 0; i < 200 && rt_coarse_now() <= start; i++) {
			struct timespec nap = {0, 100000};

			nanosleep(&nap, NULL);
		}
	}
	errno = saved;
	return start;
}

long long rt_session_begin(const char *file)
{
	int saved = errno,
	    fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	long long start;

	if (fd < 0) {
		start = -errno;
		errno = saved;
		return start;
	}
	start = rt_session_from(fd);
	close(fd);
	if (start < 0) {
		unlink(file);
		start = -EIO;
	}
	errno = saved;
	return start;
}

size_t rt_read_args(const char *path, char *buf, size_t size)
{
	int saved = errno, fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t n;

	if (fd >= 0) {
		while (got + 1 < size && (n = read(fd, buf + got, size - 1 - got)) > 0)
			got += (size_t)n;
		close(fd);
	}
	if (got && buf[got - 1] != '\0')
		buf[got++] = '\0';
	errno = saved;
	return got;
}

/* Field `want` (1-based, as proc(5) counts; 3 or more) of /proc/PID/stat (pid 0: this
 * process), a number; 0 when unreadable. */
static unsigned long long proc_stat_field(pid_t pid, int want)
{
	char path[48], buf[1024];
	struct rt_msg m;
	unsigned long long v = 0;
	int saved = errno, fd, field = 2;
	ssize_t n;

	rt_msg_init(&m, path, sizeof(path));
	rt_msg_add(&m, "/proc/");
	if (pid > 0)
		rt_msg_addu(&m, (unsigned long)pid);
	else
		rt_msg_add(&m, "self");
	rt_msg_add(&m, "/stat");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	errno = saved;
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* PID (COMM) STATE ...: the command may hold spaces and ')', so count from the
	 * last ')' */
	const char *c = strrchr(buf, ')');
	for (c = c ? c + 1 : buf + n; *c && field < want; c++)
		field += *c == ' ' && c[1] != ' ';
	for (; *c >= '0' && *c <= '9'; c++)
		v = v * 10 + (unsigned)(*c - '0');
	return field == want ? v : 0;
}

unsigned long long rt_proc_start(pid_t pid)
{
	return proc_stat_field(pid, 22); /* starttime */
}

/* dcg's commands that change the guard itself (cli/main.c's names, '-' read as '_'
 * as its lookup does): what a person does at a terminal, never dcg's binary inside a
 * guard, whatever the exec's argv[0] or spelling. */
static const char *const dcg_self_changing[] = {"allow",   "allow_once", "unallow",  "trust",
						"untrust", "install",	 "uninstall"};

int rt_dcg_changes_guard(const char *args, size_t len)
{
	const char *a = args, *end = args + len;
	int skip_next = 0;

	if (!args || !len)
		return 1;			/* unknown: not dcg's ordinary work */
	a += strnlen(a, (size_t)(end - a)) + 1; /* argv[0]: any name */
	for (; a < end; a += strnlen(a, (size_t)(end - a)) + 1) {
		char key[16];
		size_t k;

		if (skip_next) {
			skip_next = 0;
			continue;
		}
		if (a[0] == '-') { /* global options: --policy FILE takes the next word */
			skip_next = !strcmp(a, "--policy");
			continue;
		}
		for (k = 0; a[k] && k < sizeof(key) - 1; k++)
			key[k] = a[k] == '-' ? '_' : a[k];
		key[k] = '\0';
		if (a[k])
			return 0; /* longer than any command name */
		for (size_t i = 0; i < sizeof(dcg_self_changing) / sizeof(dcg_self_changing[0]);
		     i++)
			if (!strcmp(key, dcg_self_changing[i]))
				return 1;
		return 0;
	}
	return 0;
}

int rt_ask_terminal_ok(pid_t agent, unsigned long long agent_start)
{
	unsigned long long mine, theirs;

	if (agent <= 0 || !agent_start)
		return 1;	      /* no agent to compare with: a shell prefix's own terminal */
	mine = proc_stat_field(0, 7); /* tty_nr: the controlling terminal */
	theirs = proc_stat_field(agent, 7);
	/* the agent still the process that started then (its pid not taken over) */
	if (proc_stat_field(agent, 22) != agent_start)
		return 0;
	return mine != 0 && mine == theirs;
}

/* The digits at c (one at least, and no more than max) into *v; the end, or NULL. */
static const char *rt_digits(const char *c, unsigned long long max, unsigned long long *v)
{
	const char *from = c;

	for (*v = 0; *c >= '0' && *c <= '9'; c++) {
		*v = *v * 10 + (unsigned)(*c - '0');
		if (*v > max)
			return NULL;
	}
	return c == from ? NULL : c;
}

/* Whether file is an absolute path with no empty, "." or ".." component. */
static int rt_clean_abs(const char *file)
{
	if (file[0] != '/')
		return 0;
	for (const char *c = file; *c; c++) {
		size_t n;

		if (*c != '/')
			continue;
		n = strcspn(c + 1, "/");
		if (n == 0 || (n == 1 && c[1] == '.') || (n == 2 && c[1] == '.' && c[2] == '.'))
			return 0;
	}
	return 1;
}

static int rt_session_fields(const char *c, struct rt_session *s)
{
	unsigned long long pid, t, ns = 0, agent_start = 0;
	int has_ns = 0;

	if (!c || !(c = rt_digits(c, 0x7fffffff, &pid)) || *c++ != '.' ||
	    !(c = rt_digits(c, 0x7fffffffffULL, &t)) || !t)
		return -EINVAL;
	if (*c == '.') {
		has_ns = 1;
		if (!(c = rt_digits(c + 1, 999999999ULL, &ns)))
			return -EINVAL;
		if (*c == '.' && !(c = rt_digits(c + 1, ~0ULL / 10 - 9, &agent_start)))
			return -EINVAL;
	}
	if (*c == ':' && !rt_clean_abs(c + 1))
		return -EINVAL;
	if (*c && *c != ':')
		return -EINVAL;
	s->agent = (pid_t)pid;
	s->agent_start = pid ? agent_start : 0;
	s->start_ns =
	    has_ns ? (long long)(t * 1000000000ULL + ns) : (long long)(t + 1) * 1000000000LL;
	s->kept = *c == ':' ? c + 1 : NULL;
	return 0;
}

int rt_session_parse(const char *value, struct rt_session *s)
{
	int rc = rt_session_fields(value, s);

	if (rc < 0)
		memset(s, 0, sizeof(*s));
	return rc;
}

int rt_session_format(char *buf, size_t size, const struct rt_session *s)
{
	char ns[10];
	struct rt_msg m;
	long long sub = s->start_ns % 1000000000LL;

	for (int i = 8; i >= 0; i--, sub /= 10)
		ns[i] = (char)('0' + sub % 10);
	ns[9] = '\0';
	rt_msg_init(&m, buf, size);
	rt_msg_addu(&m, (unsigned long)(s->agent > 0 ? s->agent : 0));
	rt_msg_add(&m, ".");
	rt_msg_addu(&m, (unsigned long)(s->start_ns / 1000000000LL));
	rt_msg_add(&m, ".");
	rt_msg_add(&m, ns);
	rt_msg_add(&m, ".");
	rt_msg_addu(&m, (unsigned long)(s->agent > 0 ? s->agent_start : 0));
	if (s->kept) {
		rt_msg_add(&m, ":");
		rt_msg_add(&m, s->kept);
	}
	if (!size || m.len >= size - 1) {
		if (size)
			buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	return (int)m.len;
}

int rt_session_is_agent(const struct rt_session *s)
{
	return s->agent > 0 && s->agent_start && getpid() == s->agent &&
	       rt_proc_start(0) == s->agent_start;
}

/* ---- kept names ------------------------------------------------------------------ */

void rt_kept_of(const struct rt_obj *o, struct rt_kept *k)
{
	memset(k, 0, sizeof(*k));
	k->dev = o->dev;
	k->ino = o->ino;
	k->born = o->has_btime ? o->born : 0;
}

int rt_kept_add(const char *file, const struct rt_obj *o)
{
	struct rt_kept k;
	int saved = errno, rc = 0, fd;

	if (!file)
		return -EINVAL;
	fd = open(file, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		rc = -errno;
		errno = saved;
		return rc;
	}
	rt_kept_of(o, &k);
	if (write(fd, &k, sizeof(k)) != (ssize_t)sizeof(k))
		rc = -EIO;
	close(fd);
	errno = saved;
	return rc;
}

int rt_kept_has(const char *file, const struct rt_obj *o)
{
	struct rt_kept want, buf[128];
	int saved = errno, found = 0, fd;
	off_t off = 0;
	ssize_t n;

	if (!file) {
		errno = saved;
		return 0;
	}
	/* a file that cannot be read keeps everything (fail closed) */
	if ((fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0) {
		errno = saved;
		return 1;
	}
	rt_kept_of(o, &want);
	while (!found && (n = pread(fd, buf, sizeof(buf), off)) >= (ssize_t)sizeof(buf[0])) {
		for (size_t i = 0; i < (size_t)n / sizeof(buf[0]) && !found; i++)
			found = !memcmp(&buf[i], &want, sizeof(want));
		off += n - n % (ssize_t)sizeof(buf[0]);
	}
	if (n < 0)
		found = 1;
	close(fd);
	errno = saved;
	return found;
}

/* ---- messages ---------------------------------------------------------------------- */

void rt_msg_init(struct rt_msg *m, char *buf, size_t size)
{
	m->buf = buf;
	m->len = 0;
	m->size = size;
	if (size)
		buf[0] = '\0';
}

void rt_msg_addn(struct rt_msg *m, const char *s, size_t n)
{
	size_t room;

	if (!m->size || !s)
		return;
	room = m->size - 1 - m->len;
	if (n > room)
		n = room;
	memcpy(m->buf + m->len, s, n);
	m->len += n;
	m->buf[m->len] = '\0';
}

void rt_msg_add(struct rt_msg *m, const char *s)
{
	if (s)
		rt_msg_addn(m, s, strlen(s));
}

void rt_msg_addu(struct rt_msg *m, unsigned long v)
{
	char tmp[24];
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	rt_msg_addn(m, tmp + i, sizeof(tmp) - i);
}

const char *rt_shown(const char *input, const struct pol_result *r)
{
	if ((r->detection == POL_DET_PATH || r->detection == POL_DET_SCOPE) && r->path[0] == '/')
		return r->path;
	return input ? input : "?";
}

unsigned rt_told_next(struct rt_told *t, const char *line, size_t len)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)line[i]) * 1099511628211ull;
	if (__atomic_exchange_n(&t->last, h, __ATOMIC_RELAXED) == h)
		return RT_TOLD_MAX + 1;
	return __atomic_fetch_add(&t->count, 1, __ATOMIC_RELAXED);
}

void rt_msg_add_argv(struct rt_msg *m, char *const argv[])
{
	for (size_t i = 0; argv[i] && m->len < m->size - 1; i++) {
		if (i)
			rt_msg_add(m, " ");
		rt_msg_add(m, argv[i]);
	}
}

/* Whether call starts a program, whose check also judges the paths its words name. */
static int rt_call_runs(const char *call)
{
	return strncmp(call, "exec", 4) == 0 || strcmp(call, "fexecve") == 0 ||
	       strncmp(call, "posix_spawn", 11) == 0 || strcmp(call, "system") == 0 ||
	       strcmp(call, "popen") == 0;
}

/* A path entry with a reason of its own (runsLater: what runs, when, from where) says
 * it, and its first suggestion: the kinds' reasons ("read-only path: ...", or the
 * short built-in "read-only path") say nothing the kind and pattern do not. */
static void rt_own_reason(struct rt_msg *m, const struct pol_result *r)
{
	static const char *const kind_words[] = {"zero-access path", "read-only path",
						 "no-delete path"};
	const char *why = r->reason;

	if (!why || !why[0])
		return;
	for (size_t k = 0; k < sizeof(kind_words) / sizeof(kind_words[0]); k++)
		if (!strncmp(why, kind_words[k], strlen(kind_words[k])))
			return;
	rt_msg_add(m, ": ");
	rt_msg_add(m, why);
	if (r->n_suggestions > 1 && r->suggestions[0]) { /* the last one is "dcg allow" */
		rt_msg_add(m, "; instead: ");
		rt_msg_add(m, r->suggestions[0]);
	}
}

void rt_describe(struct rt_msg *m, const char *what, const char *call, const char *input,
		 const struct pol_result *r)
{
	const char *shown = rt_shown(input, r);
	char red[512];

	rt_msg_add(m, "dcg: ");
	rt_msg_add(m, what);
	rt_msg_add(m, " ");
	rt_msg_add(m, call);
	rt_msg_add(m, " of ");
	if (r->detection == POL_DET_PATH && r->op != POL_OP_EXEC && input && input != shown &&
	    rt_call_runs(call)) {
		/* A program refused for a path its command line names (`cat .env`): the
		 * command, then what it would do to which file, not the file alone, which
		 * would read as an attempt to run it. */
		size_t n = pol_redact_secrets(
		    input, strlen(input), r->path_kind == POL_PATH_ZERO_ACCESS, red, sizeof(red));
		size_t all = n;

		for (size_t i = 0; i < n; i++) /* one line: a script's newlines and tabs */
			if ((unsigned char)red[i] < 0x20 || red[i] == 0x7f)
				red[i] = ' ';
		if (n > RT_SHOWN_COMMAND) {
			n = RT_SHOWN_COMMAND;
			while (n && ((unsigned char)red[n] & 0xc0) == 0x80)
				n--; /* not inside a UTF-8 sequence */
		}
		rt_msg_addn(m, red, n);
		if (n < all)
			rt_msg_add(m, "...");
		rt_msg_add(m, ": it would ");
		rt_msg_add(m, pol_op_name(r->op));
		rt_msg_add(m, " ");
	}
	if (r->detection == POL_DET_PATH) {
		rt_msg_add(m, shown);
		rt_msg_add(m, ": ");
		rt_msg_add(m, pol_path_kind_name(r->path_kind));
		rt_msg_add(m, " ");
		rt_msg_add(m, r->pattern ? r->pattern : "?");
		rt_own_reason(m, r);
	} else if (r->detection == POL_DET_SCOPE || r->detection == POL_DET_NONE) {
		/* A scope's reason starts with its code (SCOPE_VIOLATION...); a built-in
		 * runtime rule's says what the call would have done. */
		rt_msg_add(m, shown);
		rt_msg_add(m, ": ");
		rt_msg_add(m, r->reason ? r->reason : "refused");
	} else {
		const char *t = r->matched[0] ? r->matched : shown;
		size_t n = pol_redact(t, strlen(t), red, sizeof(red));

		rt_msg_addn(m, red, n);
		rt_msg_add(m, ": ");
		rt_msg_add(m, r->reason ? r->reason : "refused");
	}
	rt_msg_add(m, " [");
	rt_msg_add(m, r->rule_id ? r->rule_id : "?");
	rt_msg_add(m, "]");
	if (r->once_code[0]) {
		rt_msg_add(m, "; for this command only, the user can run: dcg allow-once ");
		rt_msg_add(m, r->once_code);
	}
}

int rt_audit(const char *layer, const char *call, const char *input, const struct pol_result *r,
	     pid_t pid, const char *cwd)
{
	struct pol_log_entry e;

	memset(&e, 0, sizeof(e));
	e.layer = layer;
	e.tool = call;
	e.input = rt_shown(input, r);
	e.cwd = cwd;
	e.result = r;
	e.pid = pid;
	return pol_log_append(&e);
}

/* ---- the ask ------------------------------------------------------------------------- */

int rt_ask_tty(const char *question)
{
	char ans[16];
	struct pollfd pfd;
	int fd, yes = 0;

	fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	if (write(fd, question, strlen(question)) < 0)
		goto out_close;
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, RT_ASK_TIMEOUT_MS) == 1) {
		ssize_t n = read(fd, ans, sizeof(ans));

		yes = n > 0 && (ans[0] == 'y' || ans[0] == 'Y');
	}
	if (!yes && write(fd, "denied\n", 7) < 0)
		yes = 0;
out_close:
	close(fd);
	return yes;
}

/* ---- built-in runtime rules -------------------------------------------------------------- */

enum pol_decision rt_builtin(const struct pol_policy *p, const char *id, const char *path,
			     const struct pol_ctx *ctx, struct pol_result *r)
{
	struct pol_rule_info info;
	ssize_t i = p ? pol_rule_find(p, id) : -1;

	pol_result_init(r);
	r->decision = POL_DENY;
	r->severity = POL_SEV_CRITICAL;
	r->detection = POL_DET_NONE;
	r->rule_id = id;
	r->reason = "refused by the runtime layer";
	if (i >= 0 && pol_rule_get(p, (size_t)i, &info) == 0) {
		r->rule_id = info.id;
		r->reason = info.reason;
		r->severity = info.severity;
		r->suggestions = info.suggestions;
		r->n_suggestions = info.n_suggestions;
		r->origin = info.origin;
		pol_apply_allowlist(p, ctx, path, r);
	}
	if (path) {
		size_t n = strnlen(path, sizeof(r->path) - 1);

		memcpy(r->path, path, n);
		r->path[n] = '\0';
	}
	return r->decision;
}
