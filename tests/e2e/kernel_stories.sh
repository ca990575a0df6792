#!/usr/bin/env bash
# The kernel acceptance stories (issue 10 point 6), each a before/after pair
# built from real code: tests/kernel/stories/*.c (structs laid out as in the
# patches) built with -g -mcmodel=kernel as small vmlinux images at
# 0xffffffff81000000 with build-ids (lib.sh kernel_image), and kernel-mode
# c2c recordings at their real accessing instructions on heap (direct-map)
# objects with a KASLR offset that differs between the two boots
# (tests/tools/story_perfdata.c), imported with -k:
#  (a) sched_entity   "move sched_entity::avg into its own cache line"
#  (b) task_group     "re-layout struct task_group: load_avg vs rt_se/rt_rq/parent"
#  (c) percpu_counter "move percpu_counter::counters off the line of its lock"
#  (d) tg_load_skip   "skip the tg->load_avg update when nothing changed"
# Per story: report -k names the functions at the shifted addresses as perf
# c2c report -k does; --verdicts gives the hot lines' verdicts before and
# after; --types types every kernel heap sample, --verdicts names the
# members, --layout shows the heat and the proposal, report --diff (each
# side typed with its own image) shows the members moving and their HITM falling
# (for (d): fewer stores and HITM from update_tg_load_avg, same layout).
# Every number is the generator's (see story_perfdata.c's header).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T=kernel_stories
GEN=$C2C_BUILD/tools/story_perfdata
[ -x "$C2CTUI" ] || { skip "$T" "no $C2CTUI (build first)"; exit 0; }
[ -x "$GEN" ] || { skip "$T" "no $GEN"; exit 0; }
cd "$E2E_TMP" || exit 1
export HOME=$E2E_TMP/home   # perf's build-id cache, not the user's
mkdir -p "$HOME"

# Verdict words, in this one place (the wording may change: change it here).
V_FALSE=false    # false sharing: writers and readers of different members
V_MIXED=mixed    # true sharing of one member plus false sharing of others
V_TRUE=true      # true sharing only
V_NONE="no contention"

# The objects' data addresses and the two boots' KASLR shifts (story_perfdata.c).
SE_OBJS="0xffff888104a00000 0xffff888104a00400 0xffff888104a00800"
TG_OBJS="0xffff888105c00000 0xffff888105c00200 0xffff888105c00400"
PC_SBI="0xffff888106e00000 0xffff888106e00400"
BEFORE_SHIFT=2a00000
AFTER_SHIFT=13c00000

setup() {
	kernel_image se_before stories/sched_entity.c &&
		kernel_image se_after stories/sched_entity.c -DAFTER &&
		kernel_image tg_before stories/task_group.c &&
		kernel_image tg_after stories/task_group.c -DAFTER &&
		kernel_image tgs_after stories/task_group.c -DSKIP_UNCHANGED &&
		kernel_image pc_before stories/percpu_counter.c &&
		kernel_image pc_after stories/percpu_counter.c -DAFTER || return 2
	local s
	for s in "sched_entity se" "task_group tg" "tg_load_skip tgs" "percpu_counter pc"; do
		set -- $s
		if [ "$2" != tgs ]; then
			"$GEN" "$1" "$PWD/$2_before" "$2_before.data" --shift $BEFORE_SHIFT >/dev/null &&
				"$C2CTUI" import -q -k "$2_before" "$2_before.data" -o "$2_before.db" || return 1
		fi
		"$GEN" "$1" "$PWD/$2_after" "$2_after.data" --after --shift $AFTER_SHIFT >/dev/null &&
			"$C2CTUI" import -q -k "$2_after" "$2_after.data" -o "$2_after.db" || return 1
	done
	# (d) starts where (b) starts: the same image, the same recording.
	ln -s tg_before tgs_before && ln -s tg_before.data tgs_before.data && ln -s tg_before.db tgs_before.db
}
setup 2>setup.err
case $? in
0) ;;
2) skip "$T" "cannot build the kernel-shaped story images (cc -mcmodel=kernel): $(head -c 200 setup.err)"; exit 0 ;;
*) nok "$T: setup" "generate or import failed: $(head -c 300 setup.err)"; exit 0 ;;
esac

