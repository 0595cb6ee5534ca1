/* test_preload.c - the preload guard's glue, driven directly (no LD_PRELOAD): which
 * question each open asks policy/ (cases in tests/data/preload/open_cases.txt, in a
 * temporary workspace with real symlinks), fopen modes, the environment given back to
 * every exec, the PATH search, the fork-safe allocator and the executable kinds.
 * The wrappers themselves run under real programs in tests/integration/test_preload_*.sh. */
#include "../preload/guard.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- workspace ----------------------------------------------------------------------- */

static char ws[256];

static void sh(const char *cmd)
{
	char line[1024];

	snprintf(line, sizeof(line), "cd '%s' && %s", ws, cmd);
	cr_assert_eq(system(line), 0, "setup failed: %s", cmd);
}

static struct pol_policy *workspace_policy(void)
{
	static const char yaml[] = "zeroAccessPaths: [za/]\n"
				   "readOnlyPaths: [ro/]\n"
				   "noDeletePaths: [nd/]\n";
	struct pol_policy *p;

	snprintf(ws, sizeof(ws), "/tmp/dcg-test-preload.XXXXXX");
	cr_assert(mkdtemp(ws));
	sh("mkdir -p za ro/sub nd free && echo s > za/secret && echo r > ro/file && "
	   "echo n > nd/file && echo f > free/file && ln -s za/secret link-to-za && "
	   "ln -s ro/file link-to-ro");
	p = pol_new(0);
	cr_assert(p);
	cr_assert_eq(pol_set_root(p, ws), 0);
	cr_assert_eq(pol_load_buffer(p, "test", yaml, sizeof(yaml) - 1), 0);
	cr_assert_eq(chdir(ws), 0);
	return p;
}

static void remove_workspace(struct pol_policy *p)
{
	char line[512];

	pol_free(p);
	cr_assert_eq(chdir("/"), 0);
	snprintf(line, sizeof(line), "rm -rf '%s'", ws);
	cr_assert_eq(system(line), 0);
}

/* ---- open flags ------------------------------------------------------------------------ */

static int parse_flags(const char *spec)
{
	static const struct {
		const char *name;
		int value;
	} names[] = {
	    {"O_RDONLY", O_RDONLY},   {"O_WRONLY", O_WRONLY},	  {"O_RDWR", O_RDWR},
	    {"O_CREAT", O_CREAT},     {"O_EXCL", O_EXCL},	  {"O_TRUNC", O_TRUNC},
	    {"O_APPEND", O_APPEND},   {"O_NOFOLLOW", O_NOFOLLOW}, {"O_PATH", O_PATH},
	    {"O_TMPFILE", O_TMPFILE},
	};
	const char *tok = spec;
	int flags = 0;

	while (*tok) {
		size_t len = strcspn(tok, "|"), i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == len && !strncmp(tok, names[i].name, len))
				break;
		cr_assert(i < sizeof(names) / sizeof(names[0]), "unknown flag in %s", spec);
		flags |= names[i].value;
		tok += len;
		if (*tok)
			tok++;
	}
	return flags;
}

Test(preload, open_flags_ask_the_policy_the_right_question)
{
	/* Opened before the workspace becomes the working directory. */
	FILE *f = fopen("tests/data/preload/open_cases.txt", "r");
	struct pol_policy *p;
	char line[512];
	int cases = 0;

	cr_assert(f, "tests/data/preload/open_cases.txt missing");
	p = workspace_policy();
	while (fgets(line, sizeof(line), f)) {
		char fl[128], path[256], want[16];
		struct pol_result r;
		struct pol_ctx ctx;
		unsigned pflags = 0;
		enum pol_op op;
		enum pol_decision d;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		cr_assert_eq(sscanf(line, "%127s %255s %15s", fl, path, want), 3, "bad line: %s",
			     line);
		op = guard_open_op(parse_flags(fl), &pflags);
		memset(&ctx, 0, sizeof(ctx));
		pol_result_init(&r);
		d = pol_check_path_at(p, AT_FDCWD, path, op, pflags, &ctx, &r);
		cr_expect_eq(d == POL_DENY, !strcmp(want, "deny"), "%s %s: got %s (op %s), want %s",
			     fl, path, pol_decision_name(d), pol_op_name(op), want);
		pol_result_release(&r);
		cases++;
	}
	fclose(f);
	cr_assert_gt(cases, 20);
	remove_workspace(p);
}

