/* c2ctui live (placeholder until its owner lands it). */
#include "tui/commands.h"

#include <stdio.h>

int cmd_live(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "c2ctui live: this command is not in this build yet\n");
	return 2;
}
