/* guard.c - the lean guest's start-up, real symbols, the recursion flag and the
 * decision glue.
 *
 * Start-up is cheap on purpose (make starts thousands of processes): the constructor
 * only notes the environment. A path check is settled here when the compact path index
 * `dcg run` wrote beside the policy snapshot ($DCG_SNAPSHOT.paths, policy/pathidx.h)
 * shows that no rule can refuse it, which is most of them; everything else (exec and
 * command checks, paths a rule may cover, the refusal lines) goes to the policy engine,
 * libdcg-engine.so beside this object, loaded at the first such decision (engine.h). */
#include "guard.h"

#include "argvidx.h"
#include "engine.h"
#include "pathidx.h"

#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/mman.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <unistd.h>

#define GUARD_WRAP(ret, name, params) ret(*guard_real_##name) params;
#include "wrap.def"
#undef GUARD_WRAP

static __thread int t_busy __attribute__((tls_model("initial-exec")));

static struct {
	_Atomic int ready;
	_Atomic int started; /* guard_init() ran or runs: once */
	int err_known;	     /* fd 2 as the process started, to tell it from a reused fd */
	dev_t err_dev;
	ino_t err_ino;
	int noted_exe;	       /* the "not covered" note was given */
	const char *self_path; /* this object's path, from the loader (dladdr) */
	const struct guard_engine *engine;
	_Atomic int engine_failed;
	char engine_error[512]; /* why the engine could not be loaded */
	/* The path index: NULL until the first path check; no_index when there is none
	 * (no snapshot, no index file, an intent in force): every check goes to the
	 * engine then. */
	const struct pol_pidx *index;
	_Atomic int no_index;
	/* The argv filter beside it: NULL until the first exec check; no_argv_filter when
	 * there is none (every argv goes to the engine). */
	const struct pol_aidx *argv_filter;
	_Atomic int no_argv_filter;
	/* $DCG_SESSION's start (ns), read at the first guard_session_new(); -1 unread */
	long long session_start;
	const char *session_kept; /* its file of kept names, or NULL */
	_Atomic int session_read;
} g;

/* The guest's .bss written out in the file (zeros): this one section of contents makes
 * the linker write the whole output .bss, so the loader maps the writable segment from
 * the file alone. A .bss reaching past the page where the file's data ends is one more
 * mmap (anonymous) at every start, and one more memory area in every process, which
 * each fork copies and each exec tears down: 4 to 6 us of every /bin/true here. Nothing
 * moves (the output sections keep their order); untouched pages cost nothing either
 * way. ("R": kept by --gc-sections.) test_preload_exports.sh checks the segment. */
__asm__(".pushsection .bss.guard_in_file,\"awR\",@progbits\n\t.zero 8\n\t.popsection");

struct link_map *guard_self_map;
static _Atomic int g_resolved;
static _Atomic int g_atfork;	 /* the fork handler is registered */
static _Atomic int g_no_openat2; /* set once openat2 proved unavailable */

void guard_resolve(void)
{
	if (atomic_load_explicit(&g_resolved, memory_order_acquire))
		return;
#define GUARD_WRAP(ret, name, params)                                                        \
	if (!guard_real_##name)                                                              \
		__atomic_store_n(&guard_real_##name, (ret(*) params)dlsym(RTLD_NEXT, #name), \
				 __ATOMIC_RELEASE);
#include "wrap.def"
#undef GUARD_WRAP
	/* threads started before without the pthread_create wrapper (thrd_create) */
	if (!__libc_single_threaded)
		guard_atfork_once();
	atomic_store_explicit(&g_resolved, 1, memory_order_release);
}

static void guard_init(void);

int guard_enter(void)
{
	if (t_busy)
		return 0;
	if (!atomic_load_explicit(&g.ready, memory_order_acquire)) {
		/* A call before our constructor ran: another preloaded object's constructor
		 * runs first (LD_PRELOAD="guard x.so": x.so's is called before ours). Start
		 * now rather than let it through unchecked. */
		guard_init();
		if (!atomic_load_explicit(&g.ready, memory_order_acquire))
			return 0;
	}
	t_busy = 1;
	guard_resolve(); /* the real functions, at the first guarded call of the process */
	return 1;
}

void guard_leave(void)
{
	t_busy = 0;
}

/* Cancellation inside the guard: its messages, audit lines, index reads and engine
 * call libc's cancellation points (write, open, close), and a request acting there
 * would cut a refusal short (no line, a descriptor left open) and run the thread's
 * cleanup handlers with t_busy still set, that is unchecked. Those parts run with
 * cancellation off (a thread may have cancelled itself, even in a process that never
 * had a second one); the common path (the index settles it) calls no cancellation
 * point and pays nothing. */
int guard_cancel_hold(void)
{
	int old = -1;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	return old;
}

void guard_cancel_release(int old)
{
	if (old >= 0)
		pthread_setcancelstate(old, NULL);
}

void guard_testcancel(void)
{
	pthread_testcancel();
}

/* ---- start-up ------------------------------------------------------------------- */

/* fstat(2) without libc's: its code and the "" it passes to fstatat are two pages to
 * fault in at every start. */
static int start_fstat(int fd, struct stat *st)
{
#if defined(__x86_64__)
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"((long)SYS_fstat), "D"((long)fd), "S"(st)
			 : "rcx", "r11", "memory");
	return r < 0 ? -1 : 0;
#else
	return fstat(fd, st);
#endif
}

/* The function every start calls, called through the GOT (bound with the other
 * relocations), not a lazily bound PLT slot: no trip through the loader's trampoline,
 * which saves and restores the vector registers. */
extern __typeof__(_dl_find_object) _dl_find_object __attribute__((noplt));

