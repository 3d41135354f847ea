/* Unit tests for the catalog's invariants: the properties the line
 * protocol (plain field names, the global_ prefix), the collectd frontend
 * (stock single-value types), the code indexing GAUGE_MIN/GAUGE_MAX
 * pairs as id, id + 1, and lines.c, which sets each value from what the
 * catalog names, rely on. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/catalog.h"
#include "unit.h"

/* Field names are written without escaping, so they must be plain. */
START_TEST(test_catalog_names)
{
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        const char *name = pt_catalog[id].name;

        ck_assert_msg(name[0] >= 'a' && name[0] <= 'z', "\"%s\" must start with [a-z]", name);
        for (const char *p = name; *p; p++)
            ck_assert_msg((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_',
                          "\"%s\" must match ^[a-z][a-z0-9_]*$", name);
        for (int other = 0; other < id; other++)
            ck_assert_msg(strcmp(name, pt_catalog[other].name) != 0, "\"%s\" twice", name);
    }
}
END_TEST

/* The global line holds the global_* fields, and those of every line:
 * the collector's, the interval's length. */
START_TEST(test_catalog_scope_prefix)
{
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        bool global_name = strncmp(pt_catalog[id].name, "global_", 7) == 0;
        ck_assert_msg(global_name == (pt_catalog[id].scope == PT_SCOPE_GLOBAL), "%s", pt_catalog[id].name);
        if (pt_catalog[id].scope == PT_SCOPE_ALL)
            ck_assert_msg(strncmp(pt_catalog[id].name, "collector_", 10) == 0, "%s", pt_catalog[id].name);
        ck_assert_msg(pt_catalog_metric_on(id, PT_SCOPE_GLOBAL) ==
                          (global_name || pt_catalog[id].scope == PT_SCOPE_ALL),
                      "%s", pt_catalog[id].name);
        ck_assert_msg(pt_catalog_metric_on(id, PT_SCOPE_PROC) == !global_name, "%s", pt_catalog[id].name);
    }
}
END_TEST

static const char *const stock_types[] = {
    "memory", "bytes", "count", "gauge", "duration", "file_handles", "threads", "percent",
};

START_TEST(test_catalog_collectd_types)
{
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        bool stock = false;
        for (size_t k = 0; k < (size_t)COUNT(stock_types); k++)
            stock = stock || strcmp(pt_catalog[id].collectd_type, stock_types[k]) == 0;
        ck_assert_msg(stock, "%s: \"%s\" is not a stock single-value type", pt_catalog[id].name,
                      pt_catalog[id].collectd_type);
    }
}
END_TEST

#define TYPES_DB "/usr/share/collectd/types.db"

/* Number of data sources of type in types.db ("name ds:GAUGE:0:U, ..."),
 * 0 if the type is not there. */
static int types_db_sources(FILE *db, const char *type)
{
    char line[1024];
    size_t n = strlen(type);

    rewind(db);
    while (fgets(line, sizeof(line), db) != NULL) {
        if (strncmp(line, type, n) != 0 || (line[n] != ' ' && line[n] != '\t'))
            continue;
        int sources = 1;
        for (const char *p = line + n; *p; p++)
            sources += *p == ',';
        return sources;
    }
    return 0;
}

/* Where collectd's types.db is installed, each type the catalog uses must
 * be in it with exactly one data source (one value per metric). */
START_TEST(test_catalog_types_db)
{
    FILE *db = fopen(TYPES_DB, "r");

    if (db == NULL) {
        fprintf(stderr, "note: %s not found, types not checked against it\n", TYPES_DB);
        return;
    }
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        int sources = types_db_sources(db, pt_catalog[id].collectd_type);
        ck_assert_msg(sources == 1, "%s: type \"%s\" has %d data sources in " TYPES_DB, pt_catalog[id].name,
                      pt_catalog[id].collectd_type, sources);
    }
    fclose(db);
}
END_TEST

START_TEST(min_max_pairs_are_adjacent)
{
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        if (pt_catalog[id].kind != PT_KIND_GAUGE_MIN)
            continue;
        ck_assert_int_lt(id + 1, PT_METRIC_COUNT);
        ck_assert_int_eq(pt_catalog[id + 1].kind, PT_KIND_GAUGE_MAX);
        size_t stem = strlen(pt_catalog[id].name) - 3;
        ck_assert_str_eq(pt_catalog[id].name + stem, "min");
        ck_assert(strncmp(pt_catalog[id].name, pt_catalog[id + 1].name, stem) == 0);
        ck_assert_str_eq(pt_catalog[id + 1].name + stem, "max");
    }
}
END_TEST

