/* test_runtime.c - the runtime core both runtime layers share (runtime/rt.h): the
 * syscall table, the open-flags rule, the refusal line, the built-in runtime rules. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dcg_policy.h"
#include "rt.h"

Test(runtime, syscall_table_rows_are_distinct_and_in_range)
{
	cr_assert_gt(rt_syscall_count, 40);
	for (size_t i = 0; i < rt_syscall_count; i++) {
		const struct rt_syscall *s = &rt_syscalls[i];

		cr_expect_eq(rt_syscall_find(s->nr), s, "%s: lookup finds another row", s->name);
		for (size_t k = i + 1; k < rt_syscall_count; k++)
			cr_expect_neq(s->nr, rt_syscalls[k].nr, "%s and %s share a number", s->name,
				      rt_syscalls[k].name);
		cr_expect(s->fl < 6 && s->dfd < 6 && s->path < 6 && s->dfd2 < 6 && s->path2 < 6,
			  "%s: argument index out of range", s->name);
		if (s->kind == RT_PATH)
			cr_expect_geq(s->path, 0, "%s: a path call without a path", s->name);
		if (s->kind == RT_FD)
			cr_expect(s->dfd >= 0 && s->path < 0, "%s: a descriptor call", s->name);
	}
	cr_expect_null(rt_syscall_find(SYS_getpid));
	cr_expect_null(rt_syscall_find(SYS_read));
}

/* The numbers a held-out review found missing from the preload's syscall() table. */
Test(runtime, syscall_table_holds_every_path_taking_number)
{
	static const long want[] = {
	    SYS_open,
	    SYS_openat,
	    SYS_openat2,
	    SYS_creat,
	    SYS_truncate,
	    SYS_unlink,
	    SYS_unlinkat,
	    SYS_rmdir,
	    SYS_rename,
	    SYS_renameat,
	    SYS_renameat2,
	    SYS_link,
	    SYS_linkat,
	    SYS_symlink,
	    SYS_symlinkat,
	    SYS_mkdir,
	    SYS_mkdirat,
	    SYS_mknod,
	    SYS_mknodat,
	    SYS_chmod,
	    SYS_fchmodat,
	    SYS_fchmodat2,
	    SYS_chown,
	    SYS_lchown,
	    SYS_fchownat,
	    SYS_utime,
	    SYS_utimes,
	    SYS_futimesat,
	    SYS_utimensat,
	    SYS_setxattr,
	    SYS_lsetxattr,
	    SYS_removexattr,
	    SYS_lremovexattr,
	    SYS_fchmod,
	    SYS_fchown,
	    SYS_fsetxattr,
	    SYS_fremovexattr,
	    SYS_execve,
	    SYS_execveat,
	    SYS_name_to_handle_at,
	    SYS_open_by_handle_at,
	    SYS_mount,
	    SYS_umount2,
	    SYS_chroot,
	    SYS_pivot_root,
	    SYS_open_tree,
	    SYS_move_mount,
	    SYS_fsopen,
	    SYS_fsconfig,
	    SYS_fsmount,
	    SYS_fspick,
	    SYS_mount_setattr,
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect_not_null(rt_syscall_find(want[i]), "number %ld is not in the table",
				   want[i]);
	cr_expect_eq(rt_syscall_find(SYS_mount)->kind, RT_MOUNT);
	cr_expect_eq(rt_syscall_find(SYS_chroot)->kind, RT_MOUNT);
	cr_expect_eq(rt_syscall_find(SYS_open_tree)->kind, RT_MOUNT);
}

Test(runtime, at_flags_and_exchanges_change_the_question)
{
	struct rt_arg a[2];
	long args[6] = {AT_FDCWD, (long)"d", AT_REMOVEDIR, 0, 0, 0};

	cr_assert_eq(rt_syscall_args(rt_syscall_find(SYS_unlinkat), args, a), 1);
	cr_expect(a[0].pflags & POL_PATH_IS_DIR);
	cr_expect(a[0].pflags & POL_PATH_NOFOLLOW);

	long ren[6] = {AT_FDCWD, (long)"a", AT_FDCWD, (long)"b", 2 /* RENAME_EXCHANGE */, 0};
	cr_assert_eq(rt_syscall_args(rt_syscall_find(SYS_renameat2), ren, a), 2);
	cr_expect_eq(a[0].op, POL_OP_RENAME_FROM);
	cr_expect_eq(a[1].op, POL_OP_RENAME_FROM, "an exchange moves the target away too");

	long ln[6] = {AT_FDCWD, (long)"a", AT_FDCWD, (long)"b", AT_SYMLINK_FOLLOW, 0};
	cr_assert_eq(rt_syscall_args(rt_syscall_find(SYS_linkat), ln, a), 2);
	cr_expect_eq(a[0].pflags & POL_PATH_NOFOLLOW, 0u);
	cr_expect_eq(a[1].op, POL_OP_CREATE);

	long ch[6] = {5, (long)"", 0644, AT_EMPTY_PATH, 0, 0};
	cr_assert_eq(rt_syscall_args(rt_syscall_find(SYS_fchmodat2), ch, a), 1);
	cr_expect(a[0].by_fd, "AT_EMPTY_PATH with \"\" names the descriptor");

	long fc[6] = {7, 0600, 0, 0, 0, 0};
	cr_assert_eq(rt_syscall_args(rt_syscall_find(SYS_fchmod), fc, a), 1);
	cr_expect(a[0].by_fd);
	cr_expect_eq(a[0].dirfd, 7);
}

Test(runtime, open_flags_map_to_one_operation)
{
	static const struct {
		int flags;
		enum rt_exists exists;
		enum pol_op op;
		unsigned pflags;
	} cases[] = {
	    {O_RDONLY, RT_EXISTS_UNKNOWN, POL_OP_READ, 0},
	    {O_RDONLY, RT_EXISTS_DIR, POL_OP_LIST, 0},
	    {O_RDONLY | O_DIRECTORY, RT_EXISTS_UNKNOWN, POL_OP_LIST, 0},
	    {O_RDONLY | O_APPEND, RT_EXISTS_FILE, POL_OP_READ, 0},
	    {O_WRONLY | O_APPEND, RT_EXISTS_FILE, POL_OP_WRITE, 0},
	    {O_RDWR, RT_EXISTS_FILE, POL_OP_WRITE, 0},
	    {O_RDONLY | O_TRUNC, RT_EXISTS_FILE, POL_OP_TRUNCATE, 0},
	    {O_WRONLY | O_CREAT, RT_EXISTS_UNKNOWN, POL_OP_CREATE, 0},
	    {O_WRONLY | O_CREAT, RT_EXISTS_NOT, POL_OP_CREATE, 0},
	    {O_WRONLY | O_CREAT, RT_EXISTS_FILE, POL_OP_WRITE, 0},
	    {O_WRONLY | O_CREAT | O_TRUNC, RT_EXISTS_FILE, POL_OP_TRUNCATE, 0},
	    {O_WRONLY | O_CREAT | O_EXCL, RT_EXISTS_UNKNOWN, POL_OP_CREATE, POL_PATH_NOFOLLOW},
	    {O_RDONLY | O_NOFOLLOW, RT_EXISTS_FILE, POL_OP_READ, POL_PATH_NOFOLLOW},
	    {O_RDWR | O_TMPFILE, RT_EXISTS_DIR, POL_OP_CREATE, 0},
	    {O_PATH | O_WRONLY, RT_EXISTS_FILE, POL_OP_READ, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned pflags = 0;
		enum pol_op op = rt_open_op(cases[i].flags, cases[i].exists, &pflags);

		cr_expect_eq(op, cases[i].op, "case %zu: op %s", i, pol_op_name(op));
		cr_expect_eq(pflags, cases[i].pflags, "case %zu: flags %u", i, pflags);
	}
}

/* Which opens refused by the path rules may be decided again as the exclusive creation
 * of a new file: O_CREAT, but not O_TMPFILE (no name), O_PATH (no creation) nor
 * O_DIRECTORY (a folder). */
Test(runtime, opens_that_may_be_made_exclusive)
{
	cr_expect(rt_open_may_excl(O_WRONLY | O_CREAT));
	cr_expect(rt_open_may_excl(O_WRONLY | O_CREAT | O_TRUNC));
	cr_expect(rt_open_may_excl(O_RDWR | O_CREAT | O_APPEND));
	cr_expect(rt_open_may_excl(O_WRONLY | O_CREAT | O_EXCL));
	cr_expect(!rt_open_may_excl(O_WRONLY | O_TRUNC));
	cr_expect(!rt_open_may_excl(O_RDONLY));
	cr_expect(!rt_open_may_excl(O_RDWR | O_TMPFILE));
	cr_expect(!rt_open_may_excl(O_PATH | O_CREAT));
	cr_expect(!rt_open_may_excl(O_RDONLY | O_CREAT | O_DIRECTORY));
}

Test(runtime, refusal_line_names_the_whole_path)
{
	struct pol_result r;
	struct rt_msg m;
	char line[512];

	pol_result_init(&r);
	r.decision = POL_DENY;
	r.detection = POL_DET_PATH;
	r.path_kind = POL_PATH_NO_DELETE;
	r.pattern = "/srv/dcg-corpus/nd/";
	r.rule_id = "policy.no_delete.1";
	snprintf(r.path, sizeof(r.path), "%s", "/srv/dcg-corpus/nd/description");
	rt_msg_init(&m, line, sizeof(line));
	rt_describe(&m, "blocked", "unlinkat", "description", &r);
	cr_expect_str_eq(line,
			 "dcg: blocked unlinkat of /srv/dcg-corpus/nd/description: noDeletePaths "
			 "/srv/dcg-corpus/nd/ [policy.no_delete.1]");
}

/* A program refused for a file its words name: the command and what it would do,
 * not "execve of FILE", which reads as running the file. */
Test(runtime, refusal_of_a_program_names_its_command_and_the_operation)
{
	char line[1024], longcmd[400];
	struct pol_result r;
	struct rt_msg m;

	pol_result_init(&r);
	r.decision = POL_DENY;
	r.detection = POL_DET_PATH;
	r.path_kind = POL_PATH_ZERO_ACCESS;
	r.op = POL_OP_READ;
	r.pattern = ".env";
	r.rule_id = "default.zero_access.env";
	snprintf(r.path, sizeof(r.path), "%s", "/srv/p/.env");
	rt_msg_init(&m, line, sizeof(line));
	rt_describe(&m, "blocked", "execve", "cat .env", &r);
	cr_expect_str_eq(line, "dcg: blocked execve of cat .env: it would read /srv/p/.env: "
			       "zeroAccessPaths .env [default.zero_access.env]");
	/* a secret among the words is redacted; a long command is cut, with "..." */
	rt_msg_init(&m, line, sizeof(line));
	rt_describe(&m, "blocked", "system",
		    "TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 cat .env", &r);
	cr_expect_null(strstr(line, "ghp_abc"), "%s", line);
	cr_expect(strstr(line, "of TOKEN=*** cat .env: it would read") != NULL, "%s", line);
	memset(longcmd, 'a', sizeof(longcmd) - 1);
	memcpy(longcmd, "cat ", 4);
	longcmd[sizeof(longcmd) - 1] = '\0';
	rt_msg_init(&m, line, sizeof(line));
	rt_describe(&m, "blocked", "execvpe", longcmd, &r);
	cr_expect(strstr(line, "...: it would read /srv/p/.env") != NULL, "%s", line);
	cr_expect_lt(strlen(line), RT_SHOWN_COMMAND + 120, "%s", line);
	/* a script's lines make one line */
	rt_msg_init(&m, line, sizeof(line));
	rt_describe(&m, "blocked", "execve", "python3 -c \nimport os\n\topen('.env')", &r);
	cr_expect_null(strchr(line, '\n'), "%s", line);
	cr_expect_null(strchr(line, '\t'), "%s", line);
	/* running the file itself, and calls that are not execs, keep their form */
	r.op = POL_OP_EXEC;
	rt_msg_init(&m, line, sizeof(line));
	rt_describe(&m, "blocked", "execve", "/srv/p/.env", &r);
	cr_expect_str_eq(line, "dcg: blocked execve of /srv/p/.env: zeroAccessPaths .env "
			       "[default.zero_access.env]");
	r.op = POL_OP_READ;
	rt_msg_init(&m, line, sizeof(line));
	rt_describe(&m, "blocked", "openat", ".env", &r);
	cr_expect_str_eq(line, "dcg: blocked openat of /srv/p/.env: zeroAccessPaths .env "
			       "[default.zero_access.env]");
	/* told: the same line again says nothing; RT_TOLD_MAX lines, then the closing one */
	struct rt_told t = {0};
	cr_expect_eq(rt_told_next(&t, "a", 1), 0);
	cr_expect_gt(rt_told_next(&t, "a", 1), RT_TOLD_MAX);
	cr_expect_eq(rt_told_next(&t, "b", 1), 1);
	for (unsigned i = 2; i < RT_TOLD_MAX; i++)
		cr_expect_eq(rt_told_next(&t, i % 2 ? "b" : "a", 1), i);
	cr_expect_eq(rt_told_next(&t, "c", 1), RT_TOLD_MAX);
}

Test(runtime, builtin_runtime_rules_are_listed_and_allowable)
{
	static const char *const ids[] = {RT_RULE_MOUNT, RT_RULE_RAW_WRITE, RT_RULE_MKNOD_DEVICE};
	static const char yaml[] = "allow:\n  - rule: runtime.mount\n    reason: test\n";
	struct pol_policy *p = pol_new(0);
	struct pol_result r;
	struct pol_ctx ctx = {0};

	cr_assert_not_null(p);
	for (size_t i = 0; i < 3; i++) {
		cr_expect_geq(pol_rule_find(p, ids[i]), 0, "%s is not registered", ids[i]);
		cr_expect_eq(rt_builtin(p, ids[i], "/mnt", &ctx, &r), POL_DENY, "%s", ids[i]);
		cr_expect_str_eq(r.rule_id, ids[i]);
	}
	cr_assert_eq(pol_load_buffer(p, "test", yaml, sizeof(yaml) - 1), 0);
	cr_expect_eq(rt_builtin(p, RT_RULE_MOUNT, "/mnt", &ctx, &r), POL_ALLOW);
	cr_expect_eq(rt_builtin(p, RT_RULE_RAW_WRITE, "/dev/sda", &ctx, &r), POL_DENY);
	pol_free(p);
}

Test(runtime, session_start_never_counts_an_older_file_as_new)
{
	struct rt_session ses;

	cr_assert_eq(rt_session_parse("123.1700000000", &ses), 0);
	cr_expect_eq(ses.agent, 123);
	cr_expect_eq(ses.start_ns, 1700000001LL * 1000000000LL, "whole seconds: the next second");
	cr_expect_eq(ses.agent_start, 0);
	cr_expect_null(ses.kept);
	cr_assert_eq(rt_session_parse("123.1700000000.250000000", &ses), 0);
	cr_expect_eq(ses.start_ns, 1700000000LL * 1000000000LL + 250000000LL);
	cr_expect_eq(rt_session_parse("x.1", &ses), -EINVAL);
	cr_expect_eq(rt_session_parse("12", &ses), -EINVAL);
	cr_expect_eq(rt_session_parse(NULL, &ses), -EINVAL);
	cr_expect_eq(ses.agent, 0);
	cr_expect_eq(ses.start_ns, 0);
}

/* The agent's pid counts only while the process that started then holds it: the
 * session carries the agent's start, which a process that takes the pid over after the
 * agent died cannot have. */
Test(runtime, the_agent_is_its_process_not_its_pid)
{
	unsigned long long me = rt_proc_start(0), parent = rt_proc_start(getppid());
	struct rt_session ses;
	char sess[96];

	cr_assert_gt(me, 0);
	cr_expect_eq(rt_proc_start(getpid()), me);
	cr_expect_leq(parent, me, "a parent starts no later than its child");
	snprintf(sess, sizeof(sess), "%d.1700000000.250000000.%llu", (int)getpid(), me);
	cr_assert_eq(rt_session_parse(sess, &ses), 0);
	cr_expect_eq(ses.agent, getpid());
	cr_expect_eq(ses.start_ns, 1700000000LL * 1000000000LL + 250000000LL);
	cr_expect_eq(ses.agent_start, me);
	cr_expect(rt_session_is_agent(&ses));
	ses.agent_start = me + 1; /* another process that took the pid over */
	cr_expect_not(rt_session_is_agent(&ses));
	ses.agent_start = 0; /* no start given: nobody is the agent (fail closed) */
	cr_expect_not(rt_session_is_agent(&ses));
	snprintf(sess, sizeof(sess), "%d.1700000000.250000000.%llu", (int)getppid(), parent);
	cr_assert_eq(rt_session_parse(sess, &ses), 0);
	cr_expect_not(rt_session_is_agent(&ses), "the parent's session does not make us its agent");
	cr_assert_eq(rt_session_parse("123.1700000000.250000000", &ses), 0);
	cr_expect_eq(ses.agent_start, 0);
	cr_assert_eq(rt_session_parse("0.1700000000.250000000.77", &ses), 0);
	cr_expect_eq(ses.agent_start, 0, "no agent, no agent start");
	cr_expect_eq(rt_proc_start(0x7ffffff0), 0, "no such process");
}

/* DESIGN.md: "before the session" is decided on the file system's own clock. A file
 * made right before a session starts is never the session's own; one made right after
 * always is (the start is the stamp of a file made then, and the clock has moved past
 * it when the start is returned). 50 times each way, with both starts. */
Test(runtime, a_file_made_just_before_the_start_is_older_than_the_session)
{
	char dir[] = "/tmp/dcg-test-rt-XXXXXX", f[PATH_MAX], kept[PATH_MAX];
	int before_new = 0, after_old = 0;

	cr_assert(mkdtemp(dir));
	for (int i = 0; i < 100; i++) {
		long long start;
		int fd;

		snprintf(f, sizeof f, "%s/f%d", dir, i);
		fd = open(f, O_WRONLY | O_CREAT | O_EXCL, 0600);
		cr_assert(fd >= 0);
		close(fd);
		if (i % 2) {
			snprintf(kept, sizeof kept, "%s/session-%d", dir, i);
			start = rt_session_begin(kept);
		} else {
			start = rt_session_now();
		}
		cr_assert(start > 0);
		before_new += rt_created_since(AT_FDCWD, f, start);
		snprintf(f, sizeof f, "%s/g%d", dir, i);
		fd = open(f, O_WRONLY | O_CREAT | O_EXCL, 0600);
		cr_assert(fd >= 0);
		close(fd);
		after_old += !rt_created_since(AT_FDCWD, f, start);
	}
	cr_expect_eq(before_new, 0, "%d of 100 files made just before the start passed for new",
		     before_new);
	cr_expect_eq(after_old, 0, "%d of 100 files made just after the start passed for old",
		     after_old);
	cr_expect_eq(rt_session_begin(kept), -EEXIST, "an existing file is not a session's");
	snprintf(f, sizeof f, "rm -rf '%s'", dir);
	cr_expect_eq(system(f), 0);
}

Test(runtime, session_value_carries_its_file_of_kept_names)
{
	struct rt_session ses;

	cr_assert_eq(rt_session_parse("7.1700000000.5:/run/user/1/dcg/session-7-0", &ses), 0);
	cr_expect_eq(ses.agent, 7);
	cr_expect_eq(ses.start_ns, 1700000000LL * 1000000000LL + 5);
	cr_expect_str_eq(ses.kept, "/run/user/1/dcg/session-7-0");
	cr_assert_eq(rt_session_parse("7.1700000000.5", &ses), 0);
	cr_expect_null(ses.kept);
	cr_expect_eq(rt_session_parse("7.1700000000.5x", &ses), -EINVAL);
}

/* The one format holds both: the agent's start and the file of kept names; what
 * rt_session_format() writes, rt_session_parse() reads back whole. */
Test(runtime, session_format_holds_the_agent_start_and_the_kept_file)
{
	struct rt_session in = {.agent = 4242,
				.agent_start = 987654321ULL,
				.start_ns = 1700000000LL * 1000000000LL + 5,
				.kept = "/run/user/1/dcg/session-4242-0"},
			  out;
	char buf[128], small[20];

	cr_assert_gt(rt_session_format(buf, sizeof buf, &in), 0);
	cr_expect_str_eq(buf, "4242.1700000000.000000005.987654321:/run/user/1/dcg/session-4242-0");
	cr_assert_eq(rt_session_parse(buf, &out), 0);
	cr_expect_eq(out.agent, 4242);
	cr_expect_eq(out.agent_start, 987654321ULL);
	cr_expect_eq(out.start_ns, in.start_ns);
	cr_expect_str_eq(out.kept, in.kept);
	in.kept = NULL;
	cr_assert_gt(rt_session_format(buf, sizeof buf, &in), 0);
	cr_expect_str_eq(buf, "4242.1700000000.000000005.987654321");
	in.agent = 0; /* a shell prefix: no agent, no agent start */
	cr_assert_gt(rt_session_format(buf, sizeof buf, &in), 0);
	cr_expect_str_eq(buf, "0.1700000000.000000005.0");
	cr_expect_eq(rt_session_format(small, sizeof small, &in), -ENAMETOOLONG);
	cr_expect_str_eq(small, "");
}

/* A forged or damaged value gives nothing: no agent, no start (nothing is the
 * session's own), no file; never a part of it. */
Test(runtime, a_malformed_session_is_refused_whole)
{
	static const char *const bad[] = {
	    "7.1700000000.5.99:relative/session",
	    "7.1700000000.5.99:/run/dcg/../home/u/empty",
	    "7.1700000000.5.99:/run/dcg/./session-7-0",
	    "7.1700000000.5.99:/run//dcg/session-7-0",
	    "7.1700000000.5.99:",
	    "7.1700000000.5.99x",
	    "7.1700000000.5.",
	    "7.1700000000.",
	    "7..5",
	    ".1700000000.5",
	    "7.1700000000.1000000000",
	    "99999999999.1700000000.5",
	    "7.1700000000.5.99.3",
	    "7.1700000000.5.99999999999999999999999",
	    "7.0.5",
	    "-7.1700000000.5",
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct rt_session ses = {.agent = 1, .agent_start = 1, .start_ns = 1, .kept = "x"};

		cr_expect_eq(rt_session_parse(bad[i], &ses), -EINVAL, "%s", bad[i]);
		cr_expect(ses.agent == 0 && ses.agent_start == 0 && ses.start_ns == 0 && !ses.kept,
			  "%s: something was taken from it", bad[i]);
	}
}

/* The kept names: what rt_kept_add() wrote, rt_kept_has() finds, and nothing else. */
Test(runtime, kept_names_are_found_by_device_inode_and_birth)
{
	char dir[] = "/tmp/dcg-test-kept-XXXXXX", file[PATH_MAX], f[PATH_MAX];
	struct rt_obj a, b, c;
	long long start;

	cr_assert(mkdtemp(dir));
	snprintf(file, sizeof file, "%s/session", dir);
	start = rt_session_begin(file);
	cr_assert(start > 0);
	for (int i = 0; i < 300; i++) { /* more than one read's worth */
		struct rt_obj o = {.dev = 1, .ino = (uint64_t)i + 10, .born = i};

		cr_assert_eq(rt_kept_add(file, &o), 0);
	}
	snprintf(f, sizeof f, "%s/a", dir);
	close(open(f, O_WRONLY | O_CREAT, 0600));
	cr_assert_eq(rt_obj_at(AT_FDCWD, f, &a), 0);
	cr_expect(S_ISREG(a.mode));
	cr_expect_gt(a.born, start);
	snprintf(f, sizeof f, "%s/b", dir);
	close(open(f, O_WRONLY | O_CREAT, 0600));
	cr_assert_eq(rt_obj_at(AT_FDCWD, f, &b), 0);
	cr_expect_eq(rt_kept_has(file, &a), 0);
	cr_assert_eq(rt_kept_add(file, &a), 0);
	cr_expect_eq(rt_kept_has(file, &a), 1);
	cr_expect_eq(rt_kept_has(file, &b), 0);
	c = a;
	c.born++; /* the same inode number, another file (told apart by a birth time) */
	cr_expect_eq(rt_kept_has(file, &c), !a.has_btime);
	c.has_btime = 0; /* no birth time: the device and inode alone */
	cr_expect_eq(rt_kept_has(file, &c), 0);
	c.born = 12345;
	cr_assert_eq(rt_kept_add(file, &c), 0);
	c.born = 54321; /* a change time moves (the rename itself): still kept */
	cr_expect_eq(rt_kept_has(file, &c), 1);
	cr_expect_eq(rt_kept_has(NULL, &a), 0);
	/* a session whose file is gone (or cannot be read) keeps everything */
	snprintf(f, sizeof f, "%s/gone", dir);
	cr_expect_eq(rt_kept_has(f, &b), 1);
	cr_expect_eq(rt_obj_at(AT_FDCWD, "/nonexistent/x", &c), -ENOENT);
	snprintf(f, sizeof f, "rm -rf '%s'", dir);
	cr_expect_eq(system(f), 0);
}
