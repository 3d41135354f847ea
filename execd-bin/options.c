#include "options.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proctree/collector.h"
#include "proctree/escape.h"
#include "help.h"
#include "proctree/optiontable.h"

/* getopt's code of option id: above every character it returns. */
#define CODE_BASE 256

/* getopt's view of the table, made once: every option with an execd name. */
static struct option long_options[PT_OPTION_COUNT + 1];

static void make_long_options(void)
{
    size_t n = 0;
    for (size_t i = 0; i < PT_OPTION_COUNT; i++) {
        const struct pt_option_def *def = &pt_options[i];
        if (!def->execd)
            continue;
        bool flag = def->arg == PT_ARG_NONE || def->arg == PT_ARG_OFF;
        long_options[n++] =
            (struct option){def->execd, flag ? no_argument : required_argument, NULL, CODE_BASE + (int)def->id};
    }
    long_options[n] = (struct option){NULL, 0, NULL, 0};
}

/* An argument for an error line, escaped: it can hold a newline and
 * forge a line of Telegraf's log. Two may be in use in one line. */
static const char *q(const char *text)
{
    static char quoted[2][PT_QUOTED_MAX];
    static unsigned next;
    char *out = quoted[next++ % 2];
    return pt_escape(text, out, PT_QUOTED_MAX);
}

