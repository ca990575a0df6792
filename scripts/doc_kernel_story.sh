#!/usr/bin/env bash
# Prints, as Markdown, the commands of kernel story (a) ("move
# sched_entity::avg into its own cache line", tests/e2e/kernel_stories.sh)
# and their real output, for docs/types.md and docs/walkthrough-diff.md:
#   scripts/doc_kernel_story.sh [BUILD]     (default build)
# Builds the two kernel-shaped images, writes the two recordings with
# build/tools/story_perfdata and imports them, in a temporary folder.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
export C2C_TOP=$top C2CTUI=$build/c2ctui
source "$top/tests/e2e/lib.sh"
cd "$E2E_TMP"
export PATH=$build:$build/tools:$PATH

kernel_image se_before stories/sched_entity.c
kernel_image se_after stories/sched_entity.c -DAFTER
story_perfdata sched_entity "$PWD/se_before" before.data --shift 2a00000 >/dev/null
story_perfdata sched_entity "$PWD/se_after" after.data --after --shift 13c00000 >/dev/null
c2ctui import -q -k se_before before.data -o before.db
c2ctui import -q -k se_after after.data -o after.db

show() { # SECTION-TITLE COMMAND...: the command line and its output
	echo "$1"
	echo
	echo '```'
	echo "\$ $2"
	eval "$2"
	echo '```'
	echo
}
show "**Types** (every heap sample typed by its instruction, through the image's DWARF):" \
	"c2ctui report -k se_before --types before.data"
show "**Verdicts** (one row per object line; the members named):" \
	"c2ctui report -k se_before --verdicts before.data"
show "**Layout** (the hot rows; the proposal and the what-if in full):" \
	"c2ctui report -k se_before --layout 'struct sched_entity' before.data | grep -E '^struct|offset|exec_start|sum_exec|vruntime|avg |load_avg|util_avg|prev_sum|^Proposed|^  -|^  member|^What-if|HITM samples'"
show "**Diff** (the two sessions, each typed with the image its import recorded; the avg rows of the layout):" \
	"c2ctui report --diff before.db after.db | grep -vE '^  (load|run_node|group_node|on_rq|nr_migrations|depth|parent|cfs_rq|my_q|runnable_weight) |^ +(load|run_node|group_node)\\.|^ +avg\\.(last|load_sum|runnable|util_sum|period|util_est)'"