/* The two halves of a pair are one measurement: the same unit, type,
 * source and off switch. A switch always starts with "--no-". */
START_TEST(test_catalog_pairs_agree_and_switches)
{
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        const char *off = pt_catalog_metric_switch(id);
        ck_assert_msg(!off || strncmp(off, "--no-", 5) == 0, "%s: switch \"%s\"", pt_catalog[id].name, off);
        if (pt_catalog[id].kind != PT_KIND_GAUGE_MIN)
            continue;
        const struct pt_metric_def *min = &pt_catalog[id], *max = &pt_catalog[id + 1];
        ck_assert_msg(min->unit == max->unit, "%s: unit differs from its max", min->name);
        ck_assert_str_eq(min->collectd_type, max->collectd_type);
        ck_assert_str_eq(min->source, max->source);
        const char *max_off = pt_catalog_metric_switch(id + 1);
        ck_assert_msg(off == max_off || (off && max_off && strcmp(off, max_off) == 0),
                      "%s: switch differs from its max", min->name);
    }
}
END_TEST

/* Every metric of a target's line is set from something lines.c fills
 * (a gauge, a counter, the CPU share or an amount), named in range; the
 * global line's come from meminfo. */
START_TEST(test_catalog_proc_metrics_have_a_source)
{
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        const struct pt_metric_def *m = &pt_catalog[id];
        if (m->scope == PT_SCOPE_GLOBAL) {
            ck_assert_msg(m->from == PT_FROM_MEMINFO, "%s: not from meminfo", m->name);
            ck_assert_msg(m->reads == 0 && m->lines == PT_LINES_ONE, "%s: a target's reads or lines", m->name);
            continue;
        }
        /* every line's, the global one's too: what lines.c can set on any
         * line alike, the interval's length, read by no member (never left
         * out short of descriptors), on every breakdown's lines; summed by
         * a run's summary (runsummary.h) into the run's length */
        ck_assert_msg((m->scope == PT_SCOPE_ALL) == (m->from == PT_FROM_INTERVAL), "%s: scope and from", m->name);
        if (m->scope == PT_SCOPE_ALL) {
            ck_assert_msg(m->reads == 0 && (m->lines & PT_LINES_BY_ANY) == PT_LINES_BY_ANY, "%s: reads or lines",
                          m->name);
            ck_assert_msg(m->kind == PT_KIND_DELTA && m->unit == PT_UNIT_SECONDS && m->quantity == 0, "%s: kind",
                          m->name);
            continue;
        }
        int limit = 0;
        switch (m->from) {
        case PT_FROM_GAUGE:
            limit = PT_G_COUNT;
            break;
        case PT_FROM_COUNTER:
            limit = PT_CTR_COUNT;
            break;
        case PT_FROM_AMOUNT:
            limit = PT_A_COUNT;
            break;
        case PT_FROM_CGROUP:
            limit = PT_CGQ_COUNT;
            /* the kernel's accounting of cgroups: no member read, and on
             * a cgroup's line, not a process name's */
            ck_assert_msg(strncmp(m->name, "cgroup_", 7) == 0, "%s: from a cgroup", m->name);
            ck_assert_msg(m->reads == 0 && m->lines == PT_LINES_BY_CGROUP, "%s: reads or lines", m->name);
            ck_assert_msg(m->kind != PT_KIND_RATIO, "%s: kind", m->name);
            break;
        case PT_FROM_CPU_PERCENT:
            limit = 1;
            ck_assert_msg(m->kind == PT_KIND_RATIO, "%s: a CPU share is a ratio", m->name);
            break;
        case PT_FROM_MEMINFO:
            ck_abort_msg("%s: a target's metric from meminfo", m->name);
        case PT_FROM_INTERVAL:
            ck_abort_msg("%s: a target's metric from the interval", m->name);
        }
        ck_assert_msg(m->quantity >= 0 && m->quantity < limit, "%s: quantity %d out of range", m->name, m->quantity);
        ck_assert_msg(m->from != PT_FROM_COUNTER || m->kind == PT_KIND_DELTA, "%s: a counter gives a delta", m->name);
        /* proc_* need every member; collector_* tell what the reads did */
        bool collector = strncmp(m->name, "collector_", 10) == 0;
        bool cgroup = m->from == PT_FROM_CGROUP;
        ck_assert_msg(collector || cgroup ? m->reads == 0 : (m->reads & PT_SHORT_MEMBERS) != 0, "%s: reads %#x",
                      m->name, m->reads);
        ck_assert_msg(!collector || m->lines == PT_LINES_ONE, "%s: on a breakdown line", m->name);
        /* what a --by thread line carries, a --by process line does too */
        ck_assert_msg(!(m->lines & PT_LINES_BY_THREAD) || (m->lines & PT_LINES_BY_PROCESS), "%s: lines", m->name);
    }
}
END_TEST