/* One line naming the culprit. */
__attribute__((format(printf, 1, 2))) static enum execd_parse usage_error(const char *fmt, ...)
{
    char what[PT_LOG_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    pt_logf(PT_LOG_ERROR, "%s (see --help)", what);
    return EXECD_EXIT_USAGE;
}

static struct execd_target *add_target(struct execd_options *o, enum pt_selector_kind kind, const char *option)
{
    o->targets = pt_xrealloc_array(o->targets, o->n_targets + 1, sizeof(*o->targets));
    struct execd_target *t = &o->targets[o->n_targets++];
    memset(t, 0, sizeof(*t));
    t->selector.kind = kind;
    t->option = option;
    t->options = o->target_defaults;
    return t;
}

/* --name names the target before it, once: a second would rename it
 * silently. Nothing can follow "-- COMMAND", so a --name before every
 * target is kept for the launched command (checked at the end). */
static enum execd_parse set_name(struct execd_options *o, const char *name)
{
    const char **slot = o->n_targets == 0 ? &o->command_name : &o->targets[o->n_targets - 1].name;
    if (*slot)
        return usage_error("--name \"%s\": the target before it (%s%s) is named \"%s\" already", q(name),
                           o->n_targets == 0 ? "-- COMMAND" : "--",
                           o->n_targets == 0 ? "" : o->targets[o->n_targets - 1].option, q(*slot));
    *slot = name;
    return EXECD_RUN;
}

/* What the library does not keep: the timing of batches, launch mode and
 * the program's own options. */
static enum execd_parse parse_own(struct execd_options *o, const struct pt_option_def *def,
                                  const union pt_option_value *v)
{
    switch (def->id) {
    case PT_O_NAME:
        return set_name(o, v->text);
    case PT_O_INTERVAL:
        o->interval = v->seconds;
        return EXECD_RUN;
    case PT_O_ONCE:
        o->once = true;
        return EXECD_RUN;
    case PT_O_COMMAND_OUTPUT:
        o->command_output = v->text;
        return EXECD_RUN;
    case PT_O_FORMAT:
        if (strcmp(v->text, "table") != 0 && strcmp(v->text, "influx") != 0)
            return usage_error("--format: \"%s\": expected table or influx", q(v->text));
        o->format = strcmp(v->text, "table") == 0 ? EXECD_FORMAT_TABLE : EXECD_FORMAT_INFLUX;
        return EXECD_RUN;
    case PT_O_SUMMARY:
        if (strcmp(v->text, "text") == 0)
            o->summary = EXECD_SUMMARY_TEXT;
        else if (strcmp(v->text, "json") == 0)
            o->summary = EXECD_SUMMARY_JSON;
        else if (strcmp(v->text, "none") == 0)
            o->summary = EXECD_SUMMARY_NONE;
        else
            return usage_error("--summary: \"%s\": expected text, json or none", q(v->text));
        return EXECD_RUN;
    case PT_O_SUMMARY_FILE:
        o->summary_file = v->text;
        return EXECD_RUN;
    case PT_O_VERBOSE:
        o->verbose = true;
        return EXECD_RUN;
    case PT_O_LAUNCH_CGROUP:
    case PT_O_NO_LAUNCH_CGROUP:
        if (o->launch_cgroup_mode != PT_LAUNCH_CGROUP_DEFAULT)
            return usage_error("--%s: --launch-cgroup and --no-launch-cgroup are given together, or twice", def->execd);
        o->launch_cgroup_mode = def->id == PT_O_LAUNCH_CGROUP ? PT_LAUNCH_CGROUP_PATH : PT_LAUNCH_CGROUP_NONE;
        o->launch_cgroup = def->id == PT_O_LAUNCH_CGROUP ? v->text : NULL;
        return EXECD_RUN;
    case PT_O_HELP:
        execd_print_help(stdout);
        return EXECD_EXIT_OK;
    case PT_O_VERSION:
        printf("proctree-execd %s\n", PROCTREE_VERSION);
        return EXECD_EXIT_OK;
    case PT_O_LIST_OPTIONS:
        execd_print_option_list(stdout);
        return EXECD_EXIT_OK;
    default: /* an entry of the table that nothing reads */
        return usage_error("--%s: no part of proctree-execd reads it (common/include/proctree/optiontable.h)",
                           def->execd);
    }
}

static enum execd_parse parse_one(struct execd_options *o, const struct pt_option_def *def, const char *arg)
{
    union pt_option_value v = {.on = false}; /* a flag: --no-X turns X off */
    char why[256];
    if (arg && pt_optiontable_parse(def, arg, &v, why, sizeof(why)) != 0) {
        if (def->arg == PT_ARG_PROC_DIR || def->arg == PT_ARG_SYS_DIR || def->arg == PT_ARG_REGEX)
            return usage_error("--%s: %s", def->execd, why);
        return usage_error("--%s: \"%s\": expected %s", def->execd, q(arg), why);
    }
    struct execd_target *last = o->n_targets ? &o->targets[o->n_targets - 1] : NULL;
    switch (def->scope) {
    case PT_OPTION_SELECTOR: {
        struct execd_target *t = add_target(o, def->selects, def->execd);
        pt_optiontable_store(def, &v, NULL, NULL, &t->selector);
        return EXECD_RUN;
    }
    case PT_OPTION_TARGET:
        if (pt_optiontable_store(def, &v, NULL, last ? &last->options : &o->target_defaults, NULL) == 0)
            return EXECD_RUN;
        break;
    case PT_OPTION_GLOBAL:
        if (pt_optiontable_store(def, &v, &o->config, NULL, NULL) == 0) {
            o->fd_budget_given |= def->id == PT_O_DESCRIPTOR_BUDGET;
            return EXECD_RUN;
        }
        break;
    }
    return parse_own(o, def, &v);
}

/* Telegraf in a container finds the host's /proc and /sys where HOST_PROC
 * and HOST_SYS say (gopsutil's convention, which its own inputs follow)
 * and hands its environment to us: honoured the same way, --proc-root and
 * --sys-root winning. A bad one is refused naming the variable: measuring
 * the container's own /proc instead would look right and be wrong. */
static enum execd_parse roots_from_environment(struct execd_options *o)
{
    char why[256];
    const char *proc = getenv("HOST_PROC"), *sys = getenv("HOST_SYS");
    if (!o->config.proc_root && proc && *proc) {
        if (pt_collector_check_proc_root(proc, why, sizeof(why)) != 0)
            return usage_error("HOST_PROC (environment): %s", why);
        o->config.proc_root = proc;
    }
    if (!o->config.sys_root && sys && *sys) {
        if (pt_collector_check_sys_root(sys, why, sizeof(why)) != 0)
            return usage_error("HOST_SYS (environment): %s", why);
        o->config.sys_root = sys;
    }
    /* The tests' way to take the BPF source's type information away
     * (docs/TESTING.md): the file is opened with our own permissions. */
    const char *btf = getenv("PROCTREE_TEST_BTF");
    if (btf && *btf)
        o->config.btf_path = btf;
    return EXECD_RUN;
}

/* The error of a command line without a target names every selector. */
static enum execd_parse no_target(void)
{
    char selectors[256];
    pt_optiontable_selector_list(selectors, sizeof(selectors), true);
    return usage_error("no target: give %s, or -- COMMAND", selectors);
}

static enum execd_parse parse(int argc, char **argv, struct execd_options *o)
{
    memset(o, 0, sizeof(*o));
    pt_collector_config_init(&o->config);
    pt_target_options_init(&o->target_defaults);
    make_long_options();

    opterr = 0; /* our own one-line messages */
    optind = 1;
    int code;
    /* "+": stop at the first non-option, and keep options in order so that
     * a per-target option applies to the target just before it. */
    while ((code = getopt_long(argc, argv, "+", long_options, NULL)) != -1) {
        if (code == '?') {
            const char *culprit = argv[optind - 1];
            if (optopt >= CODE_BASE)
                return usage_error("option --%s needs a value", pt_options[optopt - CODE_BASE].execd);
            return usage_error("unknown option \"%s\"", q(culprit));
        }
        enum execd_parse r = parse_one(o, &pt_options[code - CODE_BASE], optarg);
        if (r != EXECD_RUN)
            return r;
    }
    if (optind < argc) {
        if (strcmp(argv[optind - 1], "--") != 0)
            return usage_error("unexpected argument \"%s\"; a command to launch goes after --", q(argv[optind]));
        o->command = &argv[optind];
        add_target(o, PT_SELECT_CHILD, NULL)->name = o->command_name;
    } else if (optind > 0 && strcmp(argv[optind - 1], "--") == 0) {
        return usage_error("-- must be followed by a command");
    }
    if (o->command_name && !o->command)
        return usage_error("--name \"%s\" must follow a target or precede -- COMMAND", q(o->command_name));
    if (o->command_output && !o->command)
        return usage_error("--command-output \"%s\" needs -- COMMAND", q(o->command_output));
    if (o->summary != EXECD_SUMMARY_AUTO && !o->command)
        return usage_error("--summary needs -- COMMAND: the summary is of a launched command's whole run");
    if (o->summary_file && !o->command)
        return usage_error("--summary-file \"%s\" needs -- COMMAND: the summary is of a launched command's whole run",
                           q(o->summary_file));
    if (o->summary_file && o->summary == EXECD_SUMMARY_NONE)
        return usage_error("--summary-file \"%s\" and --summary none: no summary to write", q(o->summary_file));
    if (o->launch_cgroup_mode != PT_LAUNCH_CGROUP_DEFAULT && !o->command)
        return usage_error("--%s needs -- COMMAND",
                           o->launch_cgroup_mode == PT_LAUNCH_CGROUP_PATH ? "launch-cgroup" : "no-launch-cgroup");
    /* a cgroup made only to be read is not made when it is not read; one
     * asked for by its path is (its limits, say, are wanted) */
    if (o->command && o->launch_cgroup_mode == PT_LAUNCH_CGROUP_DEFAULT &&
        !o->targets[o->n_targets - 1].options.collect_cgroup)
        o->launch_cgroup_mode = PT_LAUNCH_CGROUP_NONE;
    if (o->n_targets == 0)
        return no_target();
    return roots_from_environment(o);
}

/* An error (or --help) after a target returns with the targets made so
 * far: freed here, so that every caller's early exit leaks nothing (the
 * sanitizer build's leak report made a usage error exit 1, not 2). */
enum execd_parse execd_parse_options(int argc, char **argv, struct execd_options *o)
{
    enum execd_parse r = parse(argc, argv, o);
    if (r != EXECD_RUN)
        execd_options_free(o);
    return r;
}

void execd_options_free(struct execd_options *o)
{
    free(o->targets);
    memset(o, 0, sizeof(*o));
}
