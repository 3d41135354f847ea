/* The metric table of docs/METRICS.md is generated from the catalog and must
 * match it byte for byte, so the documentation cannot drift from the code.
 * `test_metrics --print` prints the table to paste between the markers. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/catalog.h"
#include "unit.h"

#define BEGIN_MARK "<!-- metric-table:begin -->\n"
#define END_MARK "<!-- metric-table:end -->\n"
#define METRICS_DOC "docs/METRICS.md"

/* "gauge (min)", "delta", ... and "bytes", "seconds", ... as the table of
 * docs/METRICS.md spells them. */
static const char *kind_name(enum pt_kind kind)
{
    switch (kind) {
    case PT_KIND_GAUGE_MIN:
        return "gauge (min)";
    case PT_KIND_GAUGE_MAX:
        return "gauge (max)";
    case PT_KIND_DELTA:
        return "delta";
    case PT_KIND_COUNT:
        return "count";
    case PT_KIND_RATIO:
        return "delta / time";
    }
    return "?";
}

static const char *unit_name(enum pt_unit unit)
{
    switch (unit) {
    case PT_UNIT_PROC_MEMORY:
        return "proc memory unit";
    case PT_UNIT_GLOBAL_MEMORY:
        return "global memory unit";
    case PT_UNIT_BYTES:
        return "bytes";
    case PT_UNIT_SECONDS:
        return "seconds";
    case PT_UNIT_PERCENT:
        return "percent";
    case PT_UNIT_NUMBER:
        return "count";
    }
    return "?";
}

static char *metric_table(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fputs("| metric | kind | unit | source | meaning | off with | collectd type |\n", f);
    fputs("|---|---|---|---|---|---|---|\n", f);
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        const struct pt_metric_def *m = &pt_catalog[id];
        const char *off = pt_catalog_metric_switch(id);
        fprintf(f, "| `%s` | %s | %s | %s | %s | %s%s%s | `%s` |\n", m->name, kind_name(m->kind), unit_name(m->unit),
                m->source, m->description, off ? "`" : "", off ? off : "", off ? "`" : "", m->collectd_type);
    }
    fclose(f);
    return text;
}

static char *read_metrics_doc(void)
{
    FILE *f = fopen(PT_SOURCE_ROOT "/" METRICS_DOC, "r");
    ck_assert_msg(f != NULL, "cannot open " METRICS_DOC);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *text = malloc((size_t)size + 1);
    ck_assert(text != NULL && size > 0);
    ck_assert(fread(text, 1, (size_t)size, f) == (size_t)size);
    text[size] = '\0';
    fclose(f);
    return text;
}

START_TEST(metrics_doc_table_matches_catalog)
{
    char *doc = read_metrics_doc();
    char *begin = strstr(doc, BEGIN_MARK);
    ck_assert_msg(begin != NULL, METRICS_DOC " lacks " BEGIN_MARK);
    begin += strlen(BEGIN_MARK);
    char *end = strstr(begin, END_MARK);
    ck_assert_msg(end != NULL, METRICS_DOC " lacks " END_MARK);
    *end = '\0';
    char *expected = metric_table();
    ck_assert_msg(strcmp(begin, expected) == 0,
                  METRICS_DOC "'s metric table differs from the catalog; regenerate it with test_metrics --print");
    free(expected);
    free(doc);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--print") == 0) {
        char *table = metric_table();
        fputs(table, stdout);
        free(table);
        return 0;
    }
    Suite *s = suite_create("metrics");
    TCase *tc = tcase_create("doc_table");
    tcase_add_test(tc, metrics_doc_table_matches_catalog);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
