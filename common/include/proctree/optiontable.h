/* optiontable: every option of both frontends, defined once.
 *
 * proctree-execd's command line (execd-bin/options.c), <Plugin proctree>
 * (collectd-plugin/config.c), `proctree-execd --help` and the man pages'
 * check (packaging/check-manpages, through `proctree-execd --list-options`)
 * are all driven by this list, so an option's name, its value and its scope
 * cannot drift between collectd and Telegraf.
 *
 * X(ID, execd, collectd, arg, min, max, scope, metavar, help)
 *   execd:    proctree-execd's long option, without "--"; NULL: none.
 *   collectd: the key in <Plugin proctree>; NULL: none.
 *   arg:      how its value is written (enum pt_option_arg); OFF is a
 *             setting on by default: --no-X in proctree-execd, X true|false
 *             in collectd.
 *   min, max: the range of a WHOLE value; of a DURATION (and a
 *             DURATION_OR_0 other than 0), in milliseconds: every
 *             duration's is PT_DURATION_MIN_MS to PT_DURATION_MAX_MS
 *             (units.h says why).
 *   scope:    SELECTS(kind): starts a target of that selector (a <Process>
 *             block's one selector); PER_TARGET: a setting of one target,
 *             given after the target in proctree-execd, inside the <Process>
 *             block in collectd, and a default for every target when given
 *             before the first target (proctree-execd) or outside every
 *             block (collectd); FOR_ALL(section): one setting for the whole
 *             program, in that section of --help.
 *   metavar:  what --help calls its value ("" for none).
 *   help:     proctree-execd's --help text, lines joined by '\n'; NULL for
 *             an option proctree-execd does not have. */
#ifndef PROCTREE_OPTIONTABLE_H
#define PROCTREE_OPTIONTABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "proctree/collector.h"
#include "proctree/fdbudget.h"
#include "proctree/units.h"

enum pt_option_arg {
    PT_ARG_NONE,          /* a flag, no value (proctree-execd only) */
    PT_ARG_OFF,           /* a setting on by default (see above) */
    PT_ARG_WHOLE,         /* a whole number from min to max */
    PT_ARG_PATH,          /* a non-empty path */
    PT_ARG_TEXT,          /* a non-empty string */
    PT_ARG_DURATION,      /* seconds > 0 */
    PT_ARG_DURATION_OR_0, /* seconds > 0, or 0 */
    PT_ARG_MEM_UNIT,      /* bytes, kB, MB or GB, or KiB, MiB, GiB (units.h) */
    PT_ARG_BREAKDOWN,     /* process, title, thread or cgroup (selector.h) */
    PT_ARG_RANK,          /* seen, cpu, memory or io (rank.h) */
    PT_ARG_REGEX,         /* a POSIX extended regular expression, compiled to check it */
    PT_ARG_PROC_DIR,      /* a proc filesystem's directory, checked */
    PT_ARG_SYS_DIR,       /* a directory, checked */
    PT_ARG_SOURCE,        /* auto, procfs or bpf (collectorconfig.h) */
    PT_ARG_COUNTERS,      /* delta or total (totals.h) */
};

enum pt_option_scope { PT_OPTION_SELECTOR, PT_OPTION_TARGET, PT_OPTION_GLOBAL };
/* The sections of --help a global option is in (the targets' and their
 * settings' come first, from their scope). */
enum pt_help_section {
    PT_HELP_TARGETS,
    PT_HELP_PER_TARGET,
    PT_HELP_TIMING,
    PT_HELP_OUTPUT,
    PT_HELP_LAUNCH,
    PT_HELP_PROGRAM,
};

/* The scope column: three fields of struct pt_option_def. */
#define PT_OPTION_SELECTS(kind) PT_OPTION_SELECTOR, (kind), PT_HELP_TARGETS
#define PT_OPTION_PER_TARGET PT_OPTION_TARGET, 0, PT_HELP_PER_TARGET
#define PT_OPTION_FOR_ALL(section) PT_OPTION_GLOBAL, 0, PT_HELP_##section