/* Each gauge, counter and amount sets one metric (a gauge two: its min
 * and its max twin); none is left unreported. */
START_TEST(test_catalog_quantities_set_once)
{
    int gauge_min[PT_G_COUNT] = {0}, gauge_max[PT_G_COUNT] = {0}, counter[PT_CTR_COUNT] = {0}, amount[PT_A_COUNT] = {0},
        cgq[PT_CGQ_COUNT] = {0};
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        const struct pt_metric_def *m = &pt_catalog[id];
        if (m->from == PT_FROM_GAUGE) {
            ck_assert_msg(m->kind == PT_KIND_GAUGE_MIN || m->kind == PT_KIND_GAUGE_MAX, "%s: kind", m->name);
            (m->kind == PT_KIND_GAUGE_MIN ? gauge_min : gauge_max)[m->quantity]++;
        } else if (m->from == PT_FROM_COUNTER) {
            counter[m->quantity]++;
        } else if (m->from == PT_FROM_AMOUNT) {
            amount[m->quantity]++;
        } else if (m->from == PT_FROM_CGROUP) {
            cgq[m->quantity]++;
        }
    }
    for (int g = 0; g < PT_G_COUNT; g++)
        ck_assert_msg(gauge_min[g] == 1 && gauge_max[g] == 1, "gauge %d: %d min, %d max", g, gauge_min[g],
                      gauge_max[g]);
    for (int k = 0; k < PT_CTR_COUNT; k++)
        ck_assert_msg(counter[k] == 1, "counter %d sets %d metrics", k, counter[k]);
    for (int a = 0; a < PT_A_COUNT; a++)
        ck_assert_msg(amount[a] == 1, "amount %d sets %d metrics", a, amount[a]);
    /* memory in use: its min and its max */
    for (int q = 0; q < PT_CGQ_COUNT; q++)
        ck_assert_msg(cgq[q] == (q == PT_CGQ_MEMORY_CURRENT ? 2 : 1), "cgroup quantity %d sets %d metrics", q, cgq[q]);
}
END_TEST

/* A min and its max twin are one gauge: set from the same, needing the
 * same reads, on the same lines. */
START_TEST(test_catalog_gauge_pairs_consistent)
{
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        if (pt_catalog[id].kind != PT_KIND_GAUGE_MIN)
            continue;
        const struct pt_metric_def *min = &pt_catalog[id], *max = &pt_catalog[id + 1];
        ck_assert_msg(min->from == max->from && min->quantity == max->quantity, "%s: from differs from its max",
                      min->name);
        ck_assert_msg(min->reads == max->reads, "%s: reads differ from its max", min->name);
        ck_assert_msg(min->lines == max->lines, "%s: lines differ from its max", min->name);
        ck_assert_msg(min->scope == PT_SCOPE_GLOBAL || min->from == PT_FROM_GAUGE ||
                          (min->from == PT_FROM_CGROUP && min->quantity == PT_CGQ_MEMORY_CURRENT),
                      "%s: a pair not from a gauge", min->name);
    }
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("catalog");
    TCase *tc = unit_tcase(suite, "catalog");
    tcase_add_test(tc, test_catalog_names);
    tcase_add_test(tc, test_catalog_scope_prefix);
    tcase_add_test(tc, test_catalog_collectd_types);
    tcase_add_test(tc, test_catalog_types_db);
    tcase_add_test(tc, min_max_pairs_are_adjacent);
    tcase_add_test(tc, test_catalog_pairs_agree_and_switches);
    tcase_add_test(tc, test_catalog_proc_metrics_have_a_source);
    tcase_add_test(tc, test_catalog_quantities_set_once);
    tcase_add_test(tc, test_catalog_gauge_pairs_consistent);
    return unit_run(suite);
}
