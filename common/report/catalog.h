/* catalog, the library's part: the quantities its from and reads columns
 * name (quantities.h), and the names docs/METRICS.md and --help give the
 * catalog's columns (proctree/catalog.h: the catalog itself). */
#ifndef PROCTREE_REPORT_CATALOG_H
#define PROCTREE_REPORT_CATALOG_H

#include "proctree/catalog.h"
#include "report/quantities.h"

/* "gauge (min)", "delta", ... and "bytes", "seconds", ... as the table of
 * docs/METRICS.md spells them. */
const char *pt_catalog_kind_name(enum pt_kind kind);
const char *pt_catalog_unit_name(enum pt_unit unit);

/* The proctree-execd option that switches the metric off ("--no-pss"), or
 * NULL for metrics that are always collected. The collectd plugin's
 * options map one to one (CollectPss, ...). */
const char *pt_catalog_metric_switch(enum pt_metric_id id);

#endif
