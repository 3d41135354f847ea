/* config.c: <Plugin proctree> onto a pt_collector.
 *
 * Globals are read in a first pass and Process blocks in a second: the
 * collector has to exist (with its intervals and units) before targets can
 * be added, and users may write the globals after the blocks. Every error
 * names the option and the block and fails the whole configuration: a
 * collectd that starts with half a config reports wrong trees silently. */
#include "proctree_plugin.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <strings.h>

#include "collectd/core/utils/common/common.h"
#include "fdbudget.h"
#include "escape.h"

#define GLOBAL_BLOCK "<Plugin proctree>"
#define SELECTOR_KEYS "Pid, PidFile, Match, Exe, User, Cgroup or Unit"

__attribute__((format(printf, 3, 4))) static void option_error(const oconfig_item_t *option, const char *block,
                                                               const char *format, ...)
{
    char what[256];
    va_list ap;

    va_start(ap, format);
    vsnprintf(what, sizeof what, format, ap);
    va_end(ap);
    pt_logf(PT_LOG_ERROR, "option \"%s\" in %s: %s", option->key, block, what);
}

static int get_seconds(const oconfig_item_t *option, const char *block, double *out)
{
    double seconds;

    if (cf_util_get_double(option, &seconds) != 0 || !isfinite(seconds) || seconds <= 0) {
        option_error(option, block, "expects a number of seconds > 0");
        return -1;
    }
    *out = seconds;
    return 0;
}

static int get_mem_unit(const oconfig_item_t *option, enum pt_mem_unit *out)
{
    char text[16]; /* longer than any unit, so truncation cannot make one */

    if (cf_util_get_string_buffer(option, text, sizeof text) != 0 || pt_mem_unit_parse(text, out) != 0) {
        option_error(option, GLOBAL_BLOCK, "expects \"bytes\", \"kB\", \"MB\" or \"GB\"");
        return -1;
    }
    return 0;
}

static int get_bool(const oconfig_item_t *option, const char *block, bool *out)
{
    if (cf_util_get_boolean(option, out) != 0) {
        option_error(option, block, "expects true or false");
        return -1;
    }
    return 0;
}

/* A whole number from min to max: collectd reads every number as a
 * double, and cf_util_get_int would take 1.7 for 1 (Pid 1.7: the whole
 * host). what says what is expected, for the error. */
