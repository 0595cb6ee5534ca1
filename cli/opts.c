/* opts.c - getopt_long over a table of options that holds no pointer. */
#include "commands.h"

#include <stddef.h>

int cli_getopt(int argc, char **argv, const char *shortopts, const struct cli_option *opts)
{
	struct option longopts[CLI_OPTIONS_MAX + 1];
	size_t n = 0;

	for (; n < CLI_OPTIONS_MAX && opts[n].name[0]; n++)
		longopts[n] = (struct option){opts[n].name, opts[n].has_arg, NULL, opts[n].val};
	longopts[n] = (struct option){NULL, 0, NULL, 0};
	return getopt_long(argc, argv, shortopts, longopts, NULL);
}
