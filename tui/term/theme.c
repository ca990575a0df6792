/* The theme table: one place that decides how each semantic element looks,
 * in colour and in monochrome. */
#include "tui/term/theme.h"

#include <stdlib.h>

static const struct theme_style styles[TH_COUNT] = {
	[TH_NORMAL]       = { TC_DEFAULT, TC_DEFAULT, 0, 0 },
	[TH_HEADER]       = { TC_CYAN, TC_DEFAULT, 0, 0 },
	[TH_HEADER_LABEL] = { TC_DEFAULT, TC_DEFAULT, TA_BOLD, TA_BOLD },
	[TH_TITLE]        = { TC_BLACK, TC_CYAN, 0, TA_REVERSE },
	[TH_COLHEAD]      = { TC_BLACK, TC_GREEN, 0, TA_REVERSE },
	[TH_COLHEAD_SORT] = { TC_BLACK, TC_YELLOW, TA_BOLD, TA_REVERSE | TA_UNDERLINE | TA_BOLD },
	[TH_SELECTED]     = { TC_BLACK, TC_CYAN, 0, TA_REVERSE },
	[TH_STATUS]       = { TC_WHITE, TC_BLUE, 0, TA_REVERSE },
	[TH_STATUS_KEY]   = { TC_YELLOW, TC_BLUE, TA_BOLD, TA_REVERSE | TA_BOLD },
	[TH_PROMPT]       = { TC_DEFAULT, TC_DEFAULT, TA_BOLD, TA_BOLD },
	[TH_ERROR]        = { TC_WHITE, TC_RED, TA_BOLD, TA_REVERSE | TA_BOLD },
	[TH_DIM]          = { TC_DEFAULT, TC_DEFAULT, TA_DIM, TA_DIM },
	[TH_MARK]         = { TC_BLACK, TC_YELLOW, 0, TA_UNDERLINE | TA_BOLD },
	[TH_SOURCE_HOT]   = { TC_YELLOW, TC_DEFAULT, TA_BOLD, TA_BOLD | TA_UNDERLINE },
	[TH_HEAT0]        = { TC_BLUE, TC_DEFAULT, 0, TA_DIM },
	[TH_HEAT1]        = { TC_GREEN, TC_DEFAULT, 0, 0 },
	[TH_HEAT2]        = { TC_YELLOW, TC_DEFAULT, 0, 0 },
	[TH_HEAT3]        = { TC_MAGENTA, TC_DEFAULT, TA_BOLD, TA_BOLD },
	[TH_HEAT4]        = { TC_RED, TC_DEFAULT, TA_BOLD, TA_BOLD },
};

const struct theme_style *theme_style(enum theme_elem e)
{
	if ((int)e < 0 || e >= TH_COUNT)
		e = TH_NORMAL;
	return &styles[e];
}

enum theme_elem theme_heat(double frac)
{
	/* Thresholds favour the top: a line with a fifth of all HITM is hot. */
	if (!(frac > 0.0))
		return TH_HEAT0;
	if (frac < 0.02)
		return TH_HEAT0;
	if (frac < 0.05)
		return TH_HEAT1;
	if (frac < 0.10)
		return TH_HEAT2;
	if (frac < 0.20)
		return TH_HEAT3;
	return TH_HEAT4;
}

int theme_use_color(int has_colors)
{
	const char *nc = getenv("NO_COLOR");

	if (nc && nc[0])
		return 0;
	return has_colors;
}
