#include "options.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "escape.h"
#include "fdbudget.h"
#include "units.h"

static const char usage[] = "Usage: proctree-execd [OPTION]... TARGET... [-- COMMAND [ARG]...]\n"
                            "Measure process trees from /proc and print InfluxDB line protocol for\n"
                            "Telegraf's inputs.execd.\n"
                            "\n"
                            "Targets (each starts a target; several may be given):\n"
                            "  --pid PID                 the process PID and all its descendants\n"
                            "  --pidfile FILE            the process whose pid is FILE's first line (a\n"
                            "                            regular file, re-read at every discovery) and\n"
                            "                            all its descendants\n"
                            "  --match REGEX             every process whose command line (arguments\n"
                            "                            joined by spaces) matches the POSIX ERE, and\n"
                            "                            their descendants\n"
                            "  --exe NAME                every process whose name (comm) or executable\n"
                            "                            base name is NAME, and their descendants\n"
                            "  --user USER               every process of effective user USER (name or\n"
                            "                            uid), and their descendants\n"
                            "  --cgroup PATH             every process of the cgroup (as /proc/PID/cgroup\n"
                            "                            shows it, or a cgroupfs directory) and its\n"
                            "                            sub-cgroups, and their descendants\n"
                            "  --unit UNIT               every process of the systemd unit's cgroup and\n"
                            "                            its sub-cgroups, and their descendants: a\n"
                            "                            service (the default type), scope, slice or\n"
                            "                            template instance; a glob (php*-fpm.service)\n"
                            "                            sums every unit that matches; followed across\n"
                            "                            restarts; one not running reports 0 processes\n"
                            "  -- COMMAND [ARG]...       run COMMAND and follow its whole tree (see\n"
                            "                            Launch mode below)\n"
                            "  --name NAME               name the preceding target (the target tag);\n"
                            "                            default: the process name; the pid file's or\n"
                            "                            cgroup's base name (without .pid); the REGEX,\n"
                            "                            NAME, USER or UNIT as given\n"
                            "  --by process              besides the target's line, one line per process\n"
                            "                            name (comm) in its tree, tagged process=NAME\n"
                            "                            (applies to the preceding target, as --name)\n"
                            "  --by thread               instead, one line per thread name in its tree,\n"
                            "                            tagged thread=NAME: CPU time and context\n"
                            "                            switches only\n"
                            "  --by cgroup               for a --cgroup or --unit target, one line per\n"
                            "                            cgroup directly below the target's, tagged\n"
                            "                            cgroup=NAME (a glob's: one per unit; processes\n"
                            "                            in the target's own cgroup: cgroup=.)\n"
                            "  --by-limit N              at most N names per target (default 20, 1 to\n"
                            "                            1000); the rest are tagged process=other\n"
                            "                            (thread=other, cgroup=other)\n"
                            "\n"
                            "Timing:\n"
                            "  (default)                 one batch per newline on stdin (Telegraf\n"
                            "                            signal = \"STDIN\"); SIGHUP, SIGUSR1 and SIGUSR2\n"
                            "                            also trigger a batch\n"
                            "  --interval DUR            one batch every DUR (Telegraf signal = \"none\")\n"
                            "  --once                    one batch after one interval (default 1s), exit\n"
                            "  --poll-interval DUR       memory sampling period (default 100ms)\n"
                            "  --discovery-interval DUR  new-descendant discovery period (default 1s)\n"
                            "                            DUR: 250ms, 2s, 1.5 (seconds), 1m\n"
                            "\n"
                            "Output:\n"
                            "  --proc-memory-unit U      bytes|kB|MB|GB for proc_* memory (default bytes)\n"
                            "  --global-memory-unit U    bytes|kB|MB|GB for global_* memory (default bytes)\n"
                            "  --no-pss                  do not read smaps_rollup (no pss/shared/uss/swap)\n"
                            "  --pss-interval DUR        read smaps_rollup every DUR (default: once per\n"
                            "                            batch, at the interval's end)\n"
                            "  --pss-budget DUR          a process whose smaps_rollup takes longer to read\n"
                            "                            (it stalls the process) is read less often\n"
                            "                            (default 5ms)\n"
                            "  --no-ctx-switches         do not read every thread's status (no\n"
                            "                            proc_ctx_switches_*)\n"
                            "  --no-fds                  do not count open file descriptors (no proc_fds,\n"
                            "                            proc_fds_limit_percent, proc_fds_headroom)\n"
                            "  --no-cgroup-metrics       do not read a cgroup or unit target's cgroup\n"
                            "                            files (no cgroup_*)\n"
                            "  --no-global               do not report the global_* line\n"
                            "  --descriptor-budget N     keep at most N /proc files open (default: the\n"
                            "                            open-files limit, raised to its hard limit,\n"
                            "                            less 64); others are opened at each read\n"
                            "  --proc-root DIR           read DIR instead of /proc: the host's /proc\n"
                            "                            in a container (default: $HOST_PROC, else\n"
                            "                            /proc); pids are taken as DIR's\n"
                            "  --sys-root DIR            look for the cgroup filesystem below DIR/fs/cgroup\n"
                            "                            first (default: $HOST_SYS, else /sys)\n"
                            "\n"
                            "Launch mode (-- COMMAND):\n"
                            "  --command-output WHERE    COMMAND's stdout and stderr go to: discard (the\n"
                            "                            default), stderr (this program's), or FILE\n"
                            "                            (appended; created with mode 0600)\n"
                            "  --launch-cgroup PATH      run COMMAND in a new cgroup made at PATH (as\n"
                            "                            /proc/PID/cgroup shows it, or a cgroupfs\n"
                            "                            directory; one that exists is refused), in\n"
                            "                            cgroup v2 and the v1 controllers; removed at\n"
                            "                            the end (default: proctree-launch-PID in this\n"
                            "                            program's own cgroup, when it may make one)\n"
                            "  --no-launch-cgroup        run COMMAND in this program's cgroup (no\n"
                            "                            cgroup_* metrics)\n"
                            "  With --interval or --once, proctree-execd exits with COMMAND's status\n"
                            "  once its tree is gone, after the last, partial interval. Per request\n"
                            "  (stdin, signals) it reports that interval at the next request, then\n"
                            "  proc_processes=0 until stdin closes. Told to stop (stdin closed,\n"
                            "  SIGTERM, SIGINT) while the tree runs, it sends SIGTERM to COMMAND's\n"
                            "  process group and every process of the tree, SIGKILL to what is left\n"
                            "  2s later, and exits.\n"
                            "  --help                    this text\n"
                            "  --version                 the version\n";

