/*
 * cmd/options.h: the option tables of the commands, and everything made
 * from them: option parsing (getopt_long underneath, options anywhere on
 * the command line, "--" ends them), --help, the man pages and the shell
 * completions. One table per command, next to the code that acts on its
 * options, so help, man page, completion and parser cannot disagree.
 */
#ifndef CMD_OPTIONS_H
#define CMD_OPTIONS_H

#include <getopt.h> /* optarg, optind */
#include <stdio.h>

#include "util/buf.h"

enum cmd_arg { CMD_ARG_NONE, CMD_ARG_REQUIRED, CMD_ARG_OPTIONAL };

#define CMD_OPT_HIDDEN 1u /* accepted, not documented (old spellings) */

struct cmd_opt {
	const char *name; /* long name; NULL ends a table */
	int sh;           /* short option letter, or 0 */
	int val;          /* what cmd_getopt returns for it */
	enum cmd_arg arg;
	const char *meta; /* the argument's name in help ("FORMAT") */
	const char *help; /* one paragraph; wrapped by the formatter */
	/* completion of the argument: space-separated words, or "@file",
	 * "@dir", NULL for none */
	const char *complete;
	unsigned flags;
};

/* the options every command has */
#define CMD_OPT_HELP                                                          \
	{ "help", 'h', 'h', CMD_ARG_NONE, NULL, "show this help", NULL, 0 }
#define CMD_OPT_END { NULL, 0, 0, CMD_ARG_NONE, NULL, NULL, NULL, 0 }
/* --strict (validate, render, plan, lint, diff): a warning that
 * spec.acknowledge does not accept fails the command (cmd_strict) */
#define OPT_STRICT 900
#define CMD_OPT_STRICT                                                        \
	{ "strict", 0, OPT_STRICT, CMD_ARG_NONE, NULL,                        \
	  "fail (exit 3) on a warning that spec.acknowledge does not accept", \
	  NULL, 0 }

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	/* usage lines, each without "gpuform <name> " */
	const char *synopsis;
	/* paragraphs (blank-line separated, lines wrapped at 72 columns);
	 * lines that start with two spaces are kept as they are */
	const char *description;
	const struct cmd_opt *opts;
	const char *notes; /* more paragraphs after the options, or NULL */
	const char *exit;  /* the exit statuses, one paragraph, or NULL */
	/* completion of the operands: "@file", "@dir", "@command",
	 * "@rule", "@shell", or NULL */
	const char *operands;
	unsigned flags; /* CMD_OPT_HIDDEN: not in the overview */
};

extern const struct cmd cmd_table[];

/* -q (-1), default (0), -v (1): global flags, read by main */
extern int cmd_verbosity;
extern const size_t cmd_table_nr;

const struct cmd *cmd_find(const char *name);

/*
 * cmd_getopt: getopt_long over the command's table, permuting so that
 * options may follow operands (like git and kubectl); "--" ends options.
 * Returns an option's val, -1 at the end (optind: first operand), or '?'
 * after printing a one-line usage error (unknown option, with "did you
 * mean", or a missing argument): the caller returns EXIT_USAGE.
 */
int cmd_getopt(const char *cmd, int argc, char **argv);

/*
 * cmd_format: the one parser of -o/--output FORMAT, for every command.
 * `names` (NULL-terminated, in the caller's enum order) must be exactly the
 * words the option's table entry completes (BUG otherwise), so the parser,
 * --help, the man page and the completion offer the same formats. Returns
 * the index of `arg` in names, or -1 after a usage error that lists them
 * ("did you mean" for a near miss); *suggestion (may be NULL) gets the near
 * miss, or NULL. With `quiet`, nothing is printed (render's old -o DIR).
 */
int cmd_format(const char *cmd, const char *arg, const char *const *names,
	       int quiet, const char **suggestion);

/* cmd_opt_name: the long name of the option `val` of the command, for
 * messages ("--head goes with --base") */
const char *cmd_opt_name(const char *cmd, int val);

/* cmd_suggest: the closest of `n` names to `word` (edit distance at most
 * 2, or a unique prefix), or NULL */
const char *cmd_suggest(const char *word, const char *const *names,
			size_t n);

/* the generated texts */
void cmd_format_help(struct buf *out, const struct cmd *c);
void cmd_format_overview(struct buf *out);
void cmd_format_man(struct buf *out, const struct cmd *c); /* NULL: gpuform(1) */
int cmd_format_completion(struct buf *out, const char *shell);

#endif