static void guard_init(void) __attribute__((constructor));
static void guard_init(void)
{
	extern char **environ;
	struct dl_find_object fo;
	Dl_info info;
	struct stat st;

	if (atomic_exchange_explicit(&g.started, 1, memory_order_acq_rel))
		return; /* the constructor, after a call that came first started it */
	/* errno is left alone rather than saved and restored: nothing here sets it but the
	 * relative path's getcwd below (which keeps it), and reading it would bind libc's
	 * __errno_location() at every start, through the loader's trampoline (830
	 * instructions of /bin/true's 152 k). */
	t_busy = 1;
	/* The real functions are resolved at the first wrapped call (GUARD_REAL,
	 * guard_enter), not here: a process that never makes one (most of a build's)
	 * saves some 70 dlsym() calls. The fork wrapper resolves them in the parent
	 * first. A fork that bypasses it (daemon(), forkpty(): libc's internal fork) in a
	 * threaded process gets the fork handler guard_atfork_once() registers when the
	 * first thread starts; a single-threaded process's child resolves them itself,
	 * no other thread having held a lock (the real dlsym is found without one: dl.c).
	 * Registering the handler at every start cost every process two page faults
	 * (__register_atfork's code and libc's handler list): 5 to 7 us of /bin/true. */
	if (start_fstat(2, &st) == 0) {
		g.err_known = 1;
		g.err_dev = st.st_dev;
		g.err_ino = st.st_ino;
	}
	/* This object's path: _dl_find_object() is a lookup in a sorted table, dladdr()
	 * a walk over every loaded object's symbols. */
	if (_dl_find_object((void *)guard_init, &fo) == 0 && fo.dlfo_link_map) {
		guard_self_map = fo.dlfo_link_map;
		if (fo.dlfo_link_map->l_name && fo.dlfo_link_map->l_name[0])
			g.self_path = fo.dlfo_link_map->l_name;
	} else if (dladdr((void *)guard_init, &info) && info.dli_fname)
		g.self_path = info.dli_fname;
	if (g.self_path)
		guard_env_capture(environ, g.self_path);
	/* The engine is found beside this object: a relative path (LD_PRELOAD=build/...)
	 * would no longer lead there once the program changed folder. */
	/* (in memory of its own: a static buffer would push the guard's start-up data off
	 * the page the loader writes anyway) */
	if (g.self_path && g.self_path[0] != '/') {
		int saved = errno;
		char *self_abs = guard_alloc(4096);

		if (self_abs && getcwd(self_abs, 4096)) {
			struct rt_msg m;
			size_t base = strlen(self_abs);

			rt_msg_init(&m, self_abs + base, 4096 - base);
			rt_msg_add(&m, "/");
			rt_msg_add(&m, g.self_path);
			if (base + m.len < 4096 - 1)
				g.self_path = self_abs;
		}
		errno = saved;
	}
	atomic_store_explicit(&g.ready, 1, memory_order_release);
	t_busy = 0;
}

/* What pthread_atfork() calls (its code lies in libc_nonshared.a, linked at the end
 * of this object's code: a page fault of its own). Its last argument names the object
 * the handler belongs to (pthread_atfork passes __dso_handle, which the C run-time's
 * start files define; this object is linked without them, see module.mk): any address
 * inside it does, since a preloaded object is never unloaded. */
extern int __register_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void),
			     void *dso);

/* Before a fork of a threaded process, whichever way it comes: what the fork wrapper
 * does (guard_warm() is cheap once done). errno kept. */
static void fork_prepare(void)
{
	int saved = errno;

	if (guard_enter()) {
		guard_warm();
		guard_leave();
	}
	errno = saved;
}

void guard_atfork_once(void)
{
	int expected = 0;

	if (atomic_compare_exchange_strong(&g_atfork, &expected, 1))
		__register_atfork(fork_prepare, NULL, NULL, (void *)&g);
}

/* ---- messages ------------------------------------------------------------------- */

/* Writes to fd 2 only when it is still the stderr the process started with, or a
 * terminal or pipe: a program that closed fd 2 may have a data file there now. */
static void say_held(const char *line, size_t len);

static void say(const char *line, size_t len)
{
	int hold = guard_cancel_hold();

	say_held(line, len);
	guard_cancel_release(hold);
}

