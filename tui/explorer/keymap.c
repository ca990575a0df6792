/* The action table and the key bindings, both expanded from ACTION_LIST
 * (keymap.h), and the lookups over them. */
#include "tui/explorer/keymap.h"
#include "tui/term/term.h"

#include <stdio.h>
#include <string.h>

#define ACTION_INFO(id, name, help) [ACT_##id] = { name, help },
#define ACTION_NO_KEY(scope, key, id)
static const struct action_info actions[ACT__COUNT] = {
	[ACT_NONE] = { "", "" },
	ACTION_LIST(ACTION_INFO, ACTION_NO_KEY)
};

struct binding {
	const char *view;     /* NULL: every view */
	int key;
	enum action act;
};

#define ACTION_NONE(id, name, help)
#define ACTION_KEY(scope, key, id) { scope, key, ACT_##id },
static const struct binding bindings[] = {
	ACTION_LIST(ACTION_NONE, ACTION_KEY)
};

const struct action_info *action_info(enum action a)
{
	if ((int)a < 0 || a >= ACT__COUNT)
		a = ACT_NONE;
	return &actions[a];
}

enum action keymap_lookup(const char *view, int key)
{
	size_t n = sizeof(bindings) / sizeof(bindings[0]);

	if (view) {
		for (size_t i = 0; i < n; i++)
			if (bindings[i].view && !strcmp(bindings[i].view, view) && bindings[i].key == key)
				return bindings[i].act;
		/* The sort picker takes only its own keys. */
		if (!strcmp(view, "sort"))
			return ACT_NONE;
	}
	for (size_t i = 0; i < n; i++)
		if (!bindings[i].view && bindings[i].key == key)
			return bindings[i].act;
	return ACT_NONE;
}

void keymap_key_name(int key, char *buf, size_t size)
{
	static const struct { int key; const char *name; } names[] = {
		{ TK_UP, "Up" }, { TK_DOWN, "Down" }, { TK_LEFT, "Left" }, { TK_RIGHT, "Right" },
		{ TK_PGUP, "PgUp" }, { TK_PGDN, "PgDn" }, { TK_HOME, "Home" }, { TK_END, "End" },
		{ TK_ENTER, "Enter" }, { TK_ESC, "Esc" }, { TK_BACKSPACE, "Backspace" },
		{ TK_DELETE, "Del" }, { TK_TAB, "Tab" }, { TK_BTAB, "S-Tab" }, { TK_F1, "F1" },
		{ ' ', "Space" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].key == key) {
			snprintf(buf, size, "%s", names[i].name);
			return;
		}
	if (key > 0 && key < 0x20)
		snprintf(buf, size, "^%c", key + '@');
	else if (key >= 0x20 && key < 0x7f)
		snprintf(buf, size, "%c", key);
	else
		snprintf(buf, size, "U+%04X", (unsigned)key);
}

int keymap_keys(const char *view, enum action a, char *buf, size_t size)
{
	size_t n = sizeof(bindings) / sizeof(bindings[0]), len = 0;
	int count = 0;
	char name[32];

	if (size)
		buf[0] = 0;
	for (size_t i = 0; i < n; i++) {
		if (bindings[i].act != a)
			continue;
		if (bindings[i].view && (!view || strcmp(bindings[i].view, view)))
			continue;
		/* A view binding hides the same key's global meaning. */
		if (!bindings[i].view && view && keymap_lookup(view, bindings[i].key) != a)
			continue;
		keymap_key_name(bindings[i].key, name, sizeof(name));
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", count ? ", " : "", name);
		count++;
	}
	return count;
}

int keymap_scope_keys(const char *scope, enum action a, char *buf, size_t size)
{
	size_t n = sizeof(bindings) / sizeof(bindings[0]), len = 0;
	int count = 0;
	char name[32];

	if (size)
		buf[0] = 0;
	for (size_t i = 0; i < n; i++) {
		if (bindings[i].act != a || (bindings[i].view == NULL) != (scope == NULL) ||
		    (scope && strcmp(bindings[i].view, scope)))
			continue;
		keymap_key_name(bindings[i].key, name, sizeof(name));
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", count ? ", " : "", name);
		count++;
	}
	return count;
}

#define PERF_NOTE(key, id, perf) { key, ACT_##id, perf },
static const struct {
	int key;
	enum action act;
	const char *perf;
} perf_notes[] = {
	PERF_C2C_KEYS(PERF_NOTE)
};
#undef PERF_NOTE

int keymap_perf_note(size_t i, int *key, enum action *a, const char **perf)
{
	if (i >= sizeof(perf_notes) / sizeof(perf_notes[0]))
		return 0;
	*key = perf_notes[i].key;
	*a = perf_notes[i].act;
	*perf = perf_notes[i].perf;
	return 1;
}

int keymap_binding(size_t i, const char **view, int *key, enum action *a)
{
	if (i >= sizeof(bindings) / sizeof(bindings[0]))
		return 0;
	*view = bindings[i].view;
	*key = bindings[i].key;
	*a = bindings[i].act;
	return 1;
}
