/* config.c: <Plugin proctree> onto a pt_collector, through the option
 * table (optiontable.h), which says each key's value and scope.
 *
 * Globals are read in a first pass and Process blocks in a second: the
 * collector has to exist (with its intervals and units) before targets can
 * be added, and users may write the globals after the blocks. A per-target
 * key outside every block is the default of every block, wherever it is
 * written. Every error names the option and the block and fails the whole
 * configuration: a collectd that starts with half a config reports wrong
 * trees silently. */
#include "proctree_plugin.h"

#include <limits.h>
#include <stdarg.h>
#include <strings.h>

#include "collectd/core/utils/common/common.h"
#include "proctree/escape.h"
#include "proctree/optiontable.h"

#define GLOBAL_BLOCK "<Plugin proctree>"

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

/* "Pid, PidFile, ... or Unit": every selector key, for the errors. */
static const char *selector_keys(void)
{
    static char keys[256];

    if (!keys[0])
        pt_optiontable_selector_list(keys, sizeof keys, false);
    return keys;
}

/* A whole number from min to max: collectd reads every number as a
 * double, and cf_util_get_int would take 1.7 for 1 (Pid 1.7: the whole
 * host). */
static int get_whole(const oconfig_item_t *option, const char *block, const struct pt_option_def *def,
                     unsigned long *out)
{
    double v;

    /* in range first: the cast below is defined only there */
    if (cf_util_get_double(option, &v) != 0 || !(v >= (double)def->min && v <= (double)def->max) ||
        v != (double)(int64_t)v) {
        option_error(option, block, "expects an integer from %lu to %lu", def->min, def->max);
        return -1;
    }
    *out = (unsigned long)v;
    return 0;
}

/* What a string key expects, when its value is no string. */
static const char *const expects_string[] = {
    [PT_ARG_PATH] = "a path, in quotes",
    [PT_ARG_TEXT] = "a string, in quotes",
    [PT_ARG_MEM_UNIT] = "\"bytes\", \"kB\", \"MB\", \"GB\", \"KiB\", \"MiB\" or \"GiB\"",
    [PT_ARG_BREAKDOWN] = "\"process\", \"title\", \"thread\" or \"cgroup\"",
    [PT_ARG_RANK] = "\"seen\", \"cpu\", \"memory\" or \"io\"",
    [PT_ARG_REGEX] = "a regular expression, in quotes",
    [PT_ARG_PROC_DIR] = "a directory, in quotes",
    [PT_ARG_SYS_DIR] = "a directory, in quotes",
    [PT_ARG_SOURCE] = "\"auto\", \"procfs\" or \"bpf\"",
    [PT_ARG_COUNTERS] = "\"delta\" or \"total\"",
};

/* A string key's value is the config tree's string, which lives until the
 * collector has copied it. It is held to PATH_MAX - 1 bytes: the longest
 * path, and more than any regex or name needs. ProcRoot and SysRoot are
 * checked now, so that collectd -T refuses a wrong one. */
static int get_string(const oconfig_item_t *option, const char *block, const struct pt_option_def *def,
                      union pt_option_value *out)
{
    char why[256];

    if (option->values_num != 1 || option->values[0].type != OCONFIG_TYPE_STRING) {
        option_error(option, block, "expects %s", expects_string[def->arg]);
        return -1;
    }
    const char *text = option->values[0].value.string;
    if (strlen(text) >= PATH_MAX) {
        option_error(option, block, "longer than %d bytes", PATH_MAX - 1);
        return -1;
    }
    if (pt_optiontable_parse(def, text, out, why, sizeof why) != 0) {
        if (def->arg == PT_ARG_PROC_DIR || def->arg == PT_ARG_SYS_DIR || def->arg == PT_ARG_REGEX)
            option_error(option, block, "%s", why);
        else
            option_error(option, block, "expects %s", why);
        return -1;
    }
    return 0;
}

/* Read option's value as collectd writes it for def's kind: booleans and
 * numbers unquoted, seconds as a number. */
static int get_value(const oconfig_item_t *option, const char *block, const struct pt_option_def *def,
                     union pt_option_value *out)
{
    switch (def->arg) {
    case PT_ARG_OFF:
        if (cf_util_get_boolean(option, &out->on) == 0)
            return 0;
        option_error(option, block, "expects true or false");
        return -1;
    case PT_ARG_WHOLE:
        return get_whole(option, block, def, &out->whole);
    case PT_ARG_DURATION:
    case PT_ARG_DURATION_OR_0: {
        /* in the table's range: collectd takes 1e22 and 1e-300, which no
         * deadline can be made of (optiontable.h) */
        double seconds;
        char range[128];
        if (cf_util_get_double(option, &seconds) == 0 && pt_optiontable_duration_ok(def, seconds)) {
            out->seconds = seconds;
            return 0;
        }
        pt_optiontable_duration_range(range, sizeof range, def, false);
        option_error(option, block, "expects %s", range);
        return -1;
    }
    case PT_ARG_NONE: /* proctree-execd's flags have no key */
        break;
    default:
        return get_string(option, block, def, out);
    }
    option_error(option, block, "takes no value");
    return -1;
}

