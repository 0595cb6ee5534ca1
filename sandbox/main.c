/* main.c - sbx-run: `dcg sandbox` alone, for debugging the supervisor. */
#include "sandbox.h"

int main(int argc, char **argv)
{
	return cmd_sandbox(argc, argv);
}