# row NAME FILE PREFIX TEXT...: the first line starting with PREFIX holds every TEXT
row() {
	local n=$1 f=$2 p=$3 line
	shift 3
	line=$(grep -F -- "$p" "$f" | head -1)
	[ -n "$line" ] || { nok "$T: $n" "no row '$p'"; sed 's/^/#   /' "$f" | head -30; return; }
	for t in "$@"; do
		case "$line" in *"$t"*) ;; *) nok "$T: $n" "row '$p' lacks '$t': $line"; return ;; esac
	done
	ok "$T: $n"
}
hex() { printf '0x%x' $(($1)); }

# --- code sites: report -k names the functions at the shifted addresses --
# PREFIX IMG FUNCTIONS...: with --show-all (an after run has no HITM line),
# as perf c2c report --show-all; a line with loads only is not shared.
sites() {
	local p=$1 img=$2
	shift 2
	"$C2CTUI" report --show-all -k "$img" "$p.data" 2>"$p.err" | kernel_sites >"$p.sites"
	local got want pre=0xffffffff83a
	case $p in *after) pre=0xffffffff94c ;; esac
	got=$(awk '{ print $2 }' "$p.sites" | sort -u | tr '\n' ' ')
	want=$(printf '%s\n' "$@" | sort -u | tr '\n' ' ')
	if [ "$got" = "$want" ] && ! awk '{ print $1 }' "$p.sites" | grep -qv "^$pre"; then
		ok "$T: $p: report -k names $* at the KASLR-shifted addresses"
	else
		nok "$T: $p: report -k names $* at the KASLR-shifted addresses" \
			"got $got: $(tr '\n' '|' <"$p.sites") $(head -c 200 "$p.err")"
	fi
	if command -v perf >/dev/null 2>&1; then
		perf c2c report --stdio --show-all -k "$img" -i "$p.data" 2>/dev/null | kernel_sites >"$p.perf.sites"
		if [ -s "$p.perf.sites" ] && cmp -s "$p.perf.sites" "$p.sites"; then
			ok "$T: $p: code sites and Source:Line equal perf c2c report -k"
		else
			nok "$T: $p: code sites and Source:Line equal perf c2c report -k" \
				"perf: $(tr '\n' '|' <"$p.perf.sites") ours: $(tr '\n' '|' <"$p.sites")"
		fi
	fi
}
sites se_before se_before update_curr set_next_entity task_h_load task_util
sites se_after se_after update_curr set_next_entity
sites tg_before tg_before update_tg_load_avg tg_rt_se tg_rt_rq tg_parent_shares
sites tg_after tg_after update_tg_load_avg
sites tgs_after tgs_after update_tg_load_avg tg_rt_se tg_rt_rq tg_parent_shares
sites pc_before pc_before percpu_counter_add_batch
sites pc_after pc_after percpu_counter_add_batch
if ! command -v perf >/dev/null 2>&1; then
	skip "$T: perf agreement" "perf is not installed"
fi

# --- verdicts: every object's hot line, before and after ------------------
# verdicts DB NAME HITM VERDICT ADDR...: each line ADDR has HITM and VERDICT
verdicts() {
	local db=$1 name=$2 hitm=$3 v=$4 bad="" a
	shift 4
	[ -s "$db.verdicts" ] || "$C2CTUI" report "$db.db" --verdicts >"$db.verdicts" 2>&1
	for a in "$@"; do
		grep -E "^$a +$hitm +[0-9]+ " "$db.verdicts" | grep -qF -- " $v " || bad="$bad $a"
	done
	if [ -z "$bad" ]; then ok "$T: $db: --verdicts: $name"; else
		nok "$T: $db: --verdicts: $name" "not $hitm HITM '$v' at$bad"; sed 's/^/#   /' "$db.verdicts"; fi
}
lines() { # OFFSET OBJS...: the line addresses OFFSET into each object
	local off=$1 o
	shift
	for o in "$@"; do hex "$o + $off"; echo; done | tr '\n' ' '
}
# (a) update_curr's and set_next_entity's lines hold avg.load_avg / util_avg
verdicts se_before "exec_start's line: $V_FALSE" 10 $V_FALSE $(lines 0x40 $SE_OBJS)
verdicts se_before "prev_sum_exec_runtime's line: $V_FALSE" 10 $V_FALSE $(lines 0x80 $SE_OBJS)
verdicts se_after "exec_start's line: $V_NONE" 0 "$V_NONE" $(lines 0x40 $SE_OBJS)
verdicts se_after "avg's line: $V_NONE" 0 "$V_NONE" $(lines 0xc0 $SE_OBJS)
# (b) load_avg's line: its adders (true) and the readers (false)
verdicts tg_before "load_avg's line: $V_MIXED" 70 $V_MIXED $(lines 0x80 $TG_OBJS)
verdicts tg_after "load_avg alone: $V_TRUE" 40 $V_TRUE $(lines 0x80 $TG_OBJS)
verdicts tg_after "rt_se/rt_rq/parent's line: $V_NONE" 0 "$V_NONE" $(lines 0xc0 $TG_OBJS)
# (d) the same line, fewer adds
verdicts tgs_after "load_avg's line, fewer updates: $V_MIXED" 35 $V_MIXED $(lines 0x80 $TG_OBJS)
# (c) s_freeclusters_counter at +0x40 of each superblock
verdicts pc_before "lock/count/counters' line: $V_FALSE" 40 $V_FALSE $(lines 0x40 $PC_SBI)
verdicts pc_after "lock/count's line: $V_NONE" 0 "$V_NONE" $(lines 0x40 $PC_SBI)
verdicts pc_after "counters' line: $V_NONE" 0 "$V_NONE" $(lines 0x80 $PC_SBI)

