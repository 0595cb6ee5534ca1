/* corpus_file.h - the two line forms of tests/corpus/ *.tsv that every reader of the
 * corpus (test_corpus, test_ruleindex, bench_shell) decodes alike.
 *
 * A row is "decision<TAB>rule<TAB>command", the command written with \n, \t and \\
 * escapes: corpus_unescape() undoes them. A "#packs: a b" line names the opt-in packs
 * the rows below it need: corpus_packs_yaml() turns it into the policy text that
 * enables them. Other lines starting with # are comments. */
#ifndef DCG_TESTS_CORPUS_FILE_H
#define DCG_TESTS_CORPUS_FILE_H

#include <stdio.h>
#include <string.h>

/* Undoes the \n \t \\ escapes of s in place; returns the new length. */
static inline size_t corpus_unescape(char *s)
{
	size_t o = 0;

	for (size_t i = 0; s[i]; i++) {
		if (s[i] == '\\' && s[i + 1]) {
			i++;
			s[o++] = s[i] == 'n' ? '\n' : s[i] == 't' ? '\t' : s[i];
		} else {
			s[o++] = s[i];
		}
	}
	s[o] = '\0';
	return o;
}

/* For a "#packs: a b" line, writes "packs: [a,b]" into yaml and returns its length;
 * 0 for any other line; (size_t)-1 when yaml is too small. */
static inline size_t corpus_packs_yaml(const char *line, char *yaml, size_t size)
{
	int n;

	if (strncmp(line, "#packs:", 7) != 0)
		return 0;
	n = snprintf(yaml, size, "packs: [%s]", line + 7);
	if (n <= 0 || (size_t)n >= size)
		return (size_t)-1;
	for (char *c = yaml + 7; *c; c++)
		if (*c == ' ' && c[-1] != '[' && c[-1] != ',')
			*c = ',';
	return (size_t)n;
}

#endif
