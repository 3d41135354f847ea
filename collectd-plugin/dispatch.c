/* dispatch.c: an ended interval as collectd value lists.
 *
 * Identifier: proctree[-TARGET]/TYPE-METRIC, TYPE being the stock types.db
 * type the catalog gives (one GAUGE each), so receivers need no custom
 * TypesDB. A breakdown group's values are proctree-TARGET-GROUP/TYPE-METRIC:
 * the group is in the plugin instance, so a Graphite path and the
 * InfluxDB listener's "instance" tag show it. Every value of a read carries the batch's timestamp, so a
 * dashboard can line up min, max and deltas of one interval. */
#include "proctree_plugin.h"

#include "collectd/core/utils/common/common.h"
#include "proctree/escape.h"

static void dispatch_report(const struct pt_report *report, enum pt_scope scope, const char *instance, cdtime_t time)
{
    value_t value;
    value_list_t vl = VALUE_LIST_INIT;

    vl.values = &value;
    vl.values_len = 1;
    vl.time = time;
    sstrncpy(vl.plugin, "proctree", sizeof vl.plugin);
    sstrncpy(vl.plugin_instance, instance, sizeof vl.plugin_instance);
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        if (pt_catalog[id].scope != scope || !report->v[id].present)
            continue;
        value.gauge = pt_value_as_double(&report->v[id]);
        sstrncpy(vl.type, pt_catalog[id].collectd_type, sizeof vl.type);
        sstrncpy(vl.type_instance, pt_catalog[id].name, sizeof vl.type_instance);
        plugin_dispatch_values(&vl); /* copies vl */
    }
}

/* "TARGET-GROUP", cut at collectd's limit. A process name may hold '/'
 * (a path separator for the csv and rrd writers) and control characters,
 * C1 ones (U+0085 as c2 85) too: they become '_' (escape.h). */
static void group_instance(char *out, size_t size, const char *target, const char *group)
{
    int n = snprintf(out, size, "%s-", target);
    size_t at = n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
    pt_escape_collectd(out + at, size - at, group);
}

void ptcd_dispatch(const struct pt_batch *batch)
{
    cdtime_t time = NS_TO_CDTIME_T(batch->timestamp_ns);

    for (size_t i = 0; i < batch->n_targets; i++) {
        const struct pt_target_result *target = &batch->targets[i];

        dispatch_report(&target->report, PT_SCOPE_PROC, target->name, time);
        for (size_t g = 0; g < target->n_groups; g++) {
            char instance[DATA_MAX_NAME_LEN];
            group_instance(instance, sizeof instance, target->name, target->groups[g].key);
            dispatch_report(&target->groups[g].report, PT_SCOPE_PROC, instance, time);
        }
    }
    if (batch->has_global)
        dispatch_report(&batch->global, PT_SCOPE_GLOBAL, "", time);
}