# --- by function: (d) fewer stores and HITM from update_tg_load_avg -------
"$C2CTUI" report --diff tgs_before.db tgs_after.db >tgs.diff 2>tgs.diff.err
sed -n '/^Code by function/,/^$/p' tgs.diff >tgs.funcs
row "tg_load_skip: by function: update_tg_load_avg stores and HITM fall" tgs.funcs "  update_tg_load_avg " \
	"matched" "120 -> 60 (-60)" "240 -> 60 (-180)" "120 -> 60 (-60)" "60/60 -> 30/30"
row "tg_load_skip: by function: tg_rt_se HITM falls" tgs.funcs "  tg_rt_se " "30 -> 30 (+0)" "30 -> 15 (-15)"
row "tg_load_skip: by function: tg_parent_shares HITM falls" tgs.funcs "  tg_parent_shares " "30 -> 15 (-15)"

# --- members: --types, --verdicts, --layout, diff -------------------------
# Kernel heap samples are typed through each image's DWARF (report -k IMG on
# the recording; the sessions keep the image they were imported with, so
# the diff types each side with its own build).
"$C2CTUI" report -k se_before --types se_before.data >se_before.types 2>&1
if ! grep -q '^struct sched_entity ' se_before.types; then
	skip "$T: members" "kernel heap attribution not merged: report -k --types names no type ($(tail -1 se_before.types))"
	exit 0
fi
# types PREFIX IMG ROW SHARE: the type's row and the share of kernel heap
# samples attributed to a member
types() {
	local p=$1 img=$2 want=$3 share=$4
	[ -s "$p.types" ] || "$C2CTUI" report -k "$img" --types "$p.data" >"$p.types" 2>&1
	if grep -qE "^$want" "$p.types" && grep -qF "Kernel heap samples attributed to a member: $share" "$p.types"; then
		ok "$T: $p: --types: $(echo "$want" | tr -s ' \\' ' '), $share heap samples to a member"
	else
		nok "$T: $p: --types" "want '$want' and '$share'"; sed 's/^/#   /' "$p.types"
	fi
}
# members DB NAME ADDR TEXT: the verdict row of line ADDR names the members
members() {
	local db=$1 name=$2 a=$3 text=$4
	if grep -E "^$a " "$db.verdicts" | grep -qF -- "$text"; then ok "$T: $db: --verdicts names $name"; else
		nok "$T: $db: --verdicts names $name" "no '$text' at $a"; sed 's/^/#   /' "$db.verdicts"; fi
}
# layout PREFIX IMG TYPE: report -k IMG --layout 'struct TYPE' into PREFIX.layout
# and its proposal into PREFIX.proposal
layout() {
	"$C2CTUI" report -k "$2" --layout "struct $3" "$1.data" >"$1.layout" 2>&1
	sed -n '/^Proposed layout/,$p' "$1.layout" >"$1.proposal"
}
# diff STORY: report --diff STORY_before.db STORY_after.db, its sections
diff_story() {
	"$C2CTUI" report --diff "$1_before.db" "$1_after.db" >"$1.diff" 2>"$1.diff.err"
	sed -n '/^Cache lines/,/^$/p' "$1.diff" >"$1.dlines"
	sed -n "/^Layout of struct $2/,/^\$/p" "$1.diff" >"$1.dlayout"
	sed -n '/^Code by function/,/^$/p' "$1.diff" >"$1.dfuncs"
}
not_moved() { # NAME FILE MEMBER...: none of the members' rows says moved
	local n=$1 f=$2 m bad=""
	shift 2
	for m in "$@"; do grep -E "^  $m " "$f" | grep -q 'moved [0-9]' && bad="$bad $m"; done
	if [ -z "$bad" ]; then ok "$T: $n"; else nok "$T: $n" "moved:$bad"; fi
}