Test(preload, open_flags_map_to_operations)
{
	static const struct {
		int flags;
		enum pol_op op;
		unsigned pflags;
	} cases[] = {
	    {O_RDONLY, POL_OP_READ, 0},
	    {O_RDONLY | O_CLOEXEC | O_DIRECTORY, POL_OP_LIST, 0},
	    {O_WRONLY, POL_OP_WRITE, 0},
	    {O_RDWR, POL_OP_WRITE, 0},
	    {O_RDONLY | O_APPEND, POL_OP_READ, 0}, /* no write access: writes nothing */
	    {O_WRONLY | O_APPEND, POL_OP_WRITE, 0},
	    {O_WRONLY | O_TRUNC, POL_OP_TRUNCATE, 0},
	    {O_RDONLY | O_TRUNC, POL_OP_TRUNCATE, 0},
	    {O_WRONLY | O_CREAT, POL_OP_CREATE, 0},
	    {O_WRONLY | O_CREAT | O_EXCL, POL_OP_CREATE, POL_PATH_NOFOLLOW},
	    {O_RDONLY | O_NOFOLLOW, POL_OP_READ, POL_PATH_NOFOLLOW},
	    {O_RDWR | O_TMPFILE, POL_OP_CREATE, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned pflags = 0;
		enum pol_op op = guard_open_op(cases[i].flags, &pflags);

		cr_expect_eq(op, cases[i].op, "case %zu: op %s", i, pol_op_name(op));
		cr_expect_eq(pflags, cases[i].pflags, "case %zu: flags %u", i, pflags);
	}
}

Test(preload, fopen_modes_map_to_operations)
{
	static const struct {
		const char *mode;
		enum pol_op op;
		unsigned pflags;
	} cases[] = {
	    {"r", POL_OP_READ, 0},	     {"rb", POL_OP_READ, 0},
	    {"re", POL_OP_READ, 0},	     {"r+", POL_OP_WRITE, 0},
	    {"rb+", POL_OP_WRITE, 0},	     {"w", POL_OP_TRUNCATE, 0},
	    {"w+", POL_OP_TRUNCATE, 0},	     {"wx", POL_OP_CREATE, POL_PATH_NOFOLLOW},
	    {"a", POL_OP_WRITE, 0},	     {"a+", POL_OP_WRITE, 0},
	    {"r,ccs=UTF-8", POL_OP_READ, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned pflags = 0;
		enum pol_op op = guard_fopen_op(cases[i].mode, &pflags);

		cr_expect_eq(op, cases[i].op, "mode %s: op %s", cases[i].mode, pol_op_name(op));
		cr_expect_eq(pflags, cases[i].pflags, "mode %s", cases[i].mode);
	}
}

/* An fopen() mode that creates, made exclusive for a new file the policy lets pass only
 * as such: "x" after the first letter, within the six option letters glibc reads. */
Test(preload, fopen_modes_made_exclusive)
{
	static const struct {
		const char *mode, *want; /* want NULL: none */
	} cases[] = {
	    {"w", "wx"},       {"w+", "wx+"}, {"wb", "wxb"},	{"a", "ax"},
	    {"a+e", "ax+e"},   {"wx", "wx"},  {"w+bx", "w+bx"}, {"w,ccs=UTF-8", "wx,ccs=UTF-8"},
	    {"r", NULL},       {"r+", NULL},  {"", NULL},	{"wbemc+", "wxbemc+"},
	    {"wbemce+", NULL}, /* x would push + past the six letters glibc reads */
	};
	char out[GUARD_FOPEN_MODE_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got = guard_fopen_excl_mode(cases[i].mode, out, sizeof(out));

		cr_expect_eq(got, cases[i].want != NULL, "mode %s", cases[i].mode);
		cr_expect_eq(guard_fopen_excl_mode(cases[i].mode, NULL, 0), got, "mode %s (ask)",
			     cases[i].mode);
		if (got && cases[i].want)
			cr_expect_str_eq(out, cases[i].want, "mode %s", cases[i].mode);
	}
	cr_expect_eq(guard_fopen_excl_mode("w", out, 2), 0, "no room");
	cr_expect_eq(guard_fopen_excl_mode(NULL, out, sizeof(out)), 0);
}

Test(preload, long_paths_are_not_copied)
{
	char big[PATH_MAX + 10], buf[PATH_MAX];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	cr_expect_null(guard_copy_path(big, buf, sizeof(buf)));
	cr_expect_null(guard_copy_path(NULL, buf, sizeof(buf)));
	cr_expect_str_eq(guard_copy_path("/etc/hostname", buf, sizeof(buf)), "/etc/hostname");
}

/* ---- environment ------------------------------------------------------------------------ */

static const char *find_var(char *const *env, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; env && env[i]; i++)
		if (!strncmp(env[i], name, n) && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

static size_t count_var(char *const *env, const char *name)
{
	size_t n = strlen(name), c = 0;

	for (size_t i = 0; env && env[i]; i++)
		if (!strncmp(env[i], name, n) && env[i][n] == '=')
			c++;
	return c;
}

static char *start_env[] = {
    "PATH=/usr/bin:/bin",
    "LD_PRELOAD=/usr/lib/libasan.so.8 /opt/dcg/libdcg-preload.so /usr/lib/other.so",
    "DCG_SNAPSHOT=/run/user/1/dcg/snap-1",
    "DCG_LOG=/home/u/.local/state/dcg/audit.jsonl",
    "HOME=/home/u",
    NULL,
};

Test(preload, complete_environment_is_passed_unchanged)
{
	struct guard_envbuf eb;

	cr_assert_eq(guard_env_capture(start_env, "/opt/dcg/libdcg-preload.so"), 0);
	cr_expect_eq(guard_env_build(start_env, &eb), start_env);
	guard_envbuf_release(&eb);
}

/* An environment is passed on unchanged only when it holds the guard and each of the
 * guard's variables with the whole value it started with. */
Test(preload, completeness_is_judged_on_whole_values)
{
	static const struct {
		const char *preload, *snapshot, *log;
		int complete;
	} rows[] = {
	    {"LD_PRELOAD=/opt/dcg/libdcg-preload.so", "DCG_SNAPSHOT=/run/user/1/dcg/snap-1",
	     "DCG_LOG=/var/log/a", 1},
	    /* an object ahead of the guard could shadow a wrapped name */
	    {"LD_PRELOAD=/x.so:/opt/dcg/libdcg-preload.so", "DCG_SNAPSHOT=/run/user/1/dcg/snap-1",
	     "DCG_LOG=/var/log/a", 0},
	    {"LD_PRELOAD=/opt/dcg/libdcg-preload.so:/x.so", "DCG_SNAPSHOT=/run/user/1/dcg/snap-1",
	     "DCG_LOG=/var/log/a", 1},
	    /* a variable of the guard's it did not start with */
	    {"LD_PRELOAD=/opt/dcg/libdcg-preload.so", "DCG_SNAPSHOT=/run/user/1/dcg/snap-1",
	     "DCG_POLICY=/tmp/other.yaml", 0},
	    {"LD_PRELOAD=/opt/dcg/libdcg-preload.so2", "DCG_SNAPSHOT=/run/user/1/dcg/snap-1",
	     "DCG_LOG=/var/log/a", 0},
	    {"LD_PRELOAD=/opt/dcg/libdcg-preload.s", "DCG_SNAPSHOT=/run/user/1/dcg/snap-1",
	     "DCG_LOG=/var/log/a", 0},
	    {"LD_PRELOAD=/opt/dcg/libdcg-preload.so", "DCG_SNAPSHOT=/run/user/1/dcg/snap-12",
	     "DCG_LOG=/var/log/a", 0},
	    {"LD_PRELOAD=/opt/dcg/libdcg-preload.so", "DCG_SNAPSHOT=/run/user/1/dcg/snap-",
	     "DCG_LOG=/var/log/a", 0},
	    {"LD_PRELOAD=/opt/dcg/libdcg-preload.so", "DCG_SNAPSHOT=/run/user/1/dcg/snap-1",
	     "DCG_LOG=/var/log/b", 0},
	    {"LD_PRELOAD=/opt/dcg/libdcg-preload.so", "DCG_SNAPSHOT=/run/user/1/dcg/snap-1",
	     "DCG_LOGS=/var/log/a", 0},
	    {"LD_PRELOAD=/opt/dcg/libdcg-preload.so", "DCG_SNAPSHOT", "DCG_LOG=/var/log/a", 0},
	    {"LD_PRELOADX=/opt/dcg/libdcg-preload.so", "DCG_SNAPSHOT=/run/user/1/dcg/snap-1",
	     "DCG_LOG=/var/log/a", 0},
	};
	char *start[] = {"LD_PRELOAD=/opt/dcg/libdcg-preload.so",
			 "DCG_SNAPSHOT=/run/user/1/dcg/snap-1", "DCG_LOG=/var/log/a", NULL};
	struct guard_envbuf eb;

	cr_assert_eq(guard_env_capture(start, "/opt/dcg/libdcg-preload.so"), 0);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *env[] = {"A=1", (char *)rows[i].preload, (char *)rows[i].snapshot,
			       (char *)rows[i].log, NULL};

		cr_expect_eq(guard_env_complete(env), rows[i].complete, "row %zu", i);
		cr_expect_eq(guard_env_build(env, &eb) == env, rows[i].complete, "row %zu", i);
		guard_envbuf_release(&eb);
	}
}

Test(preload, empty_environment_gets_the_guard_back)
{
	char *empty[] = {NULL};
	struct guard_envbuf eb;
	char *const *ne;

	cr_assert_eq(guard_env_capture(start_env, "/opt/dcg/libdcg-preload.so"), 0);
	for (int round = 0; round < 2; round++) {
		ne = guard_env_build(round ? NULL : empty, &eb);
		/* The sanitizer runtime ahead of the guard stays ahead; later entries are the
		 * program's business. */
		cr_expect_str_eq(find_var(ne, "LD_PRELOAD"),
				 "/usr/lib/libasan.so.8 /opt/dcg/libdcg-preload.so");
		cr_expect_str_eq(find_var(ne, "DCG_SNAPSHOT"), "/run/user/1/dcg/snap-1");
		cr_expect_str_eq(find_var(ne, "DCG_LOG"), "/home/u/.local/state/dcg/audit.jsonl");
		cr_expect_null(find_var(ne, "DCG_POLICY"));
		guard_envbuf_release(&eb);
	}
}

Test(preload, foreign_preload_is_kept_after_the_guard)
{
	char *env[] = {"LD_PRELOAD=/lib/libfaketime.so", "X=1", NULL};
	struct guard_envbuf eb;
	char *const *ne;

	cr_assert_eq(guard_env_capture(start_env, "/opt/dcg/libdcg-preload.so"), 0);
	ne = guard_env_build(env, &eb);
	cr_expect_str_eq(find_var(ne, "LD_PRELOAD"),
			 "/usr/lib/libasan.so.8 /opt/dcg/libdcg-preload.so /lib/libfaketime.so");
	cr_expect_eq(count_var(ne, "LD_PRELOAD"), 1);
	cr_expect_str_eq(find_var(ne, "X"), "1");
	cr_expect_str_eq(env[0], "LD_PRELOAD=/lib/libfaketime.so", "the caller's strings stay");
	guard_envbuf_release(&eb);
}

Test(preload, program_cannot_point_children_at_another_snapshot)
{
	char *env[] = {"DCG_SNAPSHOT=/tmp/empty", "LD_PRELOAD=/opt/dcg/libdcg-preload.so", NULL};
	struct guard_envbuf eb;
	char *const *ne;

	cr_assert_eq(guard_env_capture(start_env, "/opt/dcg/libdcg-preload.so"), 0);
	ne = guard_env_build(env, &eb);
	cr_expect_str_eq(find_var(ne, "DCG_SNAPSHOT"), "/run/user/1/dcg/snap-1");
	cr_expect_eq(count_var(ne, "DCG_SNAPSHOT"), 1);
	/* the sanitizer runtime the guard started behind is put back ahead of it */
	cr_expect_str_eq(find_var(ne, "LD_PRELOAD"),
			 "/usr/lib/libasan.so.8 /opt/dcg/libdcg-preload.so");
	guard_envbuf_release(&eb);
}

/* Variables of the guard's that it did not start with are not the caller's to set:
 * DCG_POLICY, DCG_SANDBOX or DCG_INTENT pointed elsewhere are dropped. */
Test(preload, program_cannot_add_guard_variables)
{
	char *env[] = {"DCG_POLICY=/tmp/allow-all.yaml",
		       "DCG_SANDBOX=1",
		       "DCG_INTENT=x",
		       "DCG_OTHER=kept",
		       "LD_PRELOAD=/usr/lib/libasan.so.8 /opt/dcg/libdcg-preload.so",
		       NULL};
	struct guard_envbuf eb;
	char *const *ne;

	cr_assert_eq(guard_env_capture(start_env, "/opt/dcg/libdcg-preload.so"), 0);
	cr_expect_eq(guard_env_complete(env), 0);
	ne = guard_env_build(env, &eb);
	cr_expect_null(find_var(ne, "DCG_POLICY"));
	cr_expect_null(find_var(ne, "DCG_SANDBOX"));
	cr_expect_null(find_var(ne, "DCG_INTENT"));
	cr_expect_str_eq(find_var(ne, "DCG_OTHER"), "kept");
	cr_expect_str_eq(find_var(ne, "DCG_SNAPSHOT"), "/run/user/1/dcg/snap-1");
	guard_envbuf_release(&eb);
}

/* The guard comes first at every exec: an object put ahead of it (libc itself, whose
 * definitions would shadow every wrapped name) goes after it, and a second copy of the
 * guard is dropped; the sanitizer runtime stays first. */
Test(preload, guard_is_put_first_again)
{
	static const struct {
		const char *in, *out;
	} rows[] = {
	    {"LD_PRELOAD=libc.so.6 /usr/lib/libasan.so.8 /opt/dcg/libdcg-preload.so",
	     "/usr/lib/libasan.so.8 /opt/dcg/libdcg-preload.so libc.so.6"},
	    {"LD_PRELOAD=/lib/x86_64-linux-gnu/libc.so.6:/opt/dcg/libdcg-preload.so",
	     "/usr/lib/libasan.so.8 /opt/dcg/libdcg-preload.so /lib/x86_64-linux-gnu/libc.so.6"},
	    {"LD_PRELOAD=/tmp/evil.so /elsewhere/libdcg-preload.so /tmp/b.so",
	     "/usr/lib/libasan.so.8 /opt/dcg/libdcg-preload.so /tmp/evil.so /tmp/b.so"},
	};
	struct guard_envbuf eb;

	cr_assert_eq(guard_env_capture(start_env, "/opt/dcg/libdcg-preload.so"), 0);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *env[] = {(char *)rows[i].in, NULL};
		char *const *ne;

		cr_expect_eq(guard_env_complete(env), 0, "row %zu", i);
		ne = guard_env_build(env, &eb);
		cr_expect_str_eq(find_var(ne, "LD_PRELOAD"), rows[i].out, "row %zu", i);
		cr_expect_eq(count_var(ne, "LD_PRELOAD"), 1, "row %zu", i);
		guard_envbuf_release(&eb);
	}
}

/* A guard started behind libc (LD_PRELOAD="libc.so.6 $LD_PRELOAD" cmd) hands its
 * children a list with itself first. */
Test(preload, guard_started_behind_libc_puts_itself_first)
{
	char *start[] = {"LD_PRELOAD=libc.so.6 /opt/dcg/libdcg-preload.so", NULL};
	char *empty[] = {NULL};
	struct guard_envbuf eb;

	cr_assert_eq(guard_env_capture(start, "/opt/dcg/libdcg-preload.so"), 0);
	cr_expect_eq(guard_env_complete(start), 0);
	cr_expect_str_eq(find_var(guard_env_build(start, &eb), "LD_PRELOAD"),
			 "/opt/dcg/libdcg-preload.so libc.so.6");
	guard_envbuf_release(&eb);
	cr_expect_str_eq(find_var(guard_env_build(empty, &eb), "LD_PRELOAD"),
			 "/opt/dcg/libdcg-preload.so");
	guard_envbuf_release(&eb);
}

Test(preload, guard_found_by_name_when_preloaded_alone)
{
	char *env[] = {"LD_PRELOAD=build/libdcg-preload.so", NULL};
	char *empty[] = {NULL};
	struct guard_envbuf eb;

	cr_assert_eq(guard_env_capture(env, "/abs/build/libdcg-preload.so"), 0);
	cr_expect_str_eq(find_var(guard_env_build(empty, &eb), "LD_PRELOAD"),
			 "build/libdcg-preload.so");
	guard_envbuf_release(&eb);
	cr_assert_eq(guard_env_capture(empty, "/abs/build/libdcg-preload.so"), 0);
	cr_expect_str_eq(find_var(guard_env_build(empty, &eb), "LD_PRELOAD"),
			 "/abs/build/libdcg-preload.so");
	guard_envbuf_release(&eb);
}

Test(preload, huge_environment_is_rebuilt_in_a_mapping)
{
	enum { N = 5000 };
	static char *env[N + 1];
	static char names[N][16];
	struct guard_envbuf eb;
	char *const *ne;
	size_t n = 0;

	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "V%d=x", i);
		env[i] = names[i];
	}
	env[N] = NULL;
	cr_assert_eq(guard_env_capture(start_env, "/opt/dcg/libdcg-preload.so"), 0);
	ne = guard_env_build(env, &eb);
	while (ne[n])
		n++;
	cr_expect_eq(n, N + 3, "%zu entries", n);
	cr_expect_not_null(eb.map);
	cr_expect_str_eq(find_var(ne, "V4999"), "x");
	guard_envbuf_release(&eb);
}

