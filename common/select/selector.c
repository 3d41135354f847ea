#include "select/selector.h"

#include <string.h>

static const char *const breakdown_names[] = {
    [PT_BY_PROCESS] = "process",
    [PT_BY_THREAD] = "thread",
    [PT_BY_CGROUP] = "cgroup",
    [PT_BY_TITLE] = "title",
};

int pt_selector_breakdown_parse(const char *text, enum pt_breakdown *out)
{
    for (size_t i = 0; i < sizeof(breakdown_names) / sizeof(breakdown_names[0]); i++) {
        if (breakdown_names[i] && strcmp(text, breakdown_names[i]) == 0) {
            *out = (enum pt_breakdown)i;
            return 0;
        }
    }
    return -1;
}

const char *pt_selector_breakdown_name(enum pt_breakdown by)
{
    return (size_t)by < sizeof(breakdown_names) / sizeof(breakdown_names[0]) ? breakdown_names[by] : NULL;
}
