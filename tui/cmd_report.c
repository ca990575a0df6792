/* c2ctui report (placeholder until its owner lands it). */
#include "tui/commands.h"

#include <stdio.h>

int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "c2ctui report: this command is not in this build yet\n");
	return 2;
}