/* ---- PATH search, executables ------------------------------------------------------------ */

Test(preload, path_search_finds_what_execvp_runs)
{
	char out[PATH_MAX];

	cr_expect_eq(guard_path_search("sh", "/nonexistent:/bin:/usr/bin", out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/bin/sh");
	cr_expect_eq(guard_path_search("no-such-program-dcg", "/bin", out, sizeof(out)), -ENOENT);
	cr_expect_eq(guard_path_search("./x/y", "/bin", out, sizeof(out)), 0);
	cr_expect_str_eq(out, "./x/y");
	/* A directory named like the program is skipped, as execvp does. */
	cr_expect_eq(guard_path_search("bin", "/:/usr", out, sizeof(out)), -ENOENT);
}

Test(preload, executable_kinds)
{
	cr_expect_eq(guard_exe_kind("/bin/true"), GUARD_EXE_DYNAMIC);
	cr_expect_eq(guard_exe_kind("/etc/hostname"), GUARD_EXE_OTHER);
	cr_expect_eq(guard_exe_kind("/nonexistent"), GUARD_EXE_OTHER);
}

/* ---- messages -------------------------------------------------------------------------- */

Test(preload, messages_are_cut_not_overflowed)
{
	char buf[16];
	struct rt_msg m;

	rt_msg_init(&m, buf, sizeof(buf));
	rt_msg_add(&m, "dcg: blocked ");
	rt_msg_addu(&m, 12345);
	cr_expect_str_eq(buf, "dcg: blocked 12");
	cr_expect_eq(m.len, 15);
	rt_msg_init(&m, buf, sizeof(buf));
	rt_msg_addu(&m, 0);
	cr_expect_str_eq(buf, "0");
}

/* ---- allocator --------------------------------------------------------------------------- */

Test(preload, allocator_returns_aligned_separate_blocks)
{
	char *a = guard_alloc(10), *b = guard_alloc(10), *big = guard_alloc(100000);

	cr_assert(a && b && big);
	cr_expect_eq((uintptr_t)a % 16, 0);
	cr_expect_eq((uintptr_t)big % 16, 0);
	memset(a, 1, 10);
	memset(b, 2, 10);
	memset(big, 3, 100000);
	cr_expect_eq(a[9], 1);
	guard_free(big);
	guard_free(b);
	guard_free(a);
	guard_free(NULL);
}

/* Kept blocks (the index, the argv filter) come from the region small blocks share,
 * up to a quarter of it; larger ones are mapped. */
Test(preload, kept_blocks_share_the_small_blocks_region)
{
	char *a = guard_alloc(10), *k = guard_alloc_kept(6000), *b = guard_alloc(10);
	char *huge = guard_alloc_kept(1u << 20);

	cr_assert(a && k && b && huge);
	cr_expect_eq((uintptr_t)k % 16, 0);
	cr_expect(k > a && k < b && b - a < 8192, "the kept block lies between the small ones");
	memset(k, 4, 6000);
	memset(huge, 5, 1u << 20);
	cr_expect_eq(k[5999], 4);
	cr_expect_eq(huge[(1u << 20) - 1], 5);
	guard_free(b);
	guard_free(a);
}

Test(preload, last_small_block_is_given_back)
{
	char *a = guard_alloc(100);
	char *b;

	guard_free(a);
	b = guard_alloc(100);
	cr_expect_eq(a, b, "a LIFO free is reused");
	guard_free(b);
}

static void *alloc_worker(void *arg)
{
	uintptr_t tag = (uintptr_t)arg;

	for (int i = 0; i < 20000; i++) {
		size_t size = (size_t)(i % 7 == 0 ? 20000 : 8 + i % 500);
		unsigned char *p = guard_alloc(size);

		if (!p)
			return (void *)1;
		memset(p, (int)tag, size);
		if (p[size - 1] != (unsigned char)tag || p[0] != (unsigned char)tag)
			return (void *)1;
		if (i % 3)
			guard_free(p);
	}
	return NULL;
}

Test(preload, allocator_is_safe_across_threads_and_fork)
{
	pthread_t th[8];
	void *ret;
	pid_t pid;
	int st;

	for (uintptr_t i = 0; i < 8; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, alloc_worker, (void *)(i + 1)), 0);
	/* A child forked while the threads allocate: its allocations must work without any
	 * lock a vanished thread could hold. */
	pid = fork();
	if (pid == 0)
		_exit(alloc_worker((void *)99) ? 1 : 0);
	for (int i = 0; i < 8; i++) {
		cr_assert_eq(pthread_join(th[i], &ret), 0);
		cr_expect_null(ret, "thread %d saw a corrupted block", i);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
