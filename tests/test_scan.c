/* test_scan.c - `dcg scan`'s parts driven directly: the engine's every-finding callback
 * and its scan judgement (policy/decide.c), which files are read (the table of kinds), and
 * each extractor's snippets with their place in the file (cli/scan_*.c). The whole
 * command on a fixture repository: tests/integration/test_scan.sh. */
#include "../cli/scan.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dcg_policy.h"

/* ---- the engine --------------------------------------------------------------------- */

struct seen {
	char rule[16][64];
	unsigned line[16];
	int decision[16];
	size_t n;
};

static void collect(const struct pol_result *r, void *arg)
{
	struct seen *s = arg;

	if (s->n < 16) {
		snprintf(s->rule[s->n], sizeof(s->rule[0]), "%s", r->rule_id ? r->rule_id : "");
		s->line[s->n] = r->cmd_line;
		s->decision[s->n] = r->decision;
		s->n++;
	}
}

static struct pol_policy *embedded(void)
{
	struct pol_policy *p = pol_new(0);

	cr_assert(p);
	cr_assert_eq(pol_load_embedded(p), 0);
	pol_set_home(p, "/home/someone");
	return p;
}

static void judge(struct pol_policy *p, const char *cmd, unsigned flags, struct seen *s)
{
	struct pol_ctx ctx;
	struct pol_result r;

	memset(s, 0, sizeof(*s));
	memset(&ctx, 0, sizeof(ctx));
	ctx.cwd = "/srv/proj";
	ctx.flags = flags;
	ctx.finding = collect;
	ctx.finding_arg = s;
	pol_check_command(p, cmd, strlen(cmd), &ctx, &r);
	pol_result_release(&r);
}

static int has(const struct seen *s, const char *rule, unsigned line)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->rule[i], rule) && s->line[i] == line)
			return 1;
	return 0;
}

Test(scan_engine, every_finding_is_reported_with_its_line_not_only_the_first_deny)
{
	struct pol_policy *p = embedded();
	struct seen s;

	judge(p, "echo start\ngit reset --hard\nls\ngit push --force origin main\n", POL_CTX_SCAN,
	      &s);
	cr_assert(has(&s, "core.git.reset_hard", 2), "%zu findings", s.n);
	cr_assert(has(&s, "core.git.push_force", 4), "%zu findings", s.n);
	pol_free(p);
}

Test(scan_engine, a_heredoc_finding_names_the_line_inside_the_command)
{
	struct pol_policy *p = embedded();
	struct seen s;

	judge(p,
	      "echo a\npython3 <<'EOF'\nimport os\nos.system('ls')\nimport shutil\n"
	      "shutil.rmtree(os.path.expanduser('~'))\nEOF\n",
	      POL_CTX_SCAN, &s);
	cr_assert(has(&s, "heredoc.python.shutil_rmtree", 6), "%zu findings, first %s at %u", s.n,
		  s.rule[0], s.line[0]);
	judge(p,
	      "python3 <<'EOF'\nimport shutil, os\nshutil.rmtree(os.path.expanduser('~'))\nEOF\n",
	      POL_CTX_SCAN, &s);
	cr_assert(has(&s, "heredoc.python.shutil_rmtree", 3), "at %u", s.line[0]);
	judge(p,
	      "echo a\npython3 -c \"import shutil, os; shutil.rmtree(os.path.expanduser('~'))\"\n",
	      POL_CTX_SCAN, &s);
	cr_assert(has(&s, "heredoc.python.shutil_rmtree", 2), "at %u", s.line[0]);
	pol_free(p);
}

Test(scan_engine, scan_judges_a_deletion_by_its_targets)
{
	struct pol_policy *p = embedded();
	struct seen s;

	judge(p, "rm -rf build dist node_modules", POL_CTX_SCAN, &s);
	cr_assert_eq(s.n, 0, "rm -rf build: %s", s.rule[0]);
	judge(p, "rm -rf build dist node_modules", 0, &s); /* the hook's judgement */
	cr_assert_gt(s.n, 0);
	judge(p, "rm -rf /", POL_CTX_SCAN, &s);
	cr_assert(has(&s, "core.filesystem.rm_root", 1));
	judge(p, "rm -rf $HOME", POL_CTX_SCAN, &s);
	cr_assert_gt(s.n, 0, "rm -rf $HOME passed");
	judge(p, "git reset --hard", POL_CTX_SCAN, &s); /* not a deletion rule */
	cr_assert(has(&s, "core.git.reset_hard", 1));
	pol_free(p);
}

