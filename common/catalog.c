#include "catalog.h"

const struct pt_metric_def pt_catalog[PT_METRIC_COUNT] = {
#define PT_X_DEF(id, name, scope, kind, unit, ctype, source, desc) \
    [PT_M_##id] = {name, PT_SCOPE_##scope, PT_KIND_##kind, PT_UNIT_##unit, ctype, source, desc},
    PT_CATALOG(PT_X_DEF)
#undef PT_X_DEF
};

const char *pt_kind_name(enum pt_kind kind)
{
    switch (kind) {
    case PT_KIND_GAUGE_MIN: return "gauge (min)";
    case PT_KIND_GAUGE_MAX: return "gauge (max)";
    case PT_KIND_DELTA: return "delta";
    case PT_KIND_COUNT: return "count";
    case PT_KIND_RATIO: return "delta / time";
    }
    return "?";
}