static void say_held(const char *line, size_t len)
{
	struct stat st;

	if (fstat(2, &st) != 0)
		return;
	if (S_ISREG(st.st_mode) &&
	    !(g.err_known && st.st_dev == g.err_dev && st.st_ino == g.err_ino)) {
		int fl = fcntl(2, F_GETFL);

		if (fl < 0 || !(fl & O_APPEND))
			return;
	}
	while (len) {
		ssize_t n = write(2, line, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		line += n;
		len -= (size_t)n;
	}
}

/* ---- the engine ------------------------------------------------------------------- */

static void say(const char *line, size_t len);

/* A page shared by this process and its fork children (guard_warm()): a child that
 * had to load the engine itself says so there, and the parent loads it before its next
 * fork instead. */
static _Atomic int *g_child_needed;

/* The engine beside this object, loaded once (RTLD_LOCAL: its libraries stay out of
 * the program's namespace). Never found through a variable the agent controls. NULL
 * when it cannot be loaded: the reason is kept for the refusal lines. */
static const struct guard_engine *engine_get(void)
{
	const struct guard_engine *e = __atomic_load_n(&g.engine, __ATOMIC_ACQUIRE);
	const char *slash = g.self_path ? strrchr(g.self_path, '/') : NULL;
	static struct guard_host host;
	guard_engine_start_fn start;
	char path[4096];
	struct rt_msg m;
	void *h;

	if (e || atomic_load_explicit(&g.engine_failed, memory_order_acquire))
		return e;
	/* A fork child loading it itself: its parent will load it before its next fork. */
	if (g_child_needed)
		atomic_store(g_child_needed, 1);
	rt_msg_init(&m, path, sizeof(path));
	if (slash)
		rt_msg_addn(&m, g.self_path, (size_t)(slash - g.self_path + 1));
	rt_msg_add(&m, GUARD_ENGINE_NAME);
	if (!slash || m.len >= sizeof(path) - 1) {
		rt_msg_init(&m, g.engine_error, sizeof(g.engine_error));
		rt_msg_add(&m, "the guard's own folder is unknown");
		goto fail;
	}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	start = h ? (guard_engine_start_fn)(uintptr_t)dlsym(h, "dcg_engine_start") : NULL;
	if (!start) {
		const char *why = dlerror();

		rt_msg_init(&m, g.engine_error, sizeof(g.engine_error));
		rt_msg_add(&m, why ? why : path);
		goto fail;
	}
	host.abi = GUARD_ENGINE_ABI;
	host.alloc = guard_alloc;
	host.free = guard_free;
	host.say = say;
	host.self_path = g.self_path;
	host.real_syscall = guard_real_syscall;
	host.owned_env = guard_env_owned;
	e = start(&host);
	if (!e || e->abi != GUARD_ENGINE_ABI) {
		rt_msg_init(&m, g.engine_error, sizeof(g.engine_error));
		rt_msg_add(&m, path);
		rt_msg_add(&m, " is not this guard's engine");
		goto fail;
	}
	__atomic_store_n(&g.engine, e, __ATOMIC_RELEASE);
	return e;
fail:
	atomic_store_explicit(&g.engine_failed, 1, memory_order_release);
	return NULL;
}

/* A decision that needs the engine when it cannot be loaded: refused, never allowed
 * unchecked. Returns -1. */
static int refuse_no_engine(const char *call, const char *input)
{
	char line[1200];
	struct rt_msg m;

	rt_msg_init(&m, line, sizeof(line) - 1);
	rt_msg_add(&m, "dcg: blocked ");
	rt_msg_add(&m, call);
	if (input) {
		rt_msg_add(&m, " of ");
		rt_msg_add(&m, input);
	}
	rt_msg_add(&m, ": the policy engine cannot be loaded (");
	rt_msg_add(&m, g.engine_error);
	rt_msg_add(&m, "); libdcg-engine.so must lie beside libdcg-preload.so: reinstall dcg "
		       "(make install), then `dcg doctor`\n");
	say(m.buf, m.len);
	return -1;
}

/* ---- the path index --------------------------------------------------------------- */

/* Whether an intent scope may apply: the engine judges every path then. */
static int intent_set(void)
{
	const char *v = getenv("DCG_INTENT"), *c = guard_env_owned("DCG_INTENT");

	return (v && v[0]) || (c && c[0]);
}

/* Maps the file beside the snapshot named $DCG_SNAPSHOT + suffix; NULL when there is
 * none (the caller munmaps *size bytes). */
static void *map_beside(const char *suffix, size_t *size)
{
	const char *snap = guard_env_owned("DCG_SNAPSHOT");
	char file[4096];
	struct rt_msg m;
	struct stat st;
	void *map;
	int fd;

	if (!snap || !snap[0])
		return NULL;
	rt_msg_init(&m, file, sizeof(file));
	rt_msg_add(&m, snap);
	rt_msg_add(&m, suffix);
	if (m.len >= sizeof(file) - 1)
		return NULL;
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	close(fd);
	*size = (size_t)st.st_size;
	return map;
}

static int pidx_open(void *obj, const void *buf, size_t len)
{
	return pol_pidx_open(obj, buf, len, guard_alloc_kept);
}

static int aidx_open(void *obj, const void *buf, size_t len)
{
	return pol_aidx_open(obj, buf, len, guard_alloc_kept);
}

/* The file beside the snapshot named by suffix, read by open_into into an object of
 * size bytes kept for the life of the process (which copies it, into kept memory too:
 * the file mapping goes either way); NULL when there is none or it is damaged. */
static void *read_beside(const char *suffix, size_t size,
			 int (*open_into)(void *obj, const void *buf, size_t len))
{
	size_t len = 0;
	int hold = guard_cancel_hold();
	void *map = map_beside(suffix, &len), *obj;

	guard_cancel_release(hold);
	if (!map)
		return NULL;
	obj = guard_alloc_kept(size);
	if (obj && open_into(obj, map, len) < 0)
		obj = NULL;
	munmap(map, len);
	return obj;
}

/* The index beside the snapshot, read once. Threads racing here each read a copy and
 * the first to publish wins (no lock, nothing to deadlock on after fork). */
static const struct pol_pidx *index_get(void)
{
	const struct pol_pidx *x = __atomic_load_n(&g.index, __ATOMIC_ACQUIRE), *expected = NULL;
	struct pol_pidx *mine;

	if (x || atomic_load_explicit(&g.no_index, memory_order_relaxed))
		return x;
	if (intent_set() || !(mine = read_beside(".paths", sizeof(*mine), pidx_open))) {
		atomic_store_explicit(&g.no_index, 1, memory_order_relaxed);
		return NULL;
	}
	if (__atomic_compare_exchange_n(&g.index, &expected, mine, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return mine;
	return expected;
}

/* The argv filter beside the snapshot, read once like the index. */
static const struct pol_aidx *argv_filter_get(void)
{
	const struct pol_aidx *x = __atomic_load_n(&g.argv_filter, __ATOMIC_ACQUIRE),
			      *expected = NULL;
	struct pol_aidx *mine;

	if (x || atomic_load_explicit(&g.no_argv_filter, memory_order_relaxed))
		return x;
	if (!(mine = read_beside(".argv", sizeof(*mine), aidx_open))) {
		atomic_store_explicit(&g.no_argv_filter, 1, memory_order_relaxed);
		return NULL;
	}
	if (__atomic_compare_exchange_n(&g.argv_filter, &expected, mine, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return mine;
	return expected;
}

static int base_of(int dirfd, const char *path, char *base, size_t size);

static int home_path(const char *path)
{
	return path[0] == '~' && (path[1] == '/' || path[1] == '\0');
}

/* Whether the index settles op on dirfd/path as allowed (pol_pidx_allows()); 0 means
 * the engine decides. */
static int index_allows(int dirfd, const char *path, enum pol_op op, unsigned flags)
{
	const struct pol_pidx *x = index_get();
	char base[4096];

	if (!x || !path[0] || home_path(path))
		return 0;
	if (path[0] == '/') /* no base needed (nor its stack page written) */
		return pol_pidx_allows(x, "/", path, op, flags);
	return base_of(dirfd, path, base, sizeof(base)) == 0 &&
	       pol_pidx_allows(x, base, path, op, flags);
}

/* ---- checks ---------------------------------------------------------------------- */

int guard_check_path(const char *call, int dirfd, const char *path, enum pol_op op, unsigned flags)
{
	const struct guard_engine *e;
	unsigned may = flags & GUARD_MAY_EXCL;
	int hold, rc;

	flags &= ~GUARD_MAY_EXCL;
	if (!path || index_allows(dirfd, path, op, flags))
		return 0;
	/* what the engine's second decision (GUARD_MAY_EXCL) would let pass, the index
	 * settles too: a new file that only a name pattern names */
	if (may && index_allows(dirfd, path, POL_OP_CREATE,
				(flags & ~(unsigned)POL_PATH_IS_DIR) | GUARD_EXCL_PFLAGS))
		return 1;
	hold = guard_cancel_hold();
	rc = (e = engine_get()) ? e->check_path(call, dirfd, path, op, flags | may)
				: refuse_no_engine(call, path);
	guard_cancel_release(hold);
	return rc;
}

int guard_check_existing(const char *call, int dirfd, const char *path, int oflags)
{
	unsigned pflags = 0;
	enum pol_op op = rt_open_op(oflags, RT_EXISTS_FILE, &pflags);

	return guard_check_path(call, dirfd, path, op, pflags) < 0 ? -1 : 0;
}

int guard_check_builtin(const char *call, const char *rule_id, const char *input)
{
	int hold = guard_cancel_hold(), rc;
	const struct guard_engine *e = engine_get();

	rc = e ? e->check_builtin(call, rule_id, input) : refuse_no_engine(call, input);
	guard_cancel_release(hold);
	return rc;
}

int guard_check_command(const char *call, const char *cmd)
{
	const struct guard_engine *e;
	int hold, rc;

	if (!cmd)
		return 0;
	hold = guard_cancel_hold();
	rc = (e = engine_get()) ? e->check_command(call, cmd) : refuse_no_engine(call, cmd);
	guard_cancel_release(hold);
	return rc;
}

int guard_check_fd(const char *call, int fd, enum pol_op op)
{
	char proc[64], target[4096];
	struct rt_msg m;
	ssize_t n;

	rt_msg_init(&m, proc, sizeof(proc));
	rt_msg_add(&m, "/proc/self/fd/");
	rt_msg_addu(&m, (unsigned long)fd);
	n = readlink(proc, target, sizeof(target) - 1);
	if (n <= 0 || target[0] != '/')
		return 0; /* pipes, sockets, anonymous files: no path to protect */
	target[n] = '\0';
	return guard_check_path(call, AT_FDCWD, target, op, 0);
}

int guard_verify_fd(const char *call, int dirfd, const char *path, int fd, enum pol_op op)
{
	return guard_verify_fd_lexical_clean(call, dirfd, path, fd, op, 0);
}

int guard_verify_fd_lexical_clean(const char *call, int dirfd, const char *path, int fd,
				  enum pol_op op, int lexical_clean)
{
	char proc[64], resolved[4096], base[4096], lexical[4096];
	const struct pol_pidx *x;
	const struct guard_engine *e;
	struct rt_msg m;
	ssize_t n;
	int hold, rc;

	if (!path)
		return 0;
	if ((x = index_get()) && path[0] && !home_path(path)) {
		/* The kernel's resolution and the path as written, both settled by the index:
		 * what the engine would judge, with the same answer. */
		rt_msg_init(&m, proc, sizeof(proc));
		rt_msg_add(&m, "/proc/self/fd/");
		rt_msg_addu(&m, (unsigned long)fd);
		n = readlink(proc, resolved, sizeof(resolved) - 1);
		if (n > 0 && resolved[0] == '/') {
			resolved[n] = '\0';
			if (!pol_pidx_may_refuse(x, resolved, op, 0) &&
			    (lexical_clean ||
			     (base_of(dirfd, path, base, sizeof(base)) == 0 &&
			      pol_path_normalize(path, base, NULL, lexical, sizeof(lexical)) == 0 &&
			      (!strcmp(lexical, resolved) ||
			       !pol_pidx_may_refuse(x, lexical, op, 0)))))
				return 0;
		}
	}
	hold = guard_cancel_hold();
	rc = (e = engine_get()) ? e->verify_fd(call, dirfd, path, fd, op)
				: refuse_no_engine(call, path);
	guard_cancel_release(hold);
	return rc;
}

/* Whether this session already said so for this program: a marker file next to the
 * snapshot, created with O_EXCL (atomic across the session's processes, no lock, no
 * malloc). Without a snapshot folder, once per process. */
static int first_note(const char *file)
{
	const char *snap = guard_env_owned("DCG_SNAPSHOT"), *slash,
		   *session = guard_env_owned("DCG_SESSION");
	unsigned long long h = 1469598103934665603ull;
	char path[4096], hex[17];
	struct rt_msg m;
	int fd;

	if (g.noted_exe)
		return 0;
	g.noted_exe = 1;
	if (!snap || !(slash = strrchr(snap, '/')) || slash == snap)
		return 1;
	for (const char *c = file; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	for (int i = 15; i >= 0; i--, h >>= 4)
		hex[i] = "0123456789abcdef"[h & 15];
	hex[16] = '\0';
	rt_msg_init(&m, path, sizeof(path));
	rt_msg_addn(&m, snap, (size_t)(slash - snap));
	rt_msg_add(&m, "/noted-");
	/* the session's pid and start, not its file of kept names (":/...") */
	rt_msg_addn(&m, session ? session : "0", session ? strcspn(session, ":") : 1);
	rt_msg_add(&m, "-");
	rt_msg_add(&m, hex);
	if (m.len >= sizeof(path) - 1)
		return 1;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return errno != EEXIST;
	close(fd);
	return 1;
}

static long guard_sys(long nr, ...);

/* Apart from note_uncovered(), so that every exec check does not carry its line's
 * stack. */
static __attribute__((noinline)) void note_say(const char *file, enum guard_exe_kind k)
{
	struct rt_msg m;
	char line[1200];

	if (!first_note(file))
		return;
	rt_msg_init(&m, line, sizeof(line));
	rt_msg_add(&m, "dcg: note: ");
	rt_msg_add(&m, file);
	rt_msg_add(&m, k == GUARD_EXE_STATIC ? " is statically linked" : " is set-uid");
	rt_msg_add(&m, "; the preload guard cannot see inside it (use dcg sandbox)\n");
	say(m.buf, m.len);
}

/* The exec check's constant strings, not const: GUARD_HOT_DATA. Every fork child that
 * checks an exec reads the first; the second, one reaching its program through a
 * symlink (/bin/true). */
static char sandbox_var[] GUARD_HOT_DATA = "DCG_SANDBOX";
static char proc_fd_dir[] GUARD_HOT_DATA = "/proc/self/fd/";

/* Is this the wrapped agent ($DCG_SESSION's pid) or a process it started? Under a shell
 * prefix (no agent pid) every process is. */
static int agent_or_its_child(void)
{
	struct rt_session ses;

	if (rt_session_parse(guard_env_owned("DCG_SESSION"), &ses) != 0 || ses.agent <= 0)
		return 1;
	return (pid_t)guard_sys(SYS_getpid, 0L, 0L, 0L, 0L) == ses.agent ||
	       (pid_t)guard_sys(SYS_getppid, 0L, 0L, 0L, 0L) == ses.agent;
}

static void note_uncovered(const char *file, int fd)
{
	enum guard_exe_kind k;

	/* Under dcg sandbox ($DCG_SANDBOX, kept like the guard's own variables) the
	 * supervisor sees inside static and set-uid programs: nothing to say, and no
	 * marker to write in dcg's folder, which the sandbox keeps read-only. */
	if (g.noted_exe || guard_env_owned(sandbox_var))
		return;
	k = guard_exe_kind_sys(fd, guard_sys);
	if (k != GUARD_EXE_STATIC && k != GUARD_EXE_SETUID)
		return;
	/* Said for a program the wrapped agent starts itself (`dcg run -- codex`: node
	 * starting codex's static binary), not for every static or set-uid tool deep in
	 * its work (esbuild, TypeScript 7's tsc, go, sudo), whose line would reach the
	 * agent's output in every session: DESIGN's "quiet". */
	if (agent_or_its_child()) {
		int hold = guard_cancel_hold();

		note_say(file, k);
		guard_cancel_release(hold);
	}
}

/* The exec path's system calls, made here: in a fork child every libc function
 * called for the first time (syscall() included) is a page of libc's code to fault
 * in. Up to four arguments; -1 with errno on failure. Elsewhere, libc's syscall(). */
static long guard_sys(long nr, ...)
{
	va_list ap;
	long a, b, c, d, r;

	va_start(ap, nr);
	a = va_arg(ap, long);
	b = va_arg(ap, long);
	c = va_arg(ap, long);
	d = va_arg(ap, long);
	va_end(ap);
#if defined(__x86_64__)
	{
		register long r10 __asm__("r10") = d;

		__asm__ volatile("syscall"
				 : "=a"(r)
				 : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
				 : "rcx", "r11", "memory");
	}
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
#else
	if (!guard_real_syscall) {
		errno = ENOSYS;
		return -1;
	}
	r = guard_real_syscall(nr, a, b, c, d);
	return r;
#endif
}

/* A descriptor the open below got, closed when the thread is cancelled before it
 * could hand it on (not a cancellation point: the raw close). */
static void close_opened(void *arg)
{
	long fd = *(volatile long *)arg;

	if (fd >= 0)
		guard_sys(SYS_close, fd, 0L, 0L, 0L);
}

/* openat2 as a cancellation point, the way libc made its own before glibc 2.34: the
 * thread is switched to asynchronous cancellation around the system call alone, in the
 * caller's cancellation state (off: nothing changes), with the guard's busy mark lifted
 * (a thread unwound here runs its cleanup handlers checked, like any other). A request
 * pending at entry acts before anything is opened; one that comes while the call blocks (a FIFO
 * without a partner) interrupts it; the descriptor is stored the instruction after
 * the call returns, and a cleanup handler closes it if the request lands between that
 * store and the return to deferred cancellation. */
static __attribute__((noinline)) long open_sys_cancellable(int dirfd, const char *path,
							   const struct open_how *how)
{
	volatile long fd = -1;
	int type = PTHREAD_CANCEL_DEFERRED;
	long r;

	t_busy = 0;
	pthread_cleanup_push(close_opened, (void *)&fd);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &type);
#if defined(__x86_64__)
	{
		register long r10 __asm__("r10") = (long)sizeof(*how);

		__asm__ volatile("syscall\n\t"
				 "movq %%rax, %1"
				 : "=a"(r), "=m"(fd)
				 : "0"((long)SYS_openat2), "D"((long)dirfd), "S"(path), "d"(how),
				   "r"(r10)
				 : "rcx", "r11", "memory");
	}
#else
	fd = guard_real_syscall(SYS_openat2, dirfd, path, how, sizeof(*how));
	r = fd < 0 ? -errno : fd;
#endif
	pthread_setcanceltype(type, NULL);
	pthread_cleanup_pop(0);
	t_busy = 1;
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

long guard_open_sys(int dirfd, const char *path, const struct open_how *how)
{
	/* Single-threaded: no one to cancel this thread from elsewhere. */
	if (__libc_single_threaded)
		return guard_real_syscall(SYS_openat2, dirfd, path, how, sizeof(*how));
	return open_sys_cancellable(dirfd, path, how);
}

/* Whether the index settles the exec of file (absolute), open as fd: the path as
 * written in normal form and, unless it is known canonical, where the kernel resolved
 * it (read back from /proc/self/fd), as guard_verify_fd() judges them. This runs in
 * every fork child, where each stack page written is a page fault: one short buffer
 * for most programs, a PATH_MAX one apart (in a frame of its own) for longer paths. */
static int exec_file_settled_in(const struct pol_pidx *x, const char *file, int fd, int canonical,
				char *buf, size_t size);

static __attribute__((noinline)) int exec_file_settled_long(const struct pol_pidx *x,
							    const char *file, int fd, int canonical)
{
	char buf[PATH_MAX];

	return exec_file_settled_in(x, file, fd, canonical, buf, sizeof(buf));
}

static int exec_file_settled_in(const struct pol_pidx *x, const char *file, int fd, int canonical,
				char *buf, size_t size)
{
	char proc[32];
	struct rt_msg m;
	long n;

	/* (an absolute path's normal form is never longer than the path) */
	if (size < PATH_MAX && guard_strnlen(file, size) == size)
		return exec_file_settled_long(x, file, fd, canonical);
	if (pol_path_normalize(file, "/", NULL, buf, size) < 0 ||
	    pol_pidx_may_refuse(x, buf, POL_OP_EXEC, 0))
		return 0;
	if (canonical)
		return 1;
	rt_msg_init(&m, proc, sizeof(proc));
	rt_msg_add(&m, proc_fd_dir);
	rt_msg_addu(&m, (unsigned long)fd);
	n = guard_sys(SYS_readlink, (long)proc, (long)buf, (long)size - 1, 0L);
	if (n == (long)size - 1 && size < PATH_MAX) /* maybe cut: again, in PATH_MAX */
		return exec_file_settled_long(x, file, fd, canonical);
	if (n <= 0 || buf[0] != '/')
		return 0;
	buf[n] = '\0';
	return !pol_pidx_may_refuse(x, buf, POL_OP_EXEC, 0);
}

static int exec_file_settled(const char *file, int fd, int canonical)
{
	const struct pol_pidx *x = index_get();
	char buf[256];

	if (!x || file[0] != '/')
		return 0;
	return exec_file_settled_in(x, file, fd, canonical, buf, sizeof(buf));
}

/* Whether p (len bytes) is an absolute path of plain components: no empty one (no
 * "//", no trailing '/'), no "." or "..", not under /proc (whose magic links name
 * files no path walk reaches the same way). */
static int exec_path_plain(const char *p, size_t len)
{
	if (len < 2 || p[0] != '/' || p[len - 1] == '/' ||
	    (len >= 5 && !memcmp(p, proc_fd_dir, 5) && (len == 5 || p[5] == '/')))
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (p[i] != '/')
			continue;
		if (p[i + 1] == '/' ||
		    (p[i + 1] == '.' &&
		     (p[i + 2] == '/' || p[i + 2] == '\0' ||
		      (p[i + 2] == '.' && (p[i + 3] == '/' || p[i + 3] == '\0')))))
			return 0;
	}
	return 1;
}

/* The end of p's k-th component (1: the first), p absolute and plain. */
static size_t exec_comp_end(const char *p, size_t len, int k)
{
	size_t i = 1;

	for (; i < len; i++)
		if (p[i] == '/' && --k == 0)
			return i;
	return len;
}

/* How many components p (absolute and plain, len bytes) has. */
static int exec_comps(const char *p, size_t len)
{
	int n = 1;

	for (size_t i = 1; i < len; i++)
		n += p[i] == '/';
	return n;
}

#define EXEC_RESOLVE_PROBES 6

/* The program's resolution for an absolute path that openat2(RESOLVE_NO_SYMLINKS)
 * refused (ELOOP: a symlink on the way), found in userspace rather than read back from
 * /proc/self/fd: in a fork child, that readlink instantiates the new process's /proc
 * entries (about 13 us here, against about 1.5 us a readlink of a plain path). A link
 * is looked for at the first component (/bin -> usr/bin), the last (python3 ->
 * python3.11), then the others in order; its target replaces it (a relative one in
 * the link's folder), and the new path is opened with no symlink allowed on the way
 * again: when that succeeds, it holds no symlink, so it is the name the kernel's
 * resolution would read back (no "." or "..", which a symlink before them would make
 * mean another folder, and nothing under /proc: those go the old way). execve walks
 * the path again anyway, as before. Returns the descriptor (*clean set when the index
 * shows no rule of an exec's kinds covers the resolution), or -1 when this could not
 * settle it (any other error, a path or target not plain or not fitting, more than a
 * few lookups): the caller takes the plain open and reads the kernel's resolution back.
 * Apart, so that only a child exec'ing through a symlink carries its buffers. */
static __attribute__((noinline)) int exec_resolve(const struct pol_pidx *x, const char *file,
						  int *clean)
{
	char p[256], t[256];
	size_t plen = guard_strnlen(file, sizeof(p)), end, off, rest;
	int probes = 0, step = 0, comps, k;
	struct open_how how;
	long n, r;

	if (plen >= sizeof(p) || !exec_path_plain(file, plen))
		return -1;
	memcpy(p, file, plen + 1);
	comps = exec_comps(p, plen);
	memset(&how, 0, sizeof(how));
	how.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	how.resolve = RESOLVE_NO_SYMLINKS;
	while (probes++ < EXEC_RESOLVE_PROBES) {
		char c;

		/* the components in the order they are looked at: the first, the last, then
		 * the second, the third, ... */
		k = step == 0 ? 1 : step == 1 ? (comps > 1 ? comps : 0) : (step < comps ? step : 0);
		if (!k)
			return -1; /* no link found: changed meanwhile */
		step++;
		end = exec_comp_end(p, plen, k);
		c = p[end];
		p[end] = '\0';
		n = guard_sys(SYS_readlink, (long)p, (long)t, (long)sizeof(t) - 1, 0L);
		p[end] = c;
		if (n < 0 && errno == EINVAL)
			continue; /* not a link */
		if (n <= 0 || n >= (long)sizeof(t) - 1)
			return -1;
		/* t: the target, then what followed the link; p: the link's folder (for a
		 * relative target) and t */
		rest = plen - end;
		if ((size_t)n + rest >= sizeof(t))
			return -1;
		memcpy(t + n, p + end, rest + 1);
		off = 0;
		if (t[0] != '/')
			for (off = end; p[off - 1] != '/'; off--)
				;
		if (off + (size_t)n + rest >= sizeof(p))
			return -1;
		memcpy(p + off, t, (size_t)n + rest + 1);
		plen = off + (size_t)n + rest;
		if (!exec_path_plain(p, plen))
			return -1;
		r = guard_sys(SYS_openat2, (long)AT_FDCWD, (long)p, (long)&how, (long)sizeof(how));
		if (r >= 0) {
			*clean = !pol_pidx_may_refuse(x, p, POL_OP_EXEC, 0);
			return (int)r;
		}
		if (errno != ELOOP)
			return -1;
		/* another link on the new path: from its first component again */
		step = 0;
		comps = exec_comps(p, plen);
	}
	return -1;
}

/* The program about to be executed, opened once (reading it has no effect): judged
 * on the path as written and where it leads, which the index settles for most
 * programs (execve walks the path again anyway: no resolution made here would be
 * fresher), else by the engine on the kernel's resolution and the path as written;
 * then its ELF headers tell whether the guard can follow it. A program that cannot be
 * opened (missing, execute-only) is judged by path, with resolution. *settled is set
 * when the index settled it. */
static int check_exec_file(const char *call, int dirfd, const char *file, int *settled)
{
	int fd = -1, rc = 0, canonical = 0, unsettled = 0;

	*settled = 0;
	/* Opened with no symlink allowed on the way, the path as written (in normal form)
	 * is where it leads: nothing to read back. A symlink on the way: the resolution
	 * found with a few readlinks (exec_resolve()), else the plain open. */
	if (!atomic_load_explicit(&g_no_openat2, memory_order_relaxed)) {
		const struct pol_pidx *x;
		struct open_how how;
		long r;

		memset(&how, 0, sizeof(how));
		how.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
		how.resolve = RESOLVE_NO_SYMLINKS;
		r = guard_sys(SYS_openat2, (long)dirfd, (long)file, (long)&how, (long)sizeof(how));
		if (r >= 0) {
			fd = (int)r;
			canonical = 1;
		} else if (errno == ENOSYS || errno == EPERM) {
			atomic_store_explicit(&g_no_openat2, 1, memory_order_relaxed);
		} else if (errno == ELOOP && file[0] == '/' && (x = index_get())) {
			int clean = 0;

			fd = exec_resolve(x, file, &clean);
			/* the resolution settled: the path as written is left to judge */
			canonical = fd >= 0 && clean;
			unsettled = fd >= 0 && !clean;
		}
	}
	if (fd < 0)
		fd = (int)guard_sys(SYS_openat, (long)dirfd, (long)file,
				    (long)(O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), 0L);
	if (fd < 0)
		return guard_check_path(call, dirfd, file, POL_OP_EXEC, 0);
	if (!unsettled && (file[0] == '/' ? exec_file_settled(file, fd, canonical)
					  : index_allows(dirfd, file, POL_OP_EXEC,
							 canonical ? POL_PATH_CANONICAL : 0)))
		*settled = 1;
	else
		rc = guard_verify_fd(call, dirfd, file, fd, POL_OP_EXEC);
	if (rc == 0)
		note_uncovered(file, fd);
	guard_sys(SYS_close, (long)fd, 0L, 0L, 0L);
	return rc;
}

int guard_check_exec(const char *call, int dirfd, const char *file, char *const argv[])
{
	const struct guard_engine *e;
	int settled = 0, hold, rc;

	if (file && check_exec_file(call, dirfd, file, &settled) < 0)
		return -1;
	if (!argv || !argv[0])
		return 0;
	/* Plain words no rule can match: what the engine would allow (policy/argvidx.h);
	 * the program's path, when argv names it, as the file the index just settled or
	 * as written. */
	if (pol_aidx_allows(argv_filter_get(), index_get(), argv, settled ? file : NULL))
		return 0;
	hold = guard_cancel_hold();
	rc = (e = engine_get()) ? e->check_argv(call, argv) : refuse_no_engine(call, argv[0]);
	guard_cancel_release(hold);
	return rc;
}

/* $DCG_SESSION as the guard captured it at start (what env -i does not shed). */
static void session_read(void)
{
	if (!atomic_load_explicit(&g.session_read, memory_order_acquire)) {
		const char *v = guard_env_owned("DCG_SESSION");
		struct rt_session ses;

		rt_session_parse(v, &ses); /* refused whole: no start, nothing own */
		g.session_kept = ses.kept;
		g.session_start = ses.start_ns;
		atomic_store_explicit(&g.session_read, 1, memory_order_release);
	}
}

int guard_session_obj(int dirfd, const char *path, struct rt_obj *o)
{
	session_read();
	if (!g.session_start || !path || rt_obj_at(dirfd, path, o) < 0)
		return 0;
	return o->born > g.session_start && !rt_kept_has(g.session_kept, o);
}

int guard_session_new(int dirfd, const char *path)
{
	struct rt_obj o;
	int rc;

	session_read();
	if (!g.session_start || !path)
		return 0;
	rc = rt_obj_at(dirfd, path, &o);
	if (rc < 0)
		return rc == -ENOENT; /* nothing there: nothing to protect */
	return o.born > g.session_start && !rt_kept_has(g.session_kept, &o);
}

void guard_session_keep(const struct rt_obj *o)
{
	const char *sbx = guard_env_owned("DCG_SANDBOX");

	/* Under the sandbox the supervisor keeps them, where no tracee can reach them
	 * (the file lies in the guard's folder, read-only to the tracees). */
	int in = guard_enter(); /* the guard's own write: not judged */

	session_read();
	if (g.session_kept && !(sbx && sbx[0] == '1'))
		rt_kept_add(g.session_kept, o);
	if (in)
		guard_leave();
}

int guard_index_allows(int dirfd, const char *path, enum pol_op op, unsigned flags)
{
	return path && index_allows(dirfd, path, op, flags);
}

int guard_check_copy(const char *call, int dirfd, const char *path, enum pol_op op, unsigned flags,
		     char *buf, size_t size, const char **use)
{
	int saved = errno, rc;
	const char *copy;

	*use = path;
	if (!guard_enter())
		return 0;
	copy = guard_copy_path(path, buf, size);
	if (copy)
		*use = copy;
	rc = guard_check_path(call, dirfd, copy, op, flags);
	guard_leave();
	errno = rc < 0 ? EACCES : saved;
	return rc;
}

int guard_is_dir(int dirfd, const char *path)
{
	struct stat st;
	int saved = errno, dir;

	dir = path && fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
	errno = saved;
	return dir;
}

/* The base a relative path starts from: the working directory or dirfd's folder. */
static int base_of(int dirfd, const char *path, char *base, size_t size)
{
	char proc[64];
	struct rt_msg m;
	ssize_t n;

	if (path[0] == '/') {
		base[0] = '/';
		base[1] = '\0';
		return 0;
	}
	if (dirfd == AT_FDCWD)
		return getcwd(base, size) ? 0 : -1;
	rt_msg_init(&m, proc, sizeof(proc));
	rt_msg_add(&m, "/proc/self/fd/");
	rt_msg_addu(&m, (unsigned long)dirfd);
	n = readlink(proc, base, size - 1);
	if (n <= 0 || base[0] != '/')
		return -1;
	base[n] = '\0';
	return 0;
}

int guard_open_fast(const char *call, int dirfd, const char *path, int flags, mode_t mode,
		    enum pol_op op, unsigned pflags, int *lexical_clean)
{
	char base[4096], lexical[4096];
	const struct pol_pidx *x;
	const struct guard_engine *e;
	struct open_how how;
	long fd;
	int excl = 0;

	*lexical_clean = 0;
	if (!path || !guard_real_syscall)
		return -2;
	/* The path as the kernel will walk it when no symlink is on the way: no ~, no
	 * second resolution. */
	if (base_of(dirfd, path, base, sizeof(base)) < 0 ||
	    pol_path_normalize(path, base, NULL, lexical, sizeof(lexical)) < 0)
		return -2;
	if (!(x = index_get()) || pol_pidx_may_refuse(x, lexical, op, pflags)) {
		/* an O_CREAT open may pass as the exclusive creation of a new file (asked
		 * only here, where a rule may refuse: an allowed open pays nothing) */
		unsigned may = rt_open_may_excl(flags) ? GUARD_MAY_EXCL : 0;
		int hold, rc;

		/* a new file that only a name pattern names: settled by the index, made
		 * with O_EXCL below (what the engine's GUARD_MAY_EXCL would say) */
		if (x && may &&
		    !pol_pidx_may_refuse(x, lexical, POL_OP_CREATE, pflags | GUARD_EXCL_PFLAGS)) {
			excl = 1;
			goto open;
		}
		/* An open that creates nothing, of a path that is not there: the kernel's
		 * ENOENT (or ENOTDIR), quietly, whatever a rule says of the name. A program
		 * probing for ~/.netrc (meson, Python's netrc) learns what stat tells it, and
		 * a refusal line there only teaches users to switch the guard off. Nothing
		 * is opened, so nothing made meanwhile is reached. */
		if (!(flags & O_CREAT) && (flags & O_TMPFILE) != O_TMPFILE) {
			struct stat st;

			if (guard_sys(SYS_newfstatat, (long)AT_FDCWD, (long)lexical, (long)&st,
				      (long)AT_SYMLINK_NOFOLLOW) < 0 &&
			    (errno == ENOENT || errno == ENOTDIR))
				return -1;
		}
		hold = guard_cancel_hold();
		rc = (e = engine_get())
			 ? e->check_open(call, dirfd, path, lexical, op, pflags | may)
			 : refuse_no_engine(call, path);
		guard_cancel_release(hold);
		if (rc < 0) {
			errno = EACCES;
			return -1;
		}
		excl = rc == 1;
	} else {
		*lexical_clean = 1;
	}
open:
	memset(&how, 0, sizeof(how));
	how.flags = (unsigned)flags | (excl ? (unsigned)O_EXCL : 0);
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		how.mode = mode & 07777;
	how.resolve = RESOLVE_NO_SYMLINKS;
	if (atomic_load_explicit(&g_no_openat2, memory_order_relaxed))
		return -2;
	fd = guard_open_sys(dirfd, path, &how);
	/* made exclusive, it met a file that exists (created meanwhile): an open of
	 * that file, judged as one */
	if (fd < 0 && excl && errno == EEXIST && !(flags & O_EXCL)) {
		if (guard_check_existing(call, dirfd, path, flags) < 0) {
			errno = EACCES;
			return -1;
		}
		how.flags = (unsigned)flags;
		fd = guard_open_sys(dirfd, path, &how);
	}
	if (fd >= 0)
		return (int)fd;
	/* No openat2 here (old kernel, a seccomp filter): never try it again. */
	if (errno == ENOSYS || errno == EPERM)
		atomic_store_explicit(&g_no_openat2, 1, memory_order_relaxed);
	/* A symlink on the way (ELOOP), flags openat2 refuses that open ignores (EINVAL),
	 * no openat2 (ENOSYS, or EPERM from a seccomp filter): nothing was opened,
	 * created or truncated, so the caller falls back to the full check. */
	if (errno == ELOOP || errno == EINVAL || errno == ENOSYS || errno == E2BIG ||
	    errno == EPERM || errno == EXDEV || errno == EAGAIN)
		return -2;
	return -1; /* what open() itself would have said */
}

/* Magic links (/proc/self/fd/N, /dev/stdout) name open files, not paths: reopening
 * what they resolve to would not be the same open. */
static int magic_path(const char *p)
{
	return strncmp(p, "/proc/", 6) == 0 || strncmp(p, "/dev/fd/", 8) == 0 ||
	       strncmp(p, "/dev/std", 8) == 0;
}

int guard_open_resolved(const char *call, int dirfd, const char *path, int flags, mode_t mode,
			enum pol_op op, unsigned pflags)
{
	char base[4096], joined[8192], resolved[4096];
	struct open_how how;
	struct rt_msg m;
	long fd = -1;
	unsigned may = rt_open_may_excl(flags) ? GUARD_MAY_EXCL : 0;

	if (!path || !guard_real_syscall ||
	    atomic_load_explicit(&g_no_openat2, memory_order_relaxed))
		return -2;
	if (base_of(dirfd, path, base, sizeof(base)) < 0)
		return -2;
	rt_msg_init(&m, joined, sizeof(joined));
	if (path[0] != '/') {
		rt_msg_add(&m, base);
		rt_msg_add(&m, "/");
	}
	rt_msg_add(&m, path);
	if (m.len >= sizeof(joined) - 1 || magic_path(joined))
		return -2;
	memset(&how, 0, sizeof(how));
	how.flags = (unsigned)flags;
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		how.mode = mode & 07777;
	how.resolve = RESOLVE_NO_SYMLINKS;
	for (int attempt = 0; attempt < 3; attempt++) {
		if (pol_path_resolve(joined, !!(pflags & POL_PATH_NOFOLLOW), resolved,
				     sizeof(resolved)) < 0 ||
		    resolved[0] != '/' || magic_path(resolved))
			return -2;
		/* as written (with its own resolution), then as resolved now; either may
		 * let it pass only as a new file (1), then made with O_EXCL */
		int rc = guard_check_path(call, dirfd, path, op, pflags | may), rc2 = rc;

		if (rc >= 0)
			rc2 = guard_check_path(call, AT_FDCWD, resolved, op,
					       pflags | POL_PATH_CANONICAL | may);
		if (rc < 0 || rc2 < 0) {
			errno = EACCES;
			return -1;
		}
		how.flags = (unsigned)flags | (rc == 1 || rc2 == 1 ? (unsigned)O_EXCL : 0);
		fd = guard_open_sys(AT_FDCWD, resolved, &how);
		if (fd < 0 && (rc == 1 || rc2 == 1) && errno == EEXIST && !(flags & O_EXCL)) {
			if (guard_check_existing(call, dirfd, path, flags) < 0) {
				errno = EACCES;
				return -1;
			}
			how.flags = (unsigned)flags;
			fd = guard_open_sys(AT_FDCWD, resolved, &how);
		}
		if (fd >= 0)
			return (int)fd;
		if (errno == ENOSYS || errno == EPERM || errno == EINVAL || errno == E2BIG ||
		    errno == EXDEV || errno == EAGAIN)
			return -2; /* openat2 cannot do it here: the plain path */
		if (errno != ELOOP)
			return -1; /* what open() itself would have said */
		/* ELOOP: a symlink appeared on the resolved path since: resolve again. */
	}
	errno = EACCES;
	return -1;
}

void guard_warm(void)
{
	static _Atomic int light, warmed;
	const struct guard_engine *e;
	struct guard_envbuf eb;
	extern char **environ;
	int hold;

	/* Once per process, and after that nothing but these loads: a shell forks for
	 * every command, and every page the parent writes after a fork (a deeper stack
	 * frame included) costs it a page fault. */
	if (atomic_load_explicit(&warmed, memory_order_acquire))
		return;
	if (!atomic_load_explicit(&light, memory_order_acquire)) {
		void *m;

		hold = guard_cancel_hold(); /* (files read) */

		/* The index and the argv filter, shared by the children instead of each
		 * reading its own. */
		index_get();
		argv_filter_get();
		/* The exec path once, dry, so that the libc functions it calls through the
		 * PLT (readlink, pread, memcmp, ...) are bound here: a fork child that binds
		 * one pays a symbol lookup and a copied page, at every exec. */
		index_allows(AT_FDCWD, "/proc/self/exe", POL_OP_EXEC, 0);
		guard_exe_kind("/proc/self/exe");
		guard_env_build(environ, &eb);
		guard_envbuf_release(&eb);
		m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED)
			g_child_needed = m;
		atomic_store_explicit(&light, 1, memory_order_release);
		guard_cancel_release(hold);
	}
	/* The engine (the policy, the regexes every exec check needs) is loaded here for
	 * the children to share, unless they may well do without it: a parent with a
	 * single thread (whose children may dlopen safely) whose children's execs the argv
	 * filter has settled so far (the shell's loop of plain programs keeps its heap
	 * free of the policy, and its forks cheaper). A child of a threaded parent never
	 * has to dlopen. */
	if (__libc_single_threaded && g_child_needed && !atomic_load(g_child_needed) &&
	    __atomic_load_n(&g.argv_filter, __ATOMIC_ACQUIRE))
		return;
	hold = guard_cancel_hold();
	if ((e = engine_get()))
		e->warm();
	atomic_store_explicit(&warmed, 1, memory_order_release);
	guard_cancel_release(hold);
}
