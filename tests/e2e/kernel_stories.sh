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
# after; --types names the members, --layout shows the heat and the
# proposal, report --diff shows the members moving and their HITM falling
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
V_NONE=none      # no contention

# The stories: name, image source, after flag, objects' data addresses.
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
		grep -qE "^$a +$hitm +[0-9]+ +$v( |$)" "$db.verdicts" || bad="$bad $a"
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
verdicts se_after "exec_start's line: $V_NONE" 0 $V_NONE $(lines 0x40 $SE_OBJS)
verdicts se_after "avg's line: $V_NONE" 0 $V_NONE $(lines 0xc0 $SE_OBJS)
# (b) load_avg's line: its adders (true) and the readers (false)
verdicts tg_before "load_avg's line: $V_MIXED" 70 $V_MIXED $(lines 0x80 $TG_OBJS)
verdicts tg_after "load_avg alone: $V_TRUE" 40 $V_TRUE $(lines 0x80 $TG_OBJS)
verdicts tg_after "rt_se/rt_rq/parent's line: $V_NONE" 0 $V_NONE $(lines 0xc0 $TG_OBJS)
# (d) the same line, fewer adds
verdicts tgs_after "load_avg's line, fewer updates: $V_MIXED" 35 $V_MIXED $(lines 0x80 $TG_OBJS)
# (c) s_freeclusters_counter at +0x40 of each superblock
verdicts pc_before "lock/count/counters' line: $V_FALSE" 40 $V_FALSE $(lines 0x40 $PC_SBI)
verdicts pc_after "lock/count's line: $V_NONE" 0 $V_NONE $(lines 0x40 $PC_SBI)
verdicts pc_after "counters' line: $V_NONE" 0 $V_NONE $(lines 0x80 $PC_SBI)

# --- by function: (d) fewer stores and HITM from update_tg_load_avg -------
"$C2CTUI" report --diff tgs_before.db tgs_after.db >tgs.diff 2>tgs.diff.err
sed -n '/^Code by function/,/^$/p' tgs.diff >tgs.funcs
row "tg_load_skip: by function: update_tg_load_avg stores and HITM fall" tgs.funcs "  update_tg_load_avg " \
	"matched" "120 -> 60 (-60)" "240 -> 60 (-180)" "120 -> 60 (-60)" "60/60 -> 30/30"
row "tg_load_skip: by function: tg_rt_se HITM falls" tgs.funcs "  tg_rt_se " "30 -> 30 (+0)" "30 -> 15 (-15)"
row "tg_load_skip: by function: tg_parent_shares HITM falls" tgs.funcs "  tg_parent_shares " "30 -> 15 (-15)"
