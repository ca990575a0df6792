/* The command line's sub-commands. Each takes the arguments after its own
 * name (argv[0] is the sub-command) and returns the process exit status. */
#ifndef C2C_COMMANDS_H
#define C2C_COMMANDS_H

int cmd_import(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_open(int argc, char **argv);
int cmd_live(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_locks(int argc, char **argv);      /* perf lock contention's tables (tui/cmd/cmd_locks.c) */
int cmd_sql(int argc, char **argv);        /* read-only SQL over a session, as CSV (tui/cmd/cmd_sql.c) */
/* `layout TYPE [FILE]`: a struct's layout from BTF/DWARF in pahole's form (tui/cmd/cmd_layout.c). */
int cmd_layout(int argc, char **argv);
/* `report --diff BEFORE.db AFTER.db`: the diff as text/CSV/JSON (tui/cmd/cmd_diff.c). */
int cmd_report_diff(int argc, char **argv);
/* `report S.db --types | --layout TYPE | --verdicts`: types, layouts and
 * line verdicts as text (tui/cmd/cmd_report_types.c). */
int cmd_report_types(int argc, char **argv);

#endif /* C2C_COMMANDS_H */