static bool is_process_block(const oconfig_item_t *item)
{
    return pt_optiontable_by_key(item->key) == &pt_options[PT_O_NAME];
}

/* A key outside every block: a global one into config, a per-target one
 * into the defaults of every block. */
static int parse_global(const oconfig_item_t *option, struct pt_collector_config *config,
                        struct pt_target_options *defaults)
{
    const struct pt_option_def *def = pt_optiontable_by_key(option->key);
    union pt_option_value v;

    if (def == NULL) {
        option_error(option, GLOBAL_BLOCK, "unknown option");
        return -1;
    }
    if (def->scope == PT_OPTION_SELECTOR) {
        option_error(option, GLOBAL_BLOCK, "a selector belongs in a <Process \"NAME\"> block");
        return -1;
    }
    if (get_value(option, GLOBAL_BLOCK, def, &v) != 0)
        return -1;
    return pt_optiontable_store(def, &v, config, defaults, NULL);
}

static int parse_process(const oconfig_item_t *ci, struct pt_collector *collector,
                         const struct pt_target_options *defaults)
{
    char name[DATA_MAX_NAME_LEN];
    char quoted[PT_ESCAPED_SIZE(DATA_MAX_NAME_LEN)];
    char block[sizeof quoted + 16];
    char err[256];
    struct pt_selector selector = {0};
    struct pt_target_options options = *defaults;
    const char *selector_key = NULL;

    options.line_name_max = DATA_MAX_NAME_LEN - 1; /* a group's plugin instance, "TARGET-GROUP" */

    if (cf_util_get_string_buffer(ci, name, sizeof name) != 0) {
        option_error(ci, GLOBAL_BLOCK, "expects a name: <Process \"NAME\">");
        return -1;
    }
    snprintf(block, sizeof block, "<Process \"%s\">", pt_escape(name, quoted, sizeof quoted));
    /* The name becomes the plugin instance; collectd would cut it silently. */
    if (strlen(ci->values[0].value.string) >= sizeof name) {
        option_error(ci, block, "name longer than 127 characters (collectd's limit)");
        return -1;
    }

    for (int i = 0; i < ci->children_num; i++) {
        const oconfig_item_t *option = &ci->children[i];
        const struct pt_option_def *def = pt_optiontable_by_key(option->key);
        union pt_option_value v;

        if (def == NULL || def->id == PT_O_NAME) {
            option_error(option, block, "unknown option");
            return -1;
        }
        if (def->scope == PT_OPTION_GLOBAL) {
            option_error(option, block, "a global option: put it outside the <Process> blocks");
            return -1;
        }
        if (def->scope == PT_OPTION_SELECTOR && selector_key != NULL) {
            option_error(option, block, "a second selector after \"%s\"; give exactly one of %s", selector_key,
                         selector_keys());
            return -1;
        }
        if (get_value(option, block, def, &v) != 0 || pt_optiontable_store(def, &v, NULL, &options, &selector) != 0)
            return -1;
        if (def->scope == PT_OPTION_SELECTOR)
            selector_key = option->key;
    }
    if (selector_key == NULL) {
        pt_logf(PT_LOG_ERROR, "%s has no selector; give exactly one of %s", block, selector_keys());
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
        if (!is_process_block(&ci->children[j]))
            continue;
        sstrncpy(other, ci->children[j].values[0].value.string, sizeof other);
        escape_slashes(other, sizeof other);
        if (strcmp(mine, other) == 0) {
            pt_logf(PT_LOG_ERROR,
                    "duplicate target name: <Process \"%s\"> and <Process \"%s\"> are the same "
                    "plugin instance \"%s\" in collectd",
                    pt_escape(ci->children[j].values[0].value.string, qa, sizeof qa), pt_escape(name, qb, sizeof qb),
                    pt_escape(mine, qc, sizeof qc));
            return -1;
        }
    }
    return 0;
}

int ptcd_config_parse(const oconfig_item_t *ci, struct pt_collector **out)
{
    struct pt_collector_config config;
    struct pt_target_options defaults;
    struct pt_collector *collector;
    char err[256];

    pt_collector_config_init(&config);
    pt_target_options_init(&defaults);
    for (int i = 0; i < ci->children_num; i++) {
        if (!is_process_block(&ci->children[i]) && parse_global(&ci->children[i], &config, &defaults) != 0)
            return -1;
    }

    collector = pt_collector_new(&config, err, sizeof err);
    if (collector == NULL) {
        pt_logf(PT_LOG_ERROR, "%s: %s", GLOBAL_BLOCK, err);
        return -1;
    }
    for (int i = 0; i < ci->children_num; i++) {
        if (is_process_block(&ci->children[i]) &&
            (parse_process(&ci->children[i], collector, &defaults) != 0 || check_instance_unique(ci, i) != 0)) {
            pt_collector_free(collector);
            return -1;
        }
    }
    *out = collector;
    return 0;
}
