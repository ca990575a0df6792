/* Unit tests of the TUI's pure parts: text measuring/clipping, heat bars,
 * number formats, table cursor/scroll/layout, the prompt, the keymap, the
 * view kinds, the theme's NO_COLOR rule and the filter language. No terminal needed. */
#include "tests/unit/test.h"
#include "store/store.h"
#include "tui/explorer/keymap.h"
#include "tui/explorer/view.h"
#include "tui/explorer/view_registry.h"
#include "tui/term/term.h"
#include "tui/term/theme.h"
#include "tui/term/widget.h"

#include <errno.h>
#include <locale.h>

static void test_text_ascii(void)
{
	char buf[64];
	int cols;
	size_t n;

	text_set_utf8(0);
	CHECK(text_width("hello") == 5);
	n = text_clip(buf, sizeof(buf), "hello world", 5, &cols);
	CHECK_STR(buf, "hell~");
	CHECK(n == 5 && cols == 5);
	text_clip(buf, sizeof(buf), "abc", 5, &cols);
	CHECK_STR(buf, "abc");
	CHECK(cols == 3);
	/* Bytes above 0x7f are not printed raw in a non-UTF-8 locale. */
	text_clip(buf, sizeof(buf), "a\xc3\xa9z", 10, &cols);
	CHECK_STR(buf, "a??z");
	text_clip(buf, sizeof(buf), "abc", 0, &cols);
	CHECK_STR(buf, "");
	CHECK(cols == 0);
}

static void test_text_utf8(void)
{
	char buf[64];
	int cols;

	if (!setlocale(LC_CTYPE, "C.UTF-8")) {
		test_skip("no C.UTF-8 locale");
		return;
	}
	text_set_utf8(1);
	/* "é" is two bytes, one column; "界" is three bytes, two columns. */
	CHECK(text_width("caf\xc3\xa9") == 4);
	CHECK(text_width("\xe7\x95\x8c") == 2);
	text_clip(buf, sizeof(buf), "caf\xc3\xa9 au lait", 5, &cols);
	CHECK_STR(buf, "caf\xc3\xa9\xe2\x80\xa6");
	CHECK(cols == 5);
	/* A wide character that would cross the edge is left out. */
	text_clip(buf, sizeof(buf), "ab\xe7\x95\x8c\xe7\x95\x8c", 4, &cols);
	CHECK_STR(buf, "ab\xe2\x80\xa6");
	CHECK(cols == 3);
	text_set_utf8(0);
	setlocale(LC_CTYPE, "C");
}

static void test_numbers(void)
{
	char buf[32];

	text_count(buf, sizeof(buf), 1234, 6);
	CHECK_STR(buf, "1234");
	text_count(buf, sizeof(buf), 1234567, 6);
	CHECK_STR(buf, "1235k");
	text_count(buf, sizeof(buf), 1234567, 4);
	CHECK_STR(buf, "1.2M");
	text_count(buf, sizeof(buf), 999999, 6);
	CHECK_STR(buf, "999999");
	text_count(buf, sizeof(buf), 12345678901ull, 5);
	CHECK_STR(buf, "12.3G");
	text_pct(buf, sizeof(buf), 1, 3);
	CHECK_STR(buf, "33.33%");
	text_pct(buf, sizeof(buf), 5, 5);
	CHECK_STR(buf, "100%");
	text_pct(buf, sizeof(buf), 1, 0);
	CHECK_STR(buf, "");
}

static void test_bars(void)
{
	char buf[128];

	bar_render(buf, sizeof(buf), 0.5, 8, 0);
	CHECK_STR(buf, "####    ");
	bar_render(buf, sizeof(buf), 1.0, 4, 0);
	CHECK_STR(buf, "####");
	bar_render(buf, sizeof(buf), 0.0, 4, 0);
	CHECK_STR(buf, "    ");
	/* A tiny nonzero share still shows. */
	bar_render(buf, sizeof(buf), 0.001, 4, 0);
	CHECK_STR(buf, ":   ");
	bar_render(buf, sizeof(buf), 0.3125, 2, 1);   /* 5/16: 5 eighths */
	CHECK_STR(buf, "\xe2\x96\x8b ");
	bar_render(buf, sizeof(buf), 7.0, 2, 1);      /* clamped */
	CHECK_STR(buf, "\xe2\x96\x88\xe2\x96\x88");
	bar_render(buf, sizeof(buf), -1.0, 3, 1);
	CHECK_STR(buf, "   ");
}

