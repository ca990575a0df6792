/* c2ctui open (placeholder until its owner lands it). */
#include "tui/commands.h"

#include <stdio.h>

int cmd_open(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "c2ctui open: this command is not in this build yet\n");
	return 2;
}