enum {
    OPT_PID = 256,
    OPT_PIDFILE,
    OPT_MATCH,
    OPT_EXE,
    OPT_USER,
    OPT_CGROUP,
    OPT_UNIT,
    OPT_NAME,
    OPT_INTERVAL,
    OPT_ONCE,
    OPT_POLL,
    OPT_DISCOVERY,
    OPT_PROC_UNIT,
    OPT_GLOBAL_UNIT,
    OPT_NO_PSS,
    OPT_PSS_BUDGET,
    OPT_PSS_INTERVAL,
    OPT_NO_CTX,
    OPT_NO_FDS,
    OPT_NO_CGROUP_METRICS,
    OPT_NO_GLOBAL,
    OPT_BY,
    OPT_BY_LIMIT,
    OPT_FD_BUDGET,
    OPT_PROC_ROOT,
    OPT_SYS_ROOT,
    OPT_COMMAND_OUTPUT,
    OPT_LAUNCH_CGROUP,
    OPT_NO_LAUNCH_CGROUP,
    OPT_HELP,
    OPT_VERSION,
};

static const struct option long_options[] = {
    {"pid", required_argument, NULL, OPT_PID},
    {"pidfile", required_argument, NULL, OPT_PIDFILE},
    {"match", required_argument, NULL, OPT_MATCH},
    {"exe", required_argument, NULL, OPT_EXE},
    {"user", required_argument, NULL, OPT_USER},
    {"cgroup", required_argument, NULL, OPT_CGROUP},
    {"unit", required_argument, NULL, OPT_UNIT},
    {"name", required_argument, NULL, OPT_NAME},
    {"by", required_argument, NULL, OPT_BY},
    {"by-limit", required_argument, NULL, OPT_BY_LIMIT},
    {"interval", required_argument, NULL, OPT_INTERVAL},
    {"once", no_argument, NULL, OPT_ONCE},
    {"poll-interval", required_argument, NULL, OPT_POLL},
    {"discovery-interval", required_argument, NULL, OPT_DISCOVERY},
    {"proc-memory-unit", required_argument, NULL, OPT_PROC_UNIT},
    {"global-memory-unit", required_argument, NULL, OPT_GLOBAL_UNIT},
    {"no-pss", no_argument, NULL, OPT_NO_PSS},
    {"pss-budget", required_argument, NULL, OPT_PSS_BUDGET},
    {"pss-interval", required_argument, NULL, OPT_PSS_INTERVAL},
    {"no-ctx-switches", no_argument, NULL, OPT_NO_CTX},
    {"no-fds", no_argument, NULL, OPT_NO_FDS},
    {"no-cgroup-metrics", no_argument, NULL, OPT_NO_CGROUP_METRICS},
    {"no-global", no_argument, NULL, OPT_NO_GLOBAL},
    {"descriptor-budget", required_argument, NULL, OPT_FD_BUDGET},
    {"proc-root", required_argument, NULL, OPT_PROC_ROOT},
    {"sys-root", required_argument, NULL, OPT_SYS_ROOT},
    {"command-output", required_argument, NULL, OPT_COMMAND_OUTPUT},
    {"launch-cgroup", required_argument, NULL, OPT_LAUNCH_CGROUP},
    {"no-launch-cgroup", no_argument, NULL, OPT_NO_LAUNCH_CGROUP},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* An argument for an error line, escaped: it can hold a newline and
 * forge a line of Telegraf's log. Two may be in use in one line. */
static const char *q(const char *text)
{
    static char quoted[2][PT_QUOTED_MAX];
    static unsigned next;
    char *out = quoted[next++ % 2];
    return pt_escape(out, PT_QUOTED_MAX, text);
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

static const char *const selector_option[] = {
    [PT_SELECT_PID] = "--pid",       [PT_SELECT_PIDFILE] = "--pidfile", [PT_SELECT_CHILD] = "-- COMMAND",
    [PT_SELECT_MATCH] = "--match",   [PT_SELECT_EXE] = "--exe",         [PT_SELECT_USER] = "--user",
    [PT_SELECT_CGROUP] = "--cgroup", [PT_SELECT_UNIT] = "--unit",
};

static struct execd_target *add_target(struct execd_options *o, enum pt_selector_kind kind)
{
    o->targets = pt_xrealloc_array(o->targets, o->n_targets + 1, sizeof(*o->targets));
    struct execd_target *t = &o->targets[o->n_targets++];
    memset(t, 0, sizeof(*t));
    t->selector.kind = kind;
    t->option = selector_option[kind];
    return t;
}

/* Decimal digits only: strtol alone would also take " 5" and "+5". */
/* A whole number from min to max (max < 2^32), written in decimal digits
 * only: no sign, space, exponent or fraction. */
static int parse_whole(const char *text, unsigned long min, unsigned long max, unsigned long *out)
{
    unsigned long v = 0;
    if (!*text)
        return -1;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9' || v > max)
            return -1;
        v = v * 10 + (unsigned long)(*p - '0');
    }
    if (v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* The name of the long option getopt just handled, for error messages. */
static const char *option_name(int code)
{
    for (const struct option *o = long_options; o->name; o++)
        if (o->val == code)
            return o->name;
    return "?";
}

static enum execd_parse parse_one(struct execd_options *o, int code, const char *arg)
{
    double seconds;
    switch (code) {
    case OPT_PID: {
        unsigned long pid;
        if (parse_whole(arg, 1, PT_PID_LIMIT - 1, &pid) != 0)
            return usage_error("--pid: \"%s\" is not a process id", q(arg));
        add_target(o, PT_SELECT_PID)->selector.pid = (pid_t)pid;
        return EXECD_RUN;
    }
    case OPT_PIDFILE:
    case OPT_CGROUP:
        if (!*arg)
            return usage_error("--%s: empty path", option_name(code));
        add_target(o, code == OPT_PIDFILE ? PT_SELECT_PIDFILE : PT_SELECT_CGROUP)->selector.path = arg;
        return EXECD_RUN;
    case OPT_MATCH:
    case OPT_EXE:
    case OPT_USER:
    case OPT_UNIT: {
        if (!*arg)
            return usage_error("--%s: empty value", option_name(code));
        enum pt_selector_kind kind = code == OPT_MATCH  ? PT_SELECT_MATCH
                                     : code == OPT_EXE  ? PT_SELECT_EXE
                                     : code == OPT_USER ? PT_SELECT_USER
                                                        : PT_SELECT_UNIT;
        add_target(o, kind)->selector.value = arg;
        return EXECD_RUN;
    }
    case OPT_NAME:
        if (!*arg)
            return usage_error("--name: empty name");
        /* Nothing can follow "-- COMMAND", so a --name before any target
         * is kept for the launched command (checked at the end). */
        if (o->n_targets == 0)
            o->command_name = arg;
        else
            o->targets[o->n_targets - 1].name = arg;
        return EXECD_RUN;
    case OPT_BY: {
        enum pt_breakdown by;
        if (pt_breakdown_parse(arg, &by) != 0)
            return usage_error("--by: \"%s\" is not a breakdown; give process, thread or cgroup", q(arg));
        if (o->n_targets == 0)
            o->command_by = by;
        else
            o->targets[o->n_targets - 1].by = by;
        return EXECD_RUN;
    }
    case OPT_BY_LIMIT: {
        unsigned long limit;
        if (parse_whole(arg, 1, PT_BREAKDOWN_LIMIT_MAX, &limit) != 0)
            return usage_error("--by-limit: \"%s\" is not a whole number from 1 to %d", q(arg), PT_BREAKDOWN_LIMIT_MAX);
        o->target_options.breakdown_limit = (unsigned)limit;
        return EXECD_RUN;
    }
    case OPT_INTERVAL:
    case OPT_POLL:
    case OPT_DISCOVERY:
    case OPT_PSS_BUDGET:
    case OPT_PSS_INTERVAL:
        if (pt_duration_parse(arg, &seconds) != 0)
            return usage_error("--%s: \"%s\" is not a duration > 0 (e.g. 250ms, 2s, 1.5)", option_name(code), q(arg));
        if (code == OPT_INTERVAL)
            o->interval = seconds;
        else if (code == OPT_POLL)
            o->config.poll_interval = seconds;
        else if (code == OPT_PSS_BUDGET)
            o->target_options.pss_budget = seconds;
        else if (code == OPT_PSS_INTERVAL)
            o->config.pss_interval = seconds;
        else
            o->config.discovery_interval = seconds;
        return EXECD_RUN;
    case OPT_PROC_UNIT:
    case OPT_GLOBAL_UNIT: {
        enum pt_mem_unit unit;
        if (pt_mem_unit_parse(arg, &unit) != 0)
            return usage_error("--%s: \"%s\" is not one of bytes, kB, MB, GB", option_name(code), q(arg));
        if (code == OPT_PROC_UNIT)
            o->config.units.proc_memory = unit;
        else
            o->config.units.global_memory = unit;
        return EXECD_RUN;
    }
    case OPT_ONCE:
        o->once = true;
        return EXECD_RUN;
    case OPT_NO_PSS:
        o->target_options.collect_pss = false;
        return EXECD_RUN;
    case OPT_NO_CTX:
        o->target_options.collect_ctx_switches = false;
        return EXECD_RUN;
    case OPT_NO_FDS:
        o->target_options.collect_fds = false;
        return EXECD_RUN;
    case OPT_NO_CGROUP_METRICS:
        o->target_options.collect_cgroup = false;
        return EXECD_RUN;
    case OPT_NO_GLOBAL:
        o->config.collect_global = false;
        return EXECD_RUN;
    case OPT_FD_BUDGET: {
        unsigned long budget;
        if (parse_whole(arg, 0, PT_FD_BUDGET_MAX, &budget) != 0)
            return usage_error("--descriptor-budget: \"%s\" is not a whole number from 0 to %zu", q(arg),
                               PT_FD_BUDGET_MAX);
        o->config.fd_budget = budget;
        o->fd_budget_given = true;
        return EXECD_RUN;
    }
    case OPT_PROC_ROOT: {
        char why[256];
        if (pt_collector_check_proc_root(arg, why, sizeof(why)) != 0)
            return usage_error("--proc-root: %s", why);
        o->config.proc_root = arg;
        return EXECD_RUN;
    }
    case OPT_SYS_ROOT: {
        char why[256];
        if (pt_collector_check_sys_root(arg, why, sizeof(why)) != 0)
            return usage_error("--sys-root: %s", why);
        o->config.sys_root = arg;
        return EXECD_RUN;
    }
    case OPT_COMMAND_OUTPUT:
        if (!*arg)
            return usage_error("--command-output: empty value; give discard, stderr or a file");
        o->command_output = arg;
        return EXECD_RUN;
    case OPT_LAUNCH_CGROUP:
    case OPT_NO_LAUNCH_CGROUP:
        if (code == OPT_LAUNCH_CGROUP && !*arg)
            return usage_error("--launch-cgroup: empty path");
        if (o->launch_cgroup_mode != PT_LAUNCH_CGROUP_DEFAULT)
            return usage_error("--%s: --launch-cgroup and --no-launch-cgroup are given together, or twice",
                               option_name(code));
        o->launch_cgroup_mode = code == OPT_LAUNCH_CGROUP ? PT_LAUNCH_CGROUP_PATH : PT_LAUNCH_CGROUP_NONE;
        o->launch_cgroup = code == OPT_LAUNCH_CGROUP ? arg : NULL;
        return EXECD_RUN;
    case OPT_HELP:
        fputs(usage, stdout);
        return EXECD_EXIT_OK;
    case OPT_VERSION:
        printf("proctree-execd %s\n", PROCTREE_VERSION);
        return EXECD_EXIT_OK;
    }
    return EXECD_EXIT_USAGE;
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
    return EXECD_RUN;
}

enum execd_parse execd_parse_options(int argc, char **argv, struct execd_options *o)
{
    memset(o, 0, sizeof(*o));
    pt_collector_config_init(&o->config);
    pt_target_options_init(&o->target_options);

    opterr = 0; /* our own one-line messages */
    optind = 1;
    int code;
    /* "+": stop at the first non-option, and keep options in order so that
     * --name applies to the target just before it. */
    while ((code = getopt_long(argc, argv, "+", long_options, NULL)) != -1) {
        if (code == '?') {
            const char *culprit = argv[optind - 1];
            if (optopt >= OPT_PID)
                return usage_error("option --%s needs a value", option_name(optopt));
            return usage_error("unknown option \"%s\"", q(culprit));
        }
        enum execd_parse r = parse_one(o, code, optarg);
        if (r != EXECD_RUN)
            return r;
    }
    if (optind < argc) {
        if (strcmp(argv[optind - 1], "--") != 0)
            return usage_error("unexpected argument \"%s\"; a command to launch goes after --", q(argv[optind]));
        o->command = &argv[optind];
        struct execd_target *launched = add_target(o, PT_SELECT_CHILD);
        launched->name = o->command_name;
        launched->by = o->command_by;
    } else if (optind > 0 && strcmp(argv[optind - 1], "--") == 0) {
        return usage_error("-- must be followed by a command");
    }
    if (o->command_name && !o->command)
        return usage_error("--name \"%s\" must follow a target or precede -- COMMAND", q(o->command_name));
    if (o->command_by && !o->command)
        return usage_error("--by must follow a target or precede -- COMMAND");
    if (o->command_output && !o->command)
        return usage_error("--command-output \"%s\" needs -- COMMAND", q(o->command_output));
    if (o->launch_cgroup_mode != PT_LAUNCH_CGROUP_DEFAULT && !o->command)
        return usage_error("--%s needs -- COMMAND",
                           o->launch_cgroup_mode == PT_LAUNCH_CGROUP_PATH ? "launch-cgroup" : "no-launch-cgroup");
    /* a cgroup made only to be read is not made when it is not read; one
     * asked for by its path is (its limits, say, are wanted) */
    if (o->launch_cgroup_mode == PT_LAUNCH_CGROUP_DEFAULT && !o->target_options.collect_cgroup)
        o->launch_cgroup_mode = PT_LAUNCH_CGROUP_NONE;
    if (o->n_targets == 0)
        return usage_error("no target: give --pid, --pidfile, --match, --exe, --user, --cgroup or -- COMMAND");
    return roots_from_environment(o);
}

void execd_options_free(struct execd_options *o)
{
    free(o->targets);
    memset(o, 0, sizeof(*o));
}