static const struct table_col cols[] = {
	{ "#", 4, 0, TAL_RIGHT, -1, 0 },
	{ "Name", 0, 10, TAL_LEFT, 1, 0 },
	{ "Count", 6, 0, TAL_RIGHT, 2, 0 },
	{ "Wide", 30, 0, TAL_RIGHT, 3, 0 },
};

static void test_table_layout(void)
{
	struct table t;

	table_init(&t, cols, 4);
	table_resize(&t, 10, 80);
	/* 4 + 1 + flex + 1 + 6 + 1 + 30 = 80 -> flex gets 37. */
	CHECK(t.widths[0] == 4 && t.widths[2] == 6 && t.widths[3] == 30);
	CHECK(t.widths[1] == 37);
	CHECK(table_col_at(&t, 0) == 0);
	CHECK(table_col_at(&t, 4) == -1);
	CHECK(table_col_at(&t, 5) == 1);
	CHECK(table_col_at(&t, 79) == 3);
	/* Narrow: the first column that does not fit hides the rest. */
	table_resize(&t, 10, 30);
	CHECK(t.widths[3] == 0);
	CHECK(t.widths[1] == 30 - 4 - 1 - 6 - 1);
	table_resize(&t, 10, 12);
	CHECK(t.widths[0] == 4 && t.widths[1] == 0 && t.widths[2] == 0);
	/* Scrolling columns: the frozen first column stays, the next ones
	 * make room for what did not fit. */
	table_resize(&t, 10, 30);
	CHECK(t.hidden_right == 1);
	CHECK(table_scroll_cols(&t, 1) == 1);
	CHECK(t.widths[0] == 4 && t.widths[1] == 0 && t.widths[2] == 6 && t.widths[3] == 0);
	/* "Wide" (30) never fits in 30 columns beside the frozen one: the
	 * scroll stops at the last column. */
	CHECK(table_scroll_cols(&t, 1) == 1);
	CHECK(t.widths[0] == 4 && t.widths[2] == 0 && t.widths[3] == 0);
	CHECK(table_scroll_cols(&t, 1) == 0);
	table_resize(&t, 10, 40);
	CHECK(t.widths[3] == 30 && t.hidden_right == 0);
	CHECK(table_scroll_cols(&t, 1) == 0);   /* nothing more on the right */
	CHECK(table_scroll_cols(&t, -5) == 1);
	CHECK(t.scroll == 0 && t.widths[1] == 40 - 4 - 1 - 6 - 1);
	CHECK(table_scroll_cols(&t, -1) == 0);
}

static void test_table_cursor(void)
{
	struct table t;

	table_init(&t, cols, 4);
	table_resize(&t, 5, 80);
	table_set_rows(&t, 100);
	CHECK(t.cursor == 0 && t.top == 0);
	CHECK(table_move(&t, 4) == 1);
	CHECK(t.cursor == 4 && t.top == 0);
	table_move(&t, 1);
	CHECK(t.cursor == 5 && t.top == 1);
	CHECK(table_move(&t, -100) == 1);
	CHECK(t.cursor == 0 && t.top == 0);
	CHECK(table_move(&t, -1) == 0);
	table_goto(&t, 1000);
	CHECK(t.cursor == 99 && t.top == 95);
	/* Shrinking keeps the cursor in range and the page full. */
	table_set_rows(&t, 10);
	CHECK(t.cursor == 9 && t.top == 5);
	table_restore(&t, 3, 2);
	CHECK(t.cursor == 3 && t.top == 2);
	table_resize(&t, 20, 80);
	CHECK(t.top == 0);
	table_set_rows(&t, 0);
	CHECK(t.cursor == 0 && t.top == 0);
	CHECK(table_move(&t, 1) == 0);
	/* The page changes only when the first visible row does. */
	table_set_rows(&t, 100);
	table_resize(&t, 5, 80);
	table_drawn(&t);
	table_move(&t, 2);
	CHECK(!table_page_changed(&t));
	table_move(&t, 10);
	CHECK(table_page_changed(&t));
}