# (a) sched_entity: avg moves to its own line, its readers' HITM goes
types se_before se_before 'struct sched_entity +208 +3 +165 +60 +105 +30 +30 +0/165/0/0' "165 of 165 (100.0%)"
types se_after se_after 'struct sched_entity +256 +3 +165 +60 +105 +0 +0 +0/165/0/0' "165 of 165 (100.0%)"
members se_before "the writers and avg.load_avg" "$(hex "${SE_OBJS%% *} + 0x40")" \
	"struct sched_entity      1t/1c     1t/1c  writes exec_start sum_exec_runtime vruntime; hurt avg.load_avg"
members se_before "prev_sum_exec_runtime and avg.util_avg" "$(hex "${SE_OBJS%% *} + 0x80")" \
	"writes prev_sum_exec_runtime; hurt avg.util_avg"
layout se_before se_before sched_entity
row "se_before: --layout: exec_start flagged" se_before.layout "  64        8     exec_start " \
	"30      0      0    3    3     1  FALSE-SHARING" "shared with sum_exec_runtime, vruntime, avg.load_avg (30 loads)"
row "se_before: --layout: avg.load_avg hot (local HITM)" se_before.layout "  120       8       avg.load_avg " "30        0     30      0" "victim"
row "se_before: --layout: avg.util_avg hot (remote HITM)" se_before.layout "  136       8       avg.util_avg " "30        0      0     30" "victim"
row "se_before: --layout: the proposal moves the writers off avg" se_before.proposal "  exec_start " "64     1 |      192     3  written by 3 threads (30 stores): own line"
row "se_before: --layout: what-if" se_before.layout "  HITM samples:" "60 now, 0 would remain; contended lines: 6 -> 0"
diff_story se sched_entity
row "se: diff: the lines regrouped, HITM 60 -> 0" se.dlines "  struct sched_entity+0x40, struct sched_entity+0x80 -> struct sched_entity+0x40, struct sched_entity+0xc0 " \
	"members regrouped" "60 -> 0 (-60)" "$V_FALSE -> $V_NONE"
has_line() { if grep -qF -- "$3" "$2"; then ok "$T: $1"; else nok "$T: $1" "no '$3'"; sed 's/^/#   /' "$2" | head -30; fi; }
has_line "se: diff: avg.load_avg left for avg's own line" se.dlines "      left:   avg.load_avg -> struct sched_entity+0xc0"
row "se: diff: avg moved 1 -> 3, HITM 60 -> 0" se.dlayout "  avg " "88   64     1 |    192   64     3" "60 -> 0 (-60)" "30/30 -> 0/0" "moved 1 -> 3"
row "se: diff: avg.load_avg moved, local HITM gone" se.dlayout "    avg.load_avg " "120    8     1 |    224    8     3" "30 -> 0 (-30)" "30/0 -> 0/0" "300.0 -> 30.0" "moved 1 -> 3"
row "se: diff: avg.util_avg moved, remote HITM gone" se.dlayout "    avg.util_avg " "136    8     2 |    240    8     3" "30 -> 0 (-30)" "0/30 -> 0/0" "moved 2 -> 3"
not_moved "se: diff: the writers stay on line 1" se.dlayout exec_start sum_exec_runtime vruntime
# Sessions imported without the images: diff -k BEFORE_IMG -k AFTER_IMG
# types each side with its own build, as the images recorded at import do
# (code is named at import: only the lines and the layout compare).
"$C2CTUI" import -q se_before.data -o se_before_nok.db 2>/dev/null &&
	"$C2CTUI" import -q se_after.data -o se_after_nok.db 2>/dev/null &&
	"$C2CTUI" report --diff -k se_before -k se_after se_before_nok.db se_after_nok.db >se_k.diff 2>se_k.err
sed -n '/^Cache lines/,/^Code by function/p' se.diff >se.typed
sed -n '/^Cache lines/,/^Code by function/p' se_k.diff >se_k.typed
if [ -s se.typed ] && cmp -s se_k.typed se.typed; then
	ok "$T: se: diff -k BEFORE_IMG -k AFTER_IMG of sessions imported without them: the same lines and layout"
else
	nok "$T: se: diff -k BEFORE_IMG -k AFTER_IMG of sessions imported without them: the same lines and layout" \
		"$(diff se_k.typed se.typed | head -5 | tr '\n' '|') $(head -c 200 se_k.err)"