Test(scan_engine, without_a_callback_the_decision_is_unchanged)
{
	struct pol_policy *p = embedded();
	struct pol_result r;

	cr_assert_eq(pol_check_command(p, "ls\ngit reset --hard", 19, NULL, &r), POL_DENY);
	cr_assert_str_eq(r.rule_id, "core.git.reset_hard");
	cr_assert_eq(r.line, 2);
	pol_result_release(&r);
	pol_free(p);
}

/* ---- which files ---------------------------------------------------------------------- */

Test(scan_classify, names_and_shebangs)
{
	static const struct {
		const char *path, *head;
		enum scan_kind kind;
	} rows[] = {
	    {"Makefile", "", SCAN_MAKE},
	    {"sub/GNUmakefile", "", SCAN_MAKE},
	    {"rules.mk", "", SCAN_MAKE},
	    {"Dockerfile", "", SCAN_DOCKER},
	    {"docker/Containerfile.dev", "", SCAN_DOCKER},
	    {"app.Dockerfile", "", SCAN_DOCKER},
	    {".github/workflows/ci.yml", "", SCAN_GHA},
	    {".github/workflows/ci.yaml", "", SCAN_GHA},
	    {"actions/setup/action.yml", "", SCAN_GHA},
	    {"sub/.github/workflows/ci.yml", "", SCAN_NONE},
	    {".gitlab-ci.yml", "", SCAN_GITLAB},
	    {"ci/deploy.gitlab-ci.yml", "", SCAN_GITLAB},
	    {"web/package.json", "", SCAN_NPM},
	    {"compose.yaml", "", SCAN_COMPOSE},
	    {"docker-compose.prod.yml", "", SCAN_COMPOSE},
	    {"justfile", "", SCAN_JUST},
	    {"infra/main.tf", "", SCAN_TF},
	    {"run.sh", "", SCAN_SHELL},
	    {"tools/release", "#!/bin/sh\n", SCAN_SHELL},
	    {"tools/release", "#!/usr/bin/env bash\n", SCAN_SHELL},
	    {"tools/release", "#! /usr/bin/env -S bash -e\n", SCAN_SHELL},
	    {"tools/release", "#!/bin/zsh -f\n", SCAN_SHELL},
	    {"tools/gen", "#!/usr/bin/env python3\n", SCAN_NONE},
	    {"tools/gen", "#!/usr/bin/perl\n", SCAN_NONE},
	    {"README.md", "git reset --hard", SCAN_NONE},
	    {"main.c", "int main;", SCAN_NONE},
	    {"package-lock.json", "{}", SCAN_NONE},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		cr_expect_eq(scan_classify(rows[i].path, rows[i].head, strlen(rows[i].head)),
			     rows[i].kind, "%s (%s): %s", rows[i].path, rows[i].head,
			     scan_kind_name(
				 scan_classify(rows[i].path, rows[i].head, strlen(rows[i].head))));
}

/* ---- extractors: text in, snippets out (their text and place) ----------------------------- */

static struct scan_snips extract(enum scan_kind k, const char *text)
{
	struct scan_snips s = {0};
	char err[160];
	int rc = scan_extract(k, text, strlen(text), &s, err, sizeof(err));

	cr_assert_eq(rc, 0, "extract: %d %s", rc, err);
	return s;
}

/* The snippet that holds needle; its line (and text) checked. */
static const struct scan_snip *find(const struct scan_snips *s, const char *needle)
{
	for (size_t i = 0; i < s->n; i++)
		if (memmem(s->v[i].text, s->v[i].len, needle, strlen(needle)))
			return &s->v[i];
	cr_assert_fail("no snippet holds '%s' (%zu snippets)", needle, s->n);
	return NULL;
}

Test(scan_extract, makefile_recipes_with_variables_and_automatic_ones)
{
	struct scan_snips s =
	    extract(SCAN_MAKE, "OUT := build\n"
			       "DEST ?= /\n"
			       "FLAGS = -rf\n"
			       "FLAGS += -v\n"
			       "\n"
			       "clean: dep1 dep2\n"
			       "\t@$(RM) $(FLAGS) $(OUT) \\\n"
			       "\t  extra\n"
			       "\n"
			       "wipe:\n"
			       "\t-rm -rf ${DEST} $@ $< $$HOME $(UNSET) $(shell pwd)\n"
			       "x: ; echo inline\n"
			       "define BLOCK\n"
			       "\trm -rf /\n"
			       "endef\n");
	const struct scan_snip *a = find(&s, "rm -f -rf -v build");

	cr_assert_eq(a->line, 7);
	cr_assert_eq(a->exact, 1);
	cr_assert(strstr(a->text, "\\\n  extra"), "continuation kept: %s", a->text);
	cr_assert_str_eq(a->where, "recipe clean");
	const struct scan_snip *b = find(&s, "rm -rf / wipe  $HOME ${UNSET} $(pwd)");
	cr_assert_eq(b->line, 11);
	cr_assert_eq(find(&s, "echo inline")->line, 12);
	cr_assert_eq(s.n, 3, "define ... endef is no recipe");
	scan_snips_release(&s);
}

Test(scan_extract, makefile_recursive_variables_end)
{
	struct scan_snips s = {0};
	char err[160];
	const char *t = "A = $(A) $(A)\nall:\n\techo $(A)\n";

	/* a self-reference stops at the depth limit, a doubling one at the size limit */
	int rc = scan_extract(SCAN_MAKE, t, strlen(t), &s, err, sizeof(err));
	cr_assert(rc == 0 || (rc == -EINVAL && strstr(err, "expands past")), "%d %s", rc, err);
	scan_snips_release(&s);
}

Test(scan_extract, dockerfile_forms)
{
	struct scan_snips s = extract(SCAN_DOCKER, "# syntax=docker/dockerfile:1\n"
						   "FROM debian\n"
						   "RUN apt-get update \\\n"
						   "    # a comment Docker drops\n"
						   "    && git reset --hard\n"
						   "RUN [\"sh\", \"-c\", \"git clean -fdx\"]\n"
						   "RUN --mount=type=cache,target=/c <<EOF\n"
						   "echo one\n"
						   "git push -f\n"
						   "EOF\n"
						   "ENV X=1 \\\n"
						   "    Y=2\n"
						   "run echo lower\n"
						   "RUN echo \"a<<b\" 'c<<d'\n"
						   "RUN git reset --hard\n"
						   "b\n");
	const struct scan_snip *a = find(&s, "git reset --hard");

	cr_assert_eq(a->line, 3);
	cr_assert_eq(a->exact, 1);
	/* each line of the text is the file's: the reset is on the text's third line */
	cr_assert(strstr(a->text, "\n\\\n    && git reset"), "%s", a->text);
	const struct scan_snip *b = find(&s, "git clean -fdx");
	cr_assert_eq(b->is_argv, 1);
	cr_assert_str_eq(b->text, "sh");
	const struct scan_snip *c = find(&s, "git push -f");
	cr_assert_eq(c->line, 7);
	cr_assert(!strncmp(c->text, "sh <<EOF\n", 9), "RUN <<EOF runs the body: %s", c->text);
	cr_assert_eq(find(&s, "echo lower")->line, 13);
	cr_assert_eq(s.v[s.n - 1].line, 15);
	cr_assert_str_eq(s.v[s.n - 1].text, "git reset --hard");
	cr_assert_eq(s.n, 6, "a << inside quotes opens no heredoc");
	scan_snips_release(&s);
}

Test(scan_extract, github_steps_block_scalars_and_shells)
{
	struct scan_snips s = extract(SCAN_GHA, "on: push\n"
						"jobs:\n"
						"  build:\n"
						"    steps:\n"
						"      - run: make\n"
						"      - name: multi\n"
						"        run: |\n"
						"          echo ${{ github.ref }}\n"
						"          git push --force\n"
						"      - shell: python\n"
						"        run: print(1)\n"
						"      - shell: bash\n"
						"        run: 'echo quoted'\n");
	const struct scan_snip *a = find(&s, "make");

	cr_assert_eq(a->line, 5);
	cr_assert_eq(a->col, 14);
	const struct scan_snip *b = find(&s, "git push --force");
	cr_assert_eq(b->line, 8, "a | block's text starts on the next line");
	cr_assert_eq(b->exact, 1);
	cr_assert(strstr(b->text, "echo ${GHA_EXPR}\n"), "%s", b->text);
	cr_assert_str_eq(b->where, "job build step multi");
	cr_assert_eq(find(&s, "echo quoted")->col, 15);
	cr_assert_eq(s.n, 3, "a python step is not read");
	scan_snips_release(&s);
}

Test(scan_extract, gitlab_scripts_and_compose_commands)
{
	struct scan_snips s = extract(SCAN_GITLAB, "default:\n"
						   "  before_script: [echo pre]\n"
						   "job:\n"
						   "  script:\n"
						   "    - make\n"
						   "    - - nested one\n"
						   "  after_script: echo post\n"
						   "variables:\n"
						   "  script: not-a-job-key\n");

	cr_assert_eq(find(&s, "echo pre")->line, 2);
	cr_assert_eq(find(&s, "nested one")->line, 6);
	cr_assert_eq(find(&s, "echo post")->line, 7);
	scan_snips_release(&s);
	s = extract(SCAN_COMPOSE, "services:\n"
				  "  a:\n"
				  "    command: echo $$HOME\n"
				  "  b:\n"
				  "    entrypoint: [\"sh\", \"-c\", \"dropdb x\"]\n");
	cr_assert_str_eq(find(&s, "echo $HOME")->text, "echo $HOME");
	cr_assert_eq(find(&s, "dropdb x")->is_argv, 1);
	scan_snips_release(&s);
}

Test(scan_extract, yaml_aliases_are_not_expanded_and_depth_is_bounded)
{
	struct scan_snips s = {0};
	char err[160], *deep = malloc(20001);

	for (int i = 0; i < 10000; i++) {
		deep[i] = '[';
		deep[10000 + i] = ']';
	}
	deep[20000] = '\0';
	cr_assert_eq(scan_extract(SCAN_GITLAB, deep, 20000, &s, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "nested deeper"), "%s", err);
	free(deep);
	scan_snips_release(&s);
	s = extract(SCAN_GITLAB, "x: &a [\"git push -f\"]\n"
				 "job:\n"
				 "  script: *a\n");
	cr_assert_eq(s.n, 0, "the alias is not followed (its anchor is not a script)");
	scan_snips_release(&s);
	cr_assert_eq(scan_extract(SCAN_GHA, "a: [", 4, &s, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "YAML error at line"), "%s", err);
	scan_snips_release(&s);
}

Test(scan_extract, npm_just_and_terraform)
{
	struct scan_snips s =
	    extract(SCAN_NPM, "{\n  \"scripts\": {\n    \"clean\": \"rm -rf dist\",\n"
			      "    \"wipe\":\"git clean -fdx\"\n  }\n}\n");
	const struct scan_snip *a = find(&s, "git clean -fdx");

	cr_assert_eq(a->line, 4);
	cr_assert_eq(a->col, 13);
	scan_snips_release(&s);
	s = extract(SCAN_JUST, "dir := '/srv'\n"
			       "set shell := [\"bash\", \"-c\"]\n"
			       "\n"
			       "clean arg='x': build\n"
			       "    @rm -rf {{dir}}/{{arg}}\n"
			       "\n"
			       "[private]\n"
			       "script:\n"
			       "    #!/usr/bin/env bash\n"
			       "    git push -f\n"
			       "py:\n"
			       "    #!/usr/bin/env python3\n"
			       "    import os\n");
	cr_assert_str_eq(find(&s, "rm -rf")->text, "rm -rf /srv/${JUST_EXPR}");
	cr_assert_eq(find(&s, "rm -rf")->line, 5);
	cr_assert_eq(find(&s, "git push -f")->line, 9, "a #! recipe whole, from its first line");
	cr_assert_eq(s.n, 2, "a python recipe is not read");
	scan_snips_release(&s);
	s = extract(SCAN_TF, "resource \"x\" \"y\" {\n"
			     "  provisioner \"local-exec\" {\n"
			     "    command = \"echo ${self.id} \\\"q\\\"\"\n"
			     "  }\n"
			     "  provisioner \"local-exec\" {\n"
			     "    command = <<-EOT\n"
			     "      git push -f\n"
			     "    EOT\n"
			     "  }\n"
			     "}\n");
	cr_assert_str_eq(find(&s, "echo")->text, "echo ${TF_EXPR} \"q\"");
	cr_assert_eq(find(&s, "echo")->line, 3);
	cr_assert_eq(find(&s, "git push -f")->line, 7);
	scan_snips_release(&s);
}
