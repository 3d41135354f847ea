/* options: proctree-execd's command line. */
#ifndef PROCTREE_EXECD_OPTIONS_H
#define PROCTREE_EXECD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "proctree/collector.h"
#include "proctree/launch.h"

struct execd_target {
    const char *option; /* "pid", ... (NULL: -- COMMAND), for error messages */
    const char *name;   /* NULL: the library's default name */
    struct pt_selector selector;
    struct pt_target_options options; /* the defaults, then the options after it */
};

enum execd_format { EXECD_FORMAT_AUTO, EXECD_FORMAT_INFLUX, EXECD_FORMAT_TABLE };
/* The launched command's summary: AUTO is text after a table's last row,
 * nothing with line protocol on stdout (Telegraf would take it for a
 * malformed batch) unless --summary-file gives it a place. */
enum execd_summary { EXECD_SUMMARY_AUTO, EXECD_SUMMARY_TEXT, EXECD_SUMMARY_JSON, EXECD_SUMMARY_NONE };

struct execd_options {
    struct pt_collector_config config;
    struct pt_target_options target_defaults; /* per-target options before every target */
    double interval;                          /* 0: one batch per stdin newline / signal */
    enum execd_format format;                 /* --format; AUTO: table at a terminal, else influx */
    bool once;
    bool fd_budget_given; /* --descriptor-budget; else main() derives it */
    struct execd_target *targets;
    size_t n_targets;
    char **command;             /* argv after "--", NULL-terminated, or NULL */
    const char *command_name;   /* --name given before any target */
    const char *command_output; /* --command-output; NULL: discard */
    enum pt_launch_cgroup_mode launch_cgroup_mode;
    const char *launch_cgroup; /* --launch-cgroup PATH */
    enum execd_summary summary;
    const char *summary_file; /* --summary-file; NULL: stdout, after a table */
    bool verbose;             /* --verbose: every note at a terminal too */
};

enum execd_parse { EXECD_RUN, EXECD_EXIT_OK, EXECD_EXIT_USAGE };

/* Parse argv. On EXECD_EXIT_USAGE one line naming the culprit has been
 * written to stderr; on EXECD_EXIT_OK --help or --version was printed.
 * Only EXECD_RUN leaves out holding anything (execd_options_free). */
enum execd_parse execd_parse_options(int argc, char **argv, struct execd_options *out);
void execd_options_free(struct execd_options *options);

#endif
