/* Semantic screen elements and the colours/attributes they map to. Views and
 * widgets name elements (header, selection, heat level...), never colours,
 * so monochrome (NO_COLOR, or a terminal without colours) is one switch. */
#ifndef C2C_THEME_H
#define C2C_THEME_H

enum theme_elem {
	TH_NORMAL,
	TH_HEADER,        /* summary lines at the top */
	TH_HEADER_LABEL,  /* "samples:" labels in the header */
	TH_TITLE,         /* the view title bar */
	TH_COLHEAD,       /* table column headings */
	TH_COLHEAD_SORT,  /* the heading of the sort column */
	TH_SELECTED,      /* the cursor row */
	TH_STATUS,        /* the status line */
	TH_STATUS_KEY,    /* key names in the status line */
	TH_PROMPT,        /* search / filter input */
	TH_ERROR,         /* one-line messages */
	TH_DIM,           /* zeros, unknown values */
	TH_MARK,          /* search matches, timeline selection */
	TH_SOURCE_HOT,    /* the sampled source line */
	TH_HEAT0,         /* heat levels, coolest to hottest */
	TH_HEAT1,
	TH_HEAT2,
	TH_HEAT3,
	TH_HEAT4,
	TH_COUNT
};

enum theme_color {
	TC_DEFAULT = -1,
	TC_BLACK = 0, TC_RED, TC_GREEN, TC_YELLOW, TC_BLUE, TC_MAGENTA, TC_CYAN, TC_WHITE,
};

enum theme_attr {
	TA_BOLD = 1u << 0,
	TA_REVERSE = 1u << 1,
	TA_UNDERLINE = 1u << 2,
	TA_DIM = 1u << 3,
};

struct theme_style {
	short fg, bg;        /* enum theme_color */
	unsigned attr;       /* enum theme_attr, in colour mode */
	unsigned mono_attr;  /* enum theme_attr, in monochrome mode */
};

/* The style of an element (e out of range: TH_NORMAL's). */
const struct theme_style *theme_style(enum theme_elem e);
/* The heat element for a share in [0, 1]. */
enum theme_elem theme_heat(double frac);
/* Whether colours should be used: NO_COLOR (any value, per no-color.org)
 * turns them off; has_colors is what the terminal reports. */
int theme_use_color(int has_colors);

#endif /* C2C_THEME_H */