fi
"$C2CTUI" report --diff se_before.db se_after.db --format json >se.json 2>/dev/null
if python3 - se.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = {(x["type"], x["member"]): x for x in d["members"]}
a = m[("struct sched_entity", "avg")]
assert a["moved"] and (a["offset_before"], a["offset_after"]) == (88, 192), a
assert (a["line_before"], a["line_after"]) == (1, 3), a
assert a["before"]["hitm"] == 60 and a["after"]["hitm"] == 0, a
la = m[("struct sched_entity", "avg.load_avg")]
assert la["moved"] and la["before"]["lcl_hitm"] == 30 and la["after"]["hitm"] == 0, la
assert not m[("struct sched_entity", "exec_start")]["moved"]
f = {x["function"]: x for x in d["functions"]}
assert f["task_util"]["before"]["rmt_hitm"] == 30 and f["task_util"]["after"]["hitm"] == 0
PY
then ok "$T: se: diff json: avg moved 88 -> 192 (line 1 -> 3), HITM 60 -> 0"; else nok "$T: se: diff json" "unexpected JSON"; fi
row "se: diff: by function: task_h_load HITM gone" se.dfuncs "  task_h_load " "30 -> 0 (-30)"
row "se: diff: by function: task_util HITM gone" se.dfuncs "  task_util " "30 -> 0 (-30)"

# (b) task_group: rt_se/rt_rq/parent leave load_avg's line
types tg_before tg_before 'struct task_group +256 +3 +465 +225 +240 +120 +90 +0/465/0/0' "465 of 465 (100.0%)"
types tg_after tg_after 'struct task_group +320 +3 +465 +225 +240 +60 +60 +0/465/0/0' "465 of 465 (100.0%)"
members tg_before "load_avg's adders and its readers" "$(hex "${TG_OBJS%% *} + 0x80")" \
	"struct task_group        4t/4c     3t/3c  writes load_avg.counter; hurt load_avg.counter rt_se rt_rq parent"
members tg_after "load_avg alone" "$(hex "${TG_OBJS%% *} + 0x80")" "writes load_avg.counter; hurt load_avg.counter"
layout tg_before tg_before task_group
row "tg_before: --layout: load_avg flagged" tg_before.layout "  128       8       load_avg.counter " \
	"120      240     60     60    4    4     1  FALSE-SHARING" "shared with rt_se, rt_rq, parent (90 loads)"
row "tg_before: --layout: rt_se hot" tg_before.layout "  136       8     rt_se " "30        0     30      0" "victim"
row "tg_before: --layout: rt_rq hot" tg_before.layout "  144       8     rt_rq " "30        0      0     30" "victim"
row "tg_before: --layout: parent hot" tg_before.layout "  184       8     parent " "30        0     30      0" "victim"
row "tg_before: --layout: the proposal gives load_avg its own line" tg_before.proposal "  load_avg " "128     2 |      256     4  written by 4 threads (240 stores): own line"
row "tg_before: --layout: what-if keeps load_avg's true sharing" tg_before.layout "  HITM samples:" "210 now, 120 would remain"
diff_story tg task_group
row "tg: diff: load_avg's line split, HITM 210 -> 120" tg.dlines "  struct task_group+0x80 -> struct task_group+0xc0, struct task_group+0x80 " \
	"members split" "210 -> 120 (-90)" "$V_MIXED -> $V_TRUE"
row "tg: diff: the readers' new line has no HITM" tg.dlines "      after  struct task_group+0xc0 " "0 HITM" "90 loads" "members: parent rt_rq rt_se"
row "tg: diff: rt_se moved, HITM gone" tg.dlayout "  rt_se " "136    8     2 |    192    8     3" "30 -> 0 (-30)" "moved 2 -> 3"
row "tg: diff: rt_rq moved, remote HITM gone" tg.dlayout "  rt_rq " "144    8     2 |    200    8     3" "30 -> 0 (-30)" "0/30 -> 0/0" "moved 2 -> 3"
row "tg: diff: parent moved, HITM gone" tg.dlayout "  parent " "184    8     2 |    240    8     3" "30 -> 0 (-30)" "moved 2 -> 3"
row "tg: diff: load_avg stays, its true sharing too" tg.dlayout "  load_avg " "128    8     2 |    128    8     2" "120 -> 120 (+0)" "$V_MIXED -> $V_TRUE"
not_moved "tg: diff: load_avg not moved" tg.dlayout load_avg