/* clang-format off */
#define PT_OPTION_TABLE(X) \
  X(PT_O_PID, "pid", "Pid", WHOLE, 1, PT_PID_LIMIT - 1, SELECTS(PT_SELECT_PID), "PID", \
    "the process PID and all its descendants") \
  X(PT_O_PIDFILE, "pidfile", "PidFile", PATH, 0, 0, SELECTS(PT_SELECT_PIDFILE), "FILE", \
    "the process whose pid is FILE's first line (a\nregular file, re-read at every discovery) and\nall its descendants") \
  X(PT_O_MATCH, "match", "Match", TEXT, 0, 0, SELECTS(PT_SELECT_MATCH), "REGEX", \
    "every process whose command line (arguments\njoined by spaces) matches the POSIX ERE, and\ntheir descendants") \
  X(PT_O_EXE, "exe", "Exe", TEXT, 0, 0, SELECTS(PT_SELECT_EXE), "NAME", \
    "every process whose name (comm) or executable\nbase name is NAME, and their descendants") \
  X(PT_O_USER, "user", "User", TEXT, 0, 0, SELECTS(PT_SELECT_USER), "USER", \
    "every process of effective user USER (name or\nuid), and their descendants") \
  X(PT_O_CGROUP, "cgroup", "Cgroup", PATH, 0, 0, SELECTS(PT_SELECT_CGROUP), "PATH", \
    "every process of the cgroup (as /proc/PID/cgroup\nshows it, or a cgroupfs directory) and its\nsub-cgroups, and their descendants") \
  X(PT_O_UNIT, "unit", "Unit", TEXT, 0, 0, SELECTS(PT_SELECT_UNIT), "UNIT", \
    "every process of the systemd unit's cgroup and\nits sub-cgroups, and their descendants: a\nservice (the default type), scope, slice or\ntemplate instance; a glob (php*-fpm.service)\nsums every unit that matches; followed across\nrestarts; one not running reports 0 processes") \
  X(PT_O_NAME, "name", "Process", TEXT, 0, 0, PER_TARGET, "NAME", \
    "name the target (the target tag), once; default:\nthe process name; the pid file's or cgroup's\nbase name (without .pid); the REGEX, NAME, USER\nor UNIT as given. Before every target: the\nlaunched command's name") \
  X(PT_O_BY, "by", "BreakDown", BREAKDOWN, 0, 0, PER_TARGET, "HOW", \
    "besides the target's line, one line per group:\nprocess: per process name (comm) in its tree,\ntagged process=NAME; title: per process title\n(its command line as ps -o args shows it; [comm]\nwhen it is empty), tagged title=TITLE; thread:\ninstead, per thread name, tagged thread=NAME (CPU\ntime and context switches only); cgroup: for a\n--cgroup or --unit target, per cgroup directly\nbelow the target's, tagged cgroup=NAME (a glob's:\none per unit; processes in the target's own\ncgroup: cgroup=.)") \
  X(PT_O_BY_TITLE_PATTERN, "by-title-pattern", "BreakDownTitlePattern", REGEX, 0, 0, PER_TARGET, "REGEX", \
    "with --by title, group by the text of this POSIX\nERE's first capture group that has some (else of\nthe whole match) where it matches the title, by\nthe whole title where it does not:\n'^postgres: (\\S+)' gives one line per backend\nuser, checkpointer, walwriter, autovacuum, ...") \
  X(PT_O_BY_LIMIT, "by-limit", "BreakDownLimit", WHOLE, 1, PT_BREAKDOWN_LIMIT_MAX, PER_TARGET, "N", \
    "at most N names (default 20, 1 to 1000); the\nrest are tagged process=other (title=other,\nthread=other, cgroup=other)") \
  X(PT_O_BY_RANK, "by-rank", "BreakDownRank", RANK, 0, 0, PER_TARGET, "HOW", \
    "which names those are: seen (the default), the\nfirst seen while there is room; cpu, memory or\nio, the heaviest of each interval by CPU time,\nresident memory or storage bytes read and\nwritten, named from the next interval on (a\nnamed one keeps its place until one in other\nweighs more than twice it); by thread: cpu") \
  X(PT_O_NO_PSS, "no-pss", "CollectPss", OFF, 0, 0, PER_TARGET, "", \
    "do not read smaps_rollup (no pss/shared/uss/swap)") \
  X(PT_O_PSS_BUDGET, "pss-budget", "PssBudget", DURATION_OR_0, PT_DURATION_MIN_MS, PT_DURATION_MAX_MS, PER_TARGET, "DUR", \
    "a process whose smaps_rollup takes longer to read\n(it stalls the process) is read less often, its\nlast PSS standing in, which may be wrong by then\n(default 0: no such guard)") \
  X(PT_O_PSS_EVERY, "pss-every", "PssEvery", WHOLE, 1, PT_PSS_EVERY_MAX, PER_TARGET, "N", \
    "read a process's smaps_rollup at least at every\nNth PSS sample; between, only when a process of\nits tree joined, left, exec'd or its memory or\nfaults moved (default 6, 1 to 3600; 1: every\nsample)") \
  X(PT_O_NO_CTX_SWITCHES, "no-ctx-switches", "CollectContextSwitch", OFF, 0, 0, PER_TARGET, "", \
    "do not read every thread's status (no\nproc_ctx_switches_*)") \
  X(PT_O_NO_FDS, "no-fds", "CollectFileDescriptor", OFF, 0, 0, PER_TARGET, "", \
    "do not count open file descriptors (no proc_fds,\nproc_fds_limit_percent, proc_fds_headroom)") \
  X(PT_O_NO_NET, "no-net", "CollectNet", OFF, 0, 0, PER_TARGET, "", \
    "do not follow the tree's TCP sockets, count its UDP\nbytes nor read its network namespace's interfaces\n(no proc_net_tcp_*, proc_net_udp_*, netns_*)") \
  X(PT_O_NO_CGROUP_METRICS, "no-cgroup-metrics", "CollectCgroupMetrics", OFF, 0, 0, PER_TARGET, "", \
    "do not read a cgroup, unit or launched command's\ncgroup files (no cgroup_*)") \
  X(PT_O_INTERVAL, "interval", NULL, DURATION, PT_DURATION_MIN_MS, PT_DURATION_MAX_MS, FOR_ALL(TIMING), "DUR", \
    "one batch every DUR (Telegraf signal = \"none\")") \
  X(PT_O_ONCE, "once", NULL, NONE, 0, 0, FOR_ALL(TIMING), "", \
    "one batch after one interval (default 1s), exit") \
  X(PT_O_POLL_INTERVAL, "poll-interval", "PollInterval", DURATION, PT_DURATION_MIN_MS, PT_DURATION_MAX_MS, FOR_ALL(TIMING), "DUR", \
    "memory sampling period (default 100ms)") \
  X(PT_O_DISCOVERY_INTERVAL, "discovery-interval", "DiscoveryInterval", DURATION, PT_DURATION_MIN_MS, PT_DURATION_MAX_MS, FOR_ALL(TIMING), "DUR", \
    "new-descendant discovery period (default 1s)") \
  X(PT_O_PSS_INTERVAL, "pss-interval", "PssInterval", DURATION, PT_DURATION_MIN_MS, PT_DURATION_MAX_MS, FOR_ALL(TIMING), "DUR", \
    "read smaps_rollup every DUR (default: once per\nbatch, at the interval's end)") \
  X(PT_O_PROC_MEMORY_UNIT, "proc-memory-unit", "ProcMemoryUnit", MEM_UNIT, 0, 0, FOR_ALL(OUTPUT), "U", \
    "bytes|kB|MB|GB (or KiB|MiB|GiB, the same binary\nunits) for proc_* memory (default bytes)") \
  X(PT_O_GLOBAL_MEMORY_UNIT, "global-memory-unit", "GlobalMemoryUnit", MEM_UNIT, 0, 0, FOR_ALL(OUTPUT), "U", \
    "bytes|kB|MB|GB (or KiB|MiB|GiB) for global_*\nmemory (default bytes)") \
  X(PT_O_COUNTERS, "counters", "CounterMode", COUNTERS, 0, 0, FOR_ALL(OUTPUT), "MODE", \
    "delta: each amount metric (proc_io_*_bytes,\n*_seconds, ...) is what was done in the interval\n(the default); total: what was done since this\nprogram first measured the line, never falling\n(a counter, for Prometheus' rate())") \
  X(PT_O_NO_GLOBAL, "no-global", "CollectGlobal", OFF, 0, 0, FOR_ALL(OUTPUT), "", \
    "do not report the global_* line") \
  X(PT_O_FORMAT, "format", NULL, TEXT, 0, 0, FOR_ALL(OUTPUT), "FMT", \
    "table: a row per target and interval in human\nunits, and a launched command's summary (the\ndefault when stdout is a terminal); influx: line\nprotocol, for Telegraf (the default otherwise)") \
  X(PT_O_DESCRIPTOR_BUDGET, "descriptor-budget", "DescriptorBudget", WHOLE, 0, PT_FD_BUDGET_MAX, FOR_ALL(OUTPUT), "N", \
    "keep at most N /proc files open (default: the\nopen-files limit, raised to its hard limit,\nless 64); others are opened at each read") \
  X(PT_O_SOURCE, "source", "Source", SOURCE, 0, 0, FOR_ALL(OUTPUT), "SRC", \
    "where the members' memory and counters are read:\nbpf, the BPF task iterator (one pass for every\nmember; needs CAP_BPF and CAP_PERFMON); procfs,\ntheir /proc files; auto (the default): bpf where\nit loads, else procfs, the start line says why") \
  X(PT_O_PROC_ROOT, "proc-root", "ProcRoot", PROC_DIR, 0, 0, FOR_ALL(OUTPUT), "DIR", \
    "read DIR instead of /proc: the host's /proc\nin a container (default: $HOST_PROC, else\n/proc); pids are taken as DIR's") \
  X(PT_O_SYS_ROOT, "sys-root", "SysRoot", SYS_DIR, 0, 0, FOR_ALL(OUTPUT), "DIR", \
    "look for the cgroup filesystem below DIR/fs/cgroup\nfirst (default: $HOST_SYS, else /sys)") \
  X(PT_O_COMMAND_OUTPUT, "command-output", NULL, TEXT, 0, 0, FOR_ALL(LAUNCH), "WHERE", \
    "COMMAND's stdout and stderr go to: discard (the\ndefault), stderr (this program's), or FILE\n(appended; created with mode 0600)") \
  X(PT_O_LAUNCH_CGROUP, "launch-cgroup", NULL, PATH, 0, 0, FOR_ALL(LAUNCH), "PATH", \
    "run COMMAND in a new cgroup made at PATH (as\n/proc/PID/cgroup shows it, or a cgroupfs\ndirectory; one that exists is refused), in\ncgroup v2 and the v1 controllers; removed at\nthe end (default: proctree-launch-PID in this\nprogram's own cgroup, when it may make one)") \
  X(PT_O_NO_LAUNCH_CGROUP, "no-launch-cgroup", NULL, NONE, 0, 0, FOR_ALL(LAUNCH), "", \
    "run COMMAND in this program's cgroup (no\ncgroup_* metrics)") \
  X(PT_O_SUMMARY, "summary", NULL, TEXT, 0, 0, FOR_ALL(LAUNCH), "FORM", \
    "the launched command's summary when its tree is\ngone: text (the default), json (one object:\nthe same figures under their metric names) or\nnone; after a table's last row, or in FILE") \
  X(PT_O_SUMMARY_FILE, "summary-file", NULL, PATH, 0, 0, FOR_ALL(LAUNCH), "FILE", \
    "write the summary to FILE too (replaced; mode\n0644 less the umask), whatever --format; a\ntable's last row is still followed by the text") \
  X(PT_O_VERBOSE, "verbose", NULL, NONE, 0, 0, FOR_ALL(PROGRAM), "", \
    "at a terminal, every note on what is measured\nhere and why (else one line says what is\nabsent; a log, not a terminal, has them all)") \
  X(PT_O_HELP, "help", NULL, NONE, 0, 0, FOR_ALL(PROGRAM), "", \
    "this text") \
  X(PT_O_VERSION, "version", NULL, NONE, 0, 0, FOR_ALL(PROGRAM), "", \
    "the version") \
  X(PT_O_LIST_OPTIONS, "list-options", NULL, NONE, 0, 0, FOR_ALL(PROGRAM), "", \
    "every option of proctree-execd and collectd, one\nper line (for scripts: the man pages' check)")
