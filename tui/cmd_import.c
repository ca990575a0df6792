/* c2ctui import (placeholder until its owner lands it). */
#include "tui/commands.h"

#include <stdio.h>

int cmd_import(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "c2ctui import: this command is not in this build yet\n");
	return 2;
}