# (c) percpu_counter: counters leaves the lock's line
types pc_before pc_before 'struct percpu_counter +40 +2 +120 +80 +40 +40 +40 +0/120/0/0' "120 of 120 (100.0%)"
types pc_after pc_after 'struct percpu_counter +128 +2 +120 +80 +40 +0 +0 +0/120/0/0' "120 of 120 (100.0%)"
members pc_before "lock, count and counters" "$(hex "${PC_SBI%% *} + 0x40")" \
	"struct percpu_counte     1t/1c     4t/4c  writes lock.val count; hurt counters"
layout pc_before pc_before percpu_counter
row "pc_before: --layout: counters hot" pc_before.layout "  32        8     counters " "80        0     40     40" "victim"
row "pc_before: --layout: the proposal moves lock and count off counters" pc_before.proposal "  lock " "0     0 |       64     1  written by 2 threads (20 stores): own line"
row "pc_before: --layout: what-if" pc_before.layout "  HITM samples:" "80 now, 0 would remain; contended lines: 2 -> 0"
diff_story pc percpu_counter
row "pc: diff: the lock's line split, HITM 80 -> 0" pc.dlines "  struct percpu_counter+0 -> struct percpu_counter+0, struct percpu_counter+0x40 " \
	"members split" "80 -> 0 (-80)" "$V_FALSE -> $V_NONE"
has_line "pc: diff: counters left the lock's line" pc.dlines "      left:   counters -> struct percpu_counter+0x40"
row "pc: diff: counters moved 0 -> 1, HITM 80 -> 0" pc.dlayout "  counters " "32    8     0 |     64    8     1" "80 -> 0 (-80)" "40/40 -> 0/0" "moved 0 -> 1"
not_moved "pc: diff: lock and count stay" pc.dlayout lock count

# (d) tg_load_skip: the same layout, fewer stores to load_avg
types tgs_after tgs_after 'struct task_group +256 +3 +225 +165 +60 +60 +45 +0/225/0/0' "225 of 225 (100.0%)"
diff_story tgs task_group
row "tgs: diff: load_avg's line matched, HITM 210 -> 105 (per second too: both runs last 0.8 s), stores 240 -> 60" tgs.dlines "  struct task_group+0x80 " \
	"members matched" "210 -> 105 (-105)" "262.2 -> 131.2" "240 -> 60 (-180)"
row "tgs: diff: load_avg: fewer stores, fewer HITM" tgs.dlayout "  load_avg " "128    8     2 |    128    8     2" "120 -> 60 (-60)" "240 -> 60 (-180)"
if grep -q 'moved [0-9]' tgs.dlayout; then nok "$T: tgs: diff: nothing moved" "$(grep 'moved [0-9]' tgs.dlayout | head -3)"; else
	ok "$T: tgs: diff: nothing moved"; fi

# The TUI: `c2ctui diff` of story (a), the lines matched by their members,
# Enter the layouts side by side (avg marked moved 1>3); story (d)'s code by
# function (C): update_tg_load_avg's stores 240>60 from the same function.
# Expected screens: tests/tui/expected/kernel_*.txt (TUI_UPDATE=1 rewrites).
source "$C2C_TOP/tests/tui/harness.sh"
if ! command -v tmux >/dev/null; then
	skip "$T: tui" "tmux is not installed"
else
	expect() { if tui_expect "$1"; then ok "$T: tui: $1"; else nok "$T: tui: $1" "screen differs"; fi; }
	if tui_start 120 32 -- "$C2CTUI" diff se_before.db se_after.db; then
		expect kernel_se_diff_lines
		tui_key Enter
		expect kernel_se_diff_layout
		if tui_screen | grep -E '^avg ' | grep -qF 'moved 1>3'; then ok "$T: tui: avg marked moved 1>3"; else
			nok "$T: tui: avg marked moved 1>3"; tui_screen | sed 's/^/#   /'; fi
		tui_quit
		tui_stop
	fi
	if tui_start 120 32 -- "$C2CTUI" diff tgs_before.db tgs_after.db; then
		tui_key C
		expect kernel_tgs_diff_functions
		if tui_screen | grep -E '^update_tg_load_avg ' | grep -qE '240>60 +-180 '; then
			ok "$T: tui: update_tg_load_avg's stores 240>60"; else
			nok "$T: tui: update_tg_load_avg's stores 240>60"; tui_screen | sed 's/^/#   /'; fi
		tui_quit
		tui_stop
	fi
fi