/* clang-format on */

enum pt_option_id {
#define PT_OPTION_ID(id, ...) id,
    PT_OPTION_TABLE(PT_OPTION_ID)
#undef PT_OPTION_ID
        PT_OPTION_COUNT
};

struct pt_option_def {
    enum pt_option_id id;
    const char *execd;
    const char *collectd;
    enum pt_option_arg arg;
    unsigned long min, max;
    enum pt_option_scope scope;
    enum pt_selector_kind selects; /* SELECTOR only */
    enum pt_help_section section;
    const char *metavar;
    const char *help;
};

/* Indexed by enum pt_option_id. */
extern const struct pt_option_def pt_options[PT_OPTION_COUNT];

/* The entry whose collectd key is key, compared as collectd does (case
 * insensitive); NULL when none is. */
const struct pt_option_def *pt_optiontable_by_key(const char *key);

/* Every selector of one frontend, for its errors: "--pid, --pidfile, ...
 * or --unit" (execd) or "Pid, PidFile, ... or Unit" (collectd), cut to
 * outlen. */
void pt_optiontable_selector_list(char *out, size_t outlen, bool execd);

/* A value, read by a frontend from its own form (enum pt_option_arg). */
union pt_option_value {
    bool on; /* OFF: false for --no-X, X false */
    unsigned long whole;
    double seconds;
    enum pt_mem_unit unit;
    enum pt_breakdown by;
    enum pt_rank_by rank;
    enum pt_source source;
    enum pt_counters counters;
    const char *text; /* PATH, TEXT, REGEX, *_DIR: the caller's, kept until copied */
};

