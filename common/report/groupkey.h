/* groupkey: each breakdown line's name, unique as the frontends write it.
 *
 * A group's name is raw bytes (a comm, a cgroup's directory name) that
 * each frontend makes safe its own way: line protocol writes a control
 * character, a backslash or a C1 control as '_' and a byte of no UTF-8
 * sequence as '?'; collectd writes '/', '\' and control characters as
 * '_', and cuts "TARGET-GROUP" at its 127-byte plugin instance. So two
 * groups ("tab<TAB>x" and "tab_x", or two long names alike in their
 * first bytes) could be written as one series, one line overwriting the
 * other. Here, before either frontend writes them, a name written as
 * another's (or cut) gets a suffix "~" and 8 hex digits, the FNV-1a hash
 * of its whole raw name: the same at every interval, whatever else is
 * there. A name that needed no change keeps it; only when two such
 * names meet (a group named "other" and the group past the limit) the
 * group past the limit keeps it. */
#ifndef PROCTREE_GROUPKEY_H
#define PROCTREE_GROUPKEY_H

#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"

/* Bytes of a key, NUL and suffix included: a group's name (255 bytes at
 * most) and "~XXXXXXXX". */
#define PT_GROUP_KEY_MAX (256 + 9)

/* The suffix: "~" and 8 hex digits. */
#define PT_GROUP_KEY_SUFFIX 9

/* Set r[i].key for n lines (r[i].name set; the last is the group past
 * the limit when other_last), into keys (n of PT_GROUP_KEY_MAX bytes),
 * each at most cut bytes (0: no cut; else more than PT_GROUP_KEY_SUFFIX),
 * a UTF-8 sequence never split. folds and order: n of scratch each. */
void pt_groupkey_set(struct pt_group_report *r, size_t n, bool other_last, size_t cut, char (*keys)[PT_GROUP_KEY_MAX],
                     char (*folds)[PT_GROUP_KEY_MAX], size_t *order);

#endif
