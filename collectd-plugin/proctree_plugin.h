/* proctree.so: the collectd 5.12 frontend of libproctree.
 *
 * The plugin only maps <Plugin proctree> onto a pt_collector (config.c),
 * drives it from one sampler thread, closes an interval on every collectd
 * read and turns it into value lists (plugin.c). Every number is decided
 * by the library. */
#ifndef PROCTREE_COLLECTD_PLUGIN_H
#define PROCTREE_COLLECTD_PLUGIN_H

#include "collectd/core/daemon/collectd.h"
#include "collectd/core/daemon/plugin.h"

#include "proctree/collector.h"

/* Build a collector, with its targets, from a <Plugin proctree> block (an
 * empty block gives the defaults). Returns 0 and sets *out, or logs an
 * ERROR naming the option and the block and returns -1. */
int ptcd_config_parse(const oconfig_item_t *ci, struct pt_collector **out);

#endif