static void test_prompt(void)
{
	struct prompt p;

	prompt_start(&p, 7, "Search: ", "ab");
	CHECK(p.active && p.purpose == 7);
	CHECK(prompt_key(&p, 'c') == 0);
	CHECK_STR(p.text, "abc");
	CHECK(prompt_key(&p, 0xe9) == 0);             /* é as UTF-8 */
	CHECK_STR(p.text, "abc\xc3\xa9");
	CHECK(prompt_key(&p, TK_BACKSPACE) == 0);     /* removes the whole character */
	CHECK_STR(p.text, "abc");
	CHECK(prompt_key(&p, TK_ENTER) == 1);
	CHECK(!p.active);
	prompt_start(&p, 1, "x", NULL);
	prompt_key(&p, 'z');
	CHECK(prompt_key(&p, TK_ESC) == -1);
	CHECK(!p.active);
	/* Long input stops at the buffer, never overflows. */
	prompt_start(&p, 1, "x", NULL);
	for (int i = 0; i < 1000; i++)
		prompt_key(&p, 'a' + i % 26);
	CHECK(p.len == sizeof(p.text) - 1 && strlen(p.text) == p.len);
	/* A selected pre-fill (the filter prompt's current filters) is
	 * replaced by typing, not appended to ("3pid:5151"). */
	prompt_start(&p, 1, "x", "cpu:3");
	prompt_select_all(&p);
	CHECK(p.selected);
	prompt_key(&p, 'p');
	CHECK_STR(p.text, "p");
	CHECK(!p.selected);
	prompt_start(&p, 1, "x", "cpu:3");
	prompt_select_all(&p);
	prompt_key(&p, TK_BACKSPACE);               /* deletes the selection */
	CHECK_STR(p.text, "");
	prompt_start(&p, 1, "x", "cpu:3");
	prompt_select_all(&p);
	prompt_key(&p, TK_END);                     /* keeps it to edit */
	prompt_key(&p, ' ');
	CHECK_STR(p.text, "cpu:3 ");
	prompt_start(&p, 1, "x", "cpu:3");
	prompt_select_all(&p);
	CHECK(prompt_key(&p, TK_ENTER) == 1);       /* Enter keeps it */
	CHECK_STR(p.text, "cpu:3");
}

