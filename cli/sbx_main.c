/* sbx_main.c - sbx-run: `dcg sandbox` alone (sbx-run ARGS == dcg sandbox ARGS), for the
 * sandbox benchmark (SBX_BIN) and for debugging the supervisor without the rest of dcg. */
#include "commands.h"

int main(int argc, char **argv)
{
	return cmd_sandbox(argc, argv);
}