/* Read option's value from text, as proctree-execd's command line gives it
 * (every kind but NONE and OFF) and collectd's strings do. Returns 0, or -1
 * with why set: what was expected; of a PROC_DIR, a SYS_DIR or a REGEX, the
 * whole reason, quoting text ('bad regular expression "(": ...'). */
int pt_optiontable_parse(const struct pt_option_def *option, const char *text, union pt_option_value *out, char *why,
                         size_t whylen);

/* Is seconds in a DURATION or DURATION_OR_0 option's range (its min and
 * max, milliseconds; or 0 where it takes 0)? NaN is not. */
bool pt_optiontable_duration_ok(const struct pt_option_def *option, double seconds);

/* What such an option expects, for a frontend's error line: execd's
 * "a duration from 1ms to 24h (e.g. 250ms, 2s, 1.5)", collectd's "a
 * number of seconds from 0.001 to 86400 (1ms to 24h)"; ", or 0" after
 * either where it takes 0. */
void pt_optiontable_duration_range(char *out, size_t outlen, const struct pt_option_def *option, bool execd);

/* Store a value where its scope says: a SELECTOR's into selector, a
 * TARGET option's into target, a GLOBAL one's into config (the others may
 * be NULL). Returns 0, or -1 for an option the library has no setting for
 * (the frontend keeps it: --name, --interval, launch mode, ...). */
int pt_optiontable_store(const struct pt_option_def *option, const union pt_option_value *value,
                         struct pt_collector_config *config, struct pt_target_options *target,
                         struct pt_selector *selector);

#endif