static void test_keymap(void)
{
	char buf[128];

	CHECK(keymap_lookup("lines", 'j') == ACT_DOWN);
	CHECK(keymap_lookup("lines", TK_DOWN) == ACT_DOWN);
	CHECK(keymap_lookup("lines", 'q') == ACT_QUIT);
	CHECK(keymap_lookup("lines", TK_ESC) == ACT_BACK);
	CHECK(keymap_lookup("lines", TK_LEFT) == ACT_BACK);
	CHECK(keymap_lookup("lines", TK_TAB) == ACT_NONE);
	CHECK(keymap_lookup("line", TK_TAB) == ACT_PANE);
	/* The timeline's Space marks; elsewhere it pages down. */
	CHECK(keymap_lookup("timeline", ' ') == ACT_MARK);
	CHECK(keymap_lookup("lines", ' ') == ACT_PGDN);
	/* The sort picker takes only its own keys. */
	CHECK(keymap_lookup("sort", TK_LEFT) == ACT_PICK_LEFT);
	CHECK(keymap_lookup("sort", 'q') == ACT_NONE);
	CHECK(keymap_keys("lines", ACT_DOWN, buf, sizeof(buf)) == 2);
	CHECK_STR(buf, "Down, j");
	CHECK(keymap_keys("timeline", ACT_PGDN, buf, sizeof(buf)) == 1);
	CHECK_STR(buf, "PgDn");
	keymap_key_name('l' & 0x1f, buf, sizeof(buf));
	CHECK_STR(buf, "^L");
	/* Every bound action has help text. */
	{
		const char *view;
		int key;
		enum action a;
		for (size_t i = 0; keymap_binding(i, &view, &key, &a); i++)
			CHECK(action_info(a)->help[0] && action_info(a)->name[0]);
	}
	/* Every action of the list has a name, help text and a key. */
	for (int a = ACT_NONE + 1; a < ACT__COUNT; a++) {
		int bound = 0;
		const char *view;
		int key;
		enum action b;
		CHECK(action_info((enum action)a)->name[0] && action_info((enum action)a)->help[0]);
		for (size_t i = 0; keymap_binding(i, &view, &key, &b); i++)
			bound |= b == (enum action)a;
		CHECK(bound);
	}
	/* The help screen's keys: one scope's bindings only. */
	CHECK(keymap_scope_keys("sort", ACT_ENTER, buf, sizeof(buf)) == 2);
	CHECK_STR(buf, "Enter, s");
	CHECK(keymap_scope_keys(NULL, ACT_ENTER, buf, sizeof(buf)) == 2);
	CHECK_STR(buf, "Enter, Right");
	CHECK(keymap_scope_keys(NULL, ACT_PANE, buf, sizeof(buf)) == 0);
	CHECK(keymap_scope_keys("line", ACT_PANE, buf, sizeof(buf)) == 1);
	CHECK_STR(buf, "Tab");
	/* Enter and Tab in the layout and diff views have their own actions. */
	CHECK(keymap_lookup("diff", TK_ENTER) == ACT_DIFF_LAYOUTS);
	CHECK(keymap_lookup("diff", 'C') == ACT_DIFF_FUNCTIONS);
	CHECK(keymap_lookup("difflayout", TK_TAB) == ACT_AFTER_LAYOUT);
	CHECK(keymap_lookup("layout", TK_ENTER) == ACT_MEMBER_SITE);
	/* Every perf c2c note names a key that does its action in the lines
	 * or line view, so the note cannot drift from the bindings. */
	{
		const char *perf;
		enum action a;
		int key, n = 0;
		for (size_t i = 0; keymap_perf_note(i, &key, &a, &perf); i++, n++)
			CHECK(perf[0] && (keymap_lookup("lines", key) == a || keymap_lookup("line", key) == a));
		CHECK(n >= 1);
	}
}

/* The help screen lists the layout and diff views' keys and the perf c2c
 * notes (searched as a user would, with /). */
static void test_help(void)
{
	struct explorer ex;
	struct view v;
	struct c2c_error err = { 0 };
	static const char *const want[] = {
		"Layout view", "Struct picker", "Diff view", "Diff layout view", "layouts", "after",
		"code site", "perf c2c keys", "perf: opens the line (Enter here)",
	};

	memset(&ex, 0, sizeof(ex));
	memset(&v, 0, sizeof(v));
	v.ex = &ex;
	v.ops = &view_help_ops;
	v.h = 20;
	v.w = 100;
	v.priv = calloc(1, view_help_ops.priv_size);
	CHECK(v.priv && view_help_ops.open(&v, &err) == 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int found = view_help_ops.search(&v, want[i], 1, &err) == 1;
		if (!found)
			printf("# help lacks '%s'\n", want[i]);
		CHECK(found);
	}
	view_help_ops.close(&v);
	free(v.priv);
}

