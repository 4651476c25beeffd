/*
 * cmd/cmd.h: the subcommand table and the exit codes.
 *
 * Adding a command:
 *  1. write `int cmd_<name>(int argc, char **argv)` in cmd/<name>.c with
 *     its option table (struct cmd_opt, cmd/options.h: name, letter, value,
 *     help, completion); it parses its options with cmd_getopt (optind
 *     reset by main), calls library functions, prints results to stdout
 *     and returns an exit code;
 *  2. declare both here and add the command to cmd_table in cmd/main.c
 *     (summary, synopsis, description, exit statuses): --help, the man
 *     page and the completions are made from that;
 *  3. add tests (tests/cli.sh at least) and a page or section in docs/.
 * Only cmd/ prints and chooses exit codes; library code fills struct err.
 */
#ifndef CMD_CMD_H
#define CMD_CMD_H

#include "cmd/options.h"
#include "generator/render.h"
#include "util/diag.h"
#include "util/err.h"

enum exit_code {
	EXIT_OK = 0,
	EXIT_DIFF = 1,    /* differences or drift found (diff, --dry-run);
			   * plan: a capacity finding is an error */
	EXIT_USAGE = 2,   /* bad command line */
	EXIT_INVALID = 3, /* invalid input: intent, manifest, template */
	EXIT_RUNTIME = 4, /* I/O, Git, cluster, internal */
	EXIT_HELD = 5,    /* reconcile: a node-replacing change to an
			   * `interruption: none` pool outside its maintenance
			   * window was held back; nothing was applied */
	EXIT_WRONG_CLUSTER = 6, /* reconcile, diff --live: the cluster is not
				 * the one the inventory records or the
				 * intent names; nothing was written */
};

int cmd_render(int argc, char **argv);
int cmd_reconcile(int argc, char **argv);
int cmd_commit(int argc, char **argv); /* cmd/commit.c: Git write-back */
int cmd_diff(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_plan(int argc, char **argv); /* cmd/plan.c: capacity and cost */
int cmd_advise(int argc, char **argv); /* cmd/advise.c: from usage to intent */
int cmd_doctor(int argc, char **argv); /* cmd/doctor.c: live controllers */
int cmd_version(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_lint(int argc, char **argv);    /* cmd/lint.c */
int cmd_explain(int argc, char **argv); /* cmd/lint.c */
int cmd_install(int argc, char **argv); /* cmd/install.c: in-cluster job */
int cmd_completion(int argc, char **argv); /* cmd/main.c */
int cmd_help_man(int argc, char **argv);   /* cmd/main.c */
int cmd_schema(int argc, char **argv);     /* cmd/schema.c */
int cmd_init(int argc, char **argv);       /* cmd/init.c */
extern const struct cmd_opt init_opts[];

/* the option tables, next to the code that reads them */
extern const struct cmd_opt render_opts[], validate_opts[], reconcile_opts[],
	diff_opts[], commit_opts[], lint_opts[], explain_opts[],
	install_opts[], version_opts[], help_opts[], plan_opts[],
	advise_opts[], doctor_opts[];

/* cmd_usage_error: print "gpuform <cmd>: <msg>; see 'gpuform <cmd>
 * --help'" (one line); returns 2 */
int cmd_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* cmd_print_help: the command's help text on stdout; returns 0 */
int cmd_print_help(const char *cmd);

/* report.c: print diagnostics (stderr) and map an error to an exit code */
void report_diags(const struct diags *d);
/* cmd_strict: with --strict, the warnings left in *d (n more of others)
 * fail: says so and returns EXIT_INVALID; else 0 */
int cmd_strict(const char *cmd, int strict, const struct diags *d, size_t n);
int report_err(const struct err *e);
int exit_code_for(const struct err *e);

/* cmd_output_format: -o/--format for render and install (cmd/render.c);
 * -1 after a usage error */
int cmd_output_format(const char *cmd, int val, const char *arg,
		      enum render_format *fmt, const char **dir);

#endif