static int get_whole(const oconfig_item_t *option, const char *block, double min, double max, const char *what,
                     double *out)
{
    double v;

    /* in range first: the cast below is defined only there */
    if (cf_util_get_double(option, &v) != 0 || !(v >= min && v <= max) || v != (double)(int64_t)v) {
        option_error(option, block, "expects %s: an integer from %.0f to %.0f", what, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

static int get_breakdown(const oconfig_item_t *option, const char *block, enum pt_breakdown *out)
{
    char text[16]; /* longer than any breakdown, so truncation cannot make one */

    if (cf_util_get_string_buffer(option, text, sizeof text) != 0 || pt_breakdown_parse(text, out) != 0) {
        option_error(option, block, "expects \"process\", \"thread\" or \"cgroup\"");
        return -1;
    }
    return 0;
}

/* ProcRoot and SysRoot: a directory, checked now so that collectd -T
 * refuses a wrong one. The value is the config tree's string, which lives
 * until the collector has copied it. collectd has no HOST_PROC convention:
 * a container's collectd says where the host's /proc is here. */
static int get_root(const oconfig_item_t *option, const char **out)
{
    char why[256];

    if (option->values_num != 1 || option->values[0].type != OCONFIG_TYPE_STRING ||
        option->values[0].value.string[0] == '\0') {
        option_error(option, GLOBAL_BLOCK, "expects a directory, in quotes");
        return -1;
    }
    const char *dir = option->values[0].value.string;
    int r = strcasecmp(option->key, "ProcRoot") == 0 ? pt_collector_check_proc_root(dir, why, sizeof why)
                                                     : pt_collector_check_sys_root(dir, why, sizeof why);
    if (r != 0) {
        option_error(option, GLOBAL_BLOCK, "%s", why);
        return -1;
    }
    *out = dir;
    return 0;
}

static int parse_global(const oconfig_item_t *option, struct pt_collector_config *config)
{
    if (strcasecmp(option->key, "PollInterval") == 0)
        return get_seconds(option, GLOBAL_BLOCK, &config->poll_interval);
    if (strcasecmp(option->key, "DiscoveryInterval") == 0)
        return get_seconds(option, GLOBAL_BLOCK, &config->discovery_interval);
    if (strcasecmp(option->key, "PssInterval") == 0)
        return get_seconds(option, GLOBAL_BLOCK, &config->pss_interval);
    if (strcasecmp(option->key, "ProcMemoryUnit") == 0)
        return get_mem_unit(option, &config->units.proc_memory);
    if (strcasecmp(option->key, "GlobalMemoryUnit") == 0)
        return get_mem_unit(option, &config->units.global_memory);
    if (strcasecmp(option->key, "CollectGlobal") == 0)
        return get_bool(option, GLOBAL_BLOCK, &config->collect_global);
    if (strcasecmp(option->key, "ProcRoot") == 0)
        return get_root(option, &config->proc_root);
    if (strcasecmp(option->key, "SysRoot") == 0)
        return get_root(option, &config->sys_root);
    if (strcasecmp(option->key, "DescriptorBudget") == 0) {
        double budget;

        if (get_whole(option, GLOBAL_BLOCK, 0, (double)PT_FD_BUDGET_MAX, "a number of descriptors", &budget) != 0)
            return -1;
        config->fd_budget = (size_t)budget;
        return 0;
    }
    option_error(option, GLOBAL_BLOCK, "unknown option");
    return -1;
}

/* The selectors a Process block takes, one per block. The library checks
 * what it can only check against the system (regex syntax, user, cgroup). */
static const struct {
    const char *key;
    enum pt_selector_kind kind;
    const char *expects;
} selectors[] = {
    {"Pid", PT_SELECT_PID, "a process id"},
    {"PidFile", PT_SELECT_PIDFILE, "the path of a pid file"},
    {"Match", PT_SELECT_MATCH, "a POSIX extended regular expression for the command line"},
    {"Exe", PT_SELECT_EXE, "a program name"},
    {"User", PT_SELECT_USER, "a user name or uid, in quotes"},
    {"Cgroup", PT_SELECT_CGROUP, "a cgroup path"},
    {"Unit", PT_SELECT_UNIT, "a systemd unit name or glob"},
};

static int find_selector(const char *key)
{
    for (size_t i = 0; i < PT_ARRAY_LEN(selectors); i++)
        if (strcasecmp(key, selectors[i].key) == 0)
            return (int)i;
    return -1;
}

/* Fill selector from option (selectors[which]); its text goes into text,
 * which the caller keeps until the collector has copied it. */
static int parse_selector(const oconfig_item_t *option, int which, const char *block, struct pt_selector *selector,
                          char *text, size_t textlen)
{
    selector->kind = selectors[which].kind;
    if (selector->kind == PT_SELECT_PID) {
        double pid;

        if (get_whole(option, block, 1, PT_PID_LIMIT - 1, selectors[which].expects, &pid) != 0)
            return -1;
        selector->pid = (pid_t)pid;
        return 0;
    }
    if (cf_util_get_string_buffer(option, text, textlen) != 0 || text[0] == '\0') {
        option_error(option, block, "expects %s", selectors[which].expects);
        return -1;
    }
    /* cf_util_get_string_buffer cuts silently; a cut path or regex would
     * select other processes. */
    if (strlen(option->values[0].value.string) >= textlen) {
        option_error(option, block, "longer than %zu bytes", textlen - 1);
        return -1;
    }
    if (selector->kind == PT_SELECT_PIDFILE || selector->kind == PT_SELECT_CGROUP)
        selector->path = text;
    else
        selector->value = text;
    return 0;
}

static int parse_process(const oconfig_item_t *ci, struct pt_collector *collector)
{
    char name[DATA_MAX_NAME_LEN];
    char quoted[PT_ESCAPED_SIZE(DATA_MAX_NAME_LEN)];
    char block[sizeof quoted + 16];
    char text[PATH_MAX]; /* a selector's path, regex or name */
    char err[256];
    struct pt_selector selector = {0};
    struct pt_target_options options;
    const char *selector_key = NULL;

    pt_target_options_init(&options);
    options.line_name_max = DATA_MAX_NAME_LEN - 1; /* a group's plugin instance, "TARGET-GROUP" */

    if (cf_util_get_string_buffer(ci, name, sizeof name) != 0) {
        option_error(ci, GLOBAL_BLOCK, "expects a name: <Process \"NAME\">");
        return -1;
    }
    snprintf(block, sizeof block, "<Process \"%s\">", pt_escape(quoted, sizeof quoted, name));
    /* The name becomes the plugin instance; collectd would cut it silently. */
    if (strlen(ci->values[0].value.string) >= sizeof name) {
        option_error(ci, block, "name longer than 127 characters (collectd's limit)");
        return -1;
    }

    for (int i = 0; i < ci->children_num; i++) {
        const oconfig_item_t *option = &ci->children[i];
        int which = find_selector(option->key);

        if (which >= 0) {
            if (selector_key != NULL) {
                option_error(option, block, "a second selector after \"%s\"; give exactly one of " SELECTOR_KEYS,
                             selector_key);
                return -1;
            }
            if (parse_selector(option, which, block, &selector, text, sizeof text) != 0)
                return -1;
            selector_key = option->key;
        } else if (strcasecmp(option->key, "CollectPss") == 0) {
            if (get_bool(option, block, &options.collect_pss) != 0)
                return -1;
        } else if (strcasecmp(option->key, "PssBudget") == 0) {
            if (get_seconds(option, block, &options.pss_budget) != 0)
                return -1;
        } else if (strcasecmp(option->key, "CollectContextSwitch") == 0) {
            if (get_bool(option, block, &options.collect_ctx_switches) != 0)
                return -1;
        } else if (strcasecmp(option->key, "CollectFileDescriptor") == 0) {
            if (get_bool(option, block, &options.collect_fds) != 0)
                return -1;
        } else if (strcasecmp(option->key, "CollectCgroupMetrics") == 0) {
            if (get_bool(option, block, &options.collect_cgroup) != 0)
                return -1;
        } else if (strcasecmp(option->key, "BreakDown") == 0) {
            if (get_breakdown(option, block, &options.breakdown) != 0)
                return -1;
        } else if (strcasecmp(option->key, "BreakDownLimit") == 0) {
            double limit;
            if (get_whole(option, block, 1, PT_BREAKDOWN_LIMIT_MAX, "a number of process names", &limit) != 0)
                return -1;
            options.breakdown_limit = (unsigned)limit;
        } else {
            option_error(option, block, "unknown option");
            return -1;
        }
    }
    if (selector_key == NULL) {
        pt_logf(PT_LOG_ERROR, "%s has no selector; give exactly one of " SELECTOR_KEYS, block);
        return -1;
    }
    if (pt_collector_add_target(collector, name, &selector, &options, err, sizeof err) != 0) {
        pt_logf(PT_LOG_ERROR, "%s: %s", block, err);
        return -1;
    }
    return 0;
}

/* collectd files the name as the plugin instance after escape_slashes()
 * (leading '/' dropped, other '/' -> '_', "/" -> "root"), so "a/b" and
 * "a_b" would be one identifier: one value cache entry, one csv file. The
 * library has already compared the names as line-protocol tags; this is
 * collectd's own form, by collectd's own function. Block i against the
 * blocks before it (all parsed, so their names are strings). */
static int check_instance_unique(const oconfig_item_t *ci, int i)
{
    char mine[DATA_MAX_NAME_LEN], other[DATA_MAX_NAME_LEN];
    char qa[PT_ESCAPED_SIZE(DATA_MAX_NAME_LEN)], qb[sizeof qa], qc[sizeof qa];
    const char *name = ci->children[i].values[0].value.string;

    sstrncpy(mine, name, sizeof mine);
    escape_slashes(mine, sizeof mine);
    for (int j = 0; j < i; j++) {
        if (strcasecmp(ci->children[j].key, "Process") != 0)
            continue;
        sstrncpy(other, ci->children[j].values[0].value.string, sizeof other);
        escape_slashes(other, sizeof other);
        if (strcmp(mine, other) == 0) {
            pt_logf(PT_LOG_ERROR,
                    "duplicate target name: <Process \"%s\"> and <Process \"%s\"> are the same "
                    "plugin instance \"%s\" in collectd",
                    pt_escape(qa, sizeof qa, ci->children[j].values[0].value.string), pt_escape(qb, sizeof qb, name),
                    pt_escape(qc, sizeof qc, mine));
            return -1;
        }
    }
    return 0;
}

int ptcd_config_parse(const oconfig_item_t *ci, struct pt_collector **out)
{
    struct pt_collector_config config;
    struct pt_collector *collector;
    char err[256];

    pt_collector_config_init(&config);
    for (int i = 0; i < ci->children_num; i++) {
        if (strcasecmp(ci->children[i].key, "Process") != 0 && parse_global(&ci->children[i], &config) != 0)
            return -1;
    }

    collector = pt_collector_new(&config, err, sizeof err);
    if (collector == NULL) {
        pt_logf(PT_LOG_ERROR, "%s: %s", GLOBAL_BLOCK, err);
        return -1;
    }
    for (int i = 0; i < ci->children_num; i++) {
        if (strcasecmp(ci->children[i].key, "Process") == 0 &&
            (parse_process(&ci->children[i], collector) != 0 || check_instance_unique(ci, i) != 0)) {
            pt_collector_free(collector);
            return -1;
        }
    }
    *out = collector;
    return 0;
}
