#include "help.h"

#include <string.h>

#include "proctree/optiontable.h"

/* Where an option's help text starts: "  --discovery-interval DUR  " */
#define HELP_COLUMN 28

/* The prose around a section's options: a heading, lines before them and
 * lines after them. */
static const struct {
    const char *heading;
    const char *before;
    const char *after;
} sections[] = {
    [PT_HELP_TARGETS] = {"Targets (each starts a target; several may be given):", "",
                         "  -- COMMAND [ARG]...       run COMMAND and follow its whole tree (see\n"
                         "                            Launch mode below)\n"},
    [PT_HELP_PER_TARGET] = {"Per target (each applies to the target before it; given before every\n"
                            "target, to every target):",
                            "", ""},
    [PT_HELP_TIMING] = {"Timing:",
                        "  (default)                 one batch per newline on stdin (Telegraf\n"
                        "                            signal = \"STDIN\"); SIGHUP, SIGUSR1 and SIGUSR2\n"
                        "                            also trigger a batch\n",
                        "                            DUR: 250ms, 2s, 1.5 (seconds), 1m; from 1ms\n"
                        "                            to 24h\n"},
    [PT_HELP_OUTPUT] = {"Output:", "", ""},
    [PT_HELP_LAUNCH] = {"Launch mode (-- COMMAND):", "",
                        "  With --interval or --once, proctree-execd exits with COMMAND's status\n"
                        "  once its tree is gone, after the last, partial interval. Per request\n"
                        "  (stdin, signals) it reports that interval at the next request, then\n"
                        "  proc_processes=0 until stdin closes. Told to stop (stdin closed,\n"
                        "  SIGTERM, SIGINT) while the tree runs, it sends SIGTERM to COMMAND's\n"
                        "  process group and every process of the tree, SIGKILL to what is left\n"
                        "  2s later, and exits.\n"},
    [PT_HELP_PROGRAM] = {"Program:", "", ""},
};

static void print_option(FILE *out, const struct pt_option_def *o)
{
    int width = fprintf(out, "  --%s%s%s", o->execd, *o->metavar ? " " : "", o->metavar);
    if (width >= HELP_COLUMN) {
        fputc('\n', out);
        width = 0;
    }
    fprintf(out, "%*s", HELP_COLUMN - width, "");
    for (const char *line = o->help; *line;) {
        size_t len = strcspn(line, "\n");
        fprintf(out, "%.*s\n", (int)len, line);
        line += len;
        if (*line == '\n') {
            line++;
            fprintf(out, "%*s", HELP_COLUMN, "");
        }
    }
}

void execd_print_help(FILE *out)
{
    fputs("Usage: proctree-execd [OPTION]... TARGET... [-- COMMAND [ARG]...]\n"
          "Measure process trees from /proc and print InfluxDB line protocol for\n"
          "Telegraf's inputs.execd.\n",
          out);
    for (size_t s = 0; s < PT_ARRAY_LEN(sections); s++) {
        if (sections[s].heading)
            fprintf(out, "\n%s\n", sections[s].heading);
        fputs(sections[s].before, out);
        for (size_t i = 0; i < PT_OPTION_COUNT; i++)
            if (pt_options[i].execd && pt_options[i].section == s)
                print_option(out, &pt_options[i]);
        fputs(sections[s].after, out);
    }
}

void execd_print_option_list(FILE *out)
{
    static const char *const scope[] = {
        [PT_OPTION_SELECTOR] = "selector", [PT_OPTION_TARGET] = "target", [PT_OPTION_GLOBAL] = "global"};
    static const char *const arg[] = {
        [PT_ARG_NONE] = "none",
        [PT_ARG_OFF] = "off",
        [PT_ARG_WHOLE] = "whole",
        [PT_ARG_PATH] = "path",
        [PT_ARG_TEXT] = "text",
        [PT_ARG_DURATION] = "duration",
        [PT_ARG_DURATION_OR_0] = "duration-or-0",
        [PT_ARG_MEM_UNIT] = "memory-unit",
        [PT_ARG_BREAKDOWN] = "breakdown",
        [PT_ARG_RANK] = "rank",
        [PT_ARG_PROC_DIR] = "proc-dir",
        [PT_ARG_SYS_DIR] = "sys-dir",
        [PT_ARG_REGEX] = "regex",
        [PT_ARG_SOURCE] = "source",
        [PT_ARG_COUNTERS] = "counters",
    };
    for (size_t i = 0; i < PT_OPTION_COUNT; i++) {
        const struct pt_option_def *o = &pt_options[i];
        fprintf(out, "%s%s\t%s\t%s\t%s\n", o->execd ? "--" : "-", o->execd ? o->execd : "",
                o->collectd ? o->collectd : "-", scope[o->scope], arg[o->arg]);
    }
}