/* Each kind of view maps to its own ops table and back (view_registry.c). */
static void test_view_kinds(void)
{
	CHECK(view_kind_ops(VK_NONE) == NULL);
	CHECK(view_kind_ops(VK__COUNT) == NULL);
	CHECK(view_kind_ops(VK_LINES) == &view_lines_ops);
	CHECK(view_kind_ops(VK_HELP) == &view_help_ops);
	for (int k = VK_NONE + 1; k < VK__COUNT; k++) {
		const struct view_ops *ops = view_kind_ops((enum view_kind)k);
		CHECK(ops && ops->name && ops->open && ops->draw);
		CHECK(view_ops_kind(ops) == (enum view_kind)k);
	}
	CHECK(view_ops_kind(NULL) == VK_NONE);
}

static void test_theme(void)
{
	unsetenv("NO_COLOR");
	CHECK(theme_use_color(1) == 1);
	CHECK(theme_use_color(0) == 0);
	setenv("NO_COLOR", "1", 1);
	CHECK(theme_use_color(1) == 0);
	setenv("NO_COLOR", "", 1);     /* empty means unset (no-color.org) */
	CHECK(theme_use_color(1) == 1);
	unsetenv("NO_COLOR");
	CHECK(theme_heat(0) == TH_HEAT0);
	CHECK(theme_heat(0.5) == TH_HEAT4);
	CHECK(theme_heat(0.07) == TH_HEAT2);
	/* Every element has a monochrome look distinct from nothing where it
	 * matters: the selection must show without colours. */
	CHECK(theme_style(TH_SELECTED)->mono_attr & TA_REVERSE);
	CHECK(theme_style((enum theme_elem)999) == theme_style(TH_NORMAL));
}

static void test_filter_parse(void)
{
	struct store_filter f;
	char sym[128], msg[256];

	store_filter_init(&f);
	f.time_from = 5;
	f.time_to = 9;
	CHECK(view_filter_parse("cpu:3 node:1 pid:42 tid:43 hitm:5 sym:counter", &f, sym, sizeof(sym), msg,
				sizeof(msg)) == 0);
	CHECK(f.cpu == 3 && f.node == 1 && f.pid == 42 && f.tid == 43 && f.min_hitm == 5);
	CHECK_STR(f.symbol, "counter");
	CHECK(f.symbol == sym);
	/* The time window is not the filter's business. */
	CHECK(f.time_from == 5 && f.time_to == 9);
	/* A bare word is a symbol, C++ names included. */
	CHECK(view_filter_parse("ns::obj", &f, sym, sizeof(sym), msg, sizeof(msg)) == 0);
	CHECK_STR(f.symbol, "ns::obj");
	CHECK(f.cpu == -1 && f.node == -1 && f.min_hitm == 0);
	/* Empty text clears every filter. */
	CHECK(view_filter_parse("  ", &f, sym, sizeof(sym), msg, sizeof(msg)) == 0);
	CHECK(f.symbol == NULL && f.cpu == -1 && f.tid == -1);
	/* Errors leave the filter alone and say why. */
	f.cpu = 7;
	CHECK(view_filter_parse("cpu:x", &f, sym, sizeof(sym), msg, sizeof(msg)) == -EINVAL);
	CHECK(f.cpu == 7);
	CHECK(strstr(msg, "'x' is not a number"));
	CHECK(view_filter_parse("cpu:-1", &f, sym, sizeof(sym), msg, sizeof(msg)) == -EINVAL);
	CHECK(view_filter_parse("node:", &f, sym, sizeof(sym), msg, sizeof(msg)) == -EINVAL);
	CHECK(view_filter_parse("hitm:0x10", &f, sym, sizeof(sym), msg, sizeof(msg)) == 0);
	CHECK(f.min_hitm == 16);
}

TEST_MAIN(
	TEST_CASE(test_text_ascii),
	TEST_CASE(test_text_utf8),
	TEST_CASE(test_numbers),
	TEST_CASE(test_bars),
	TEST_CASE(test_table_layout),
	TEST_CASE(test_table_cursor),
	TEST_CASE(test_prompt),
	TEST_CASE(test_help),
	TEST_CASE(test_keymap),
	TEST_CASE(test_view_kinds),
	TEST_CASE(test_theme),
	TEST_CASE(test_filter_parse),
)
