/* titlegroup: the group of a process's title in the breakdown by title
 * (--by title, BreakDown "title"), and the pattern that picks it out
 * (--by-title-pattern, BreakDownTitlePattern).
 *
 * Without a pattern the group is the whole title. With one, a POSIX ERE:
 * where it matches, the group is its first capture group's text; a group
 * that took no part or matched nothing gives way to the next one (so that
 * alternatives may each have theirs: 'a: (\S+)|^b (\S+)'), and the whole
 * match stands in when none has text (or the pattern has no group, of the
 * first nine). Where it does not match, or matched nothing, the group is
 * the whole title.
 * A group is a group's name (groups.h): cut to PT_GROUP_NAME_MAX - 1
 * bytes, a UTF-8 sequence never split, as a cgroup's name is. */
#ifndef PROCTREE_TITLEGROUP_H
#define PROCTREE_TITLEGROUP_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "accounting/groups.h"

struct pt_titlegroup {
    regex_t regex;
    bool has_pattern;
};

/* pattern: NULL for none. 0, or -1 with err set ('bad regular expression
 * "PATTERN": WHY', ere.h) and nothing to free. */
int pt_titlegroup_init(struct pt_titlegroup *tg, const char *pattern, char *err, size_t errlen);
void pt_titlegroup_free(struct pt_titlegroup *tg);

/* The group of title (NUL-terminated, proctitle.h) into out. */
void pt_titlegroup_name(const struct pt_titlegroup *tg, const char *title, char out[PT_GROUP_NAME_MAX]);

/* A process's title read again: name (empty before the first) is the
 * group of the title whose hash (FNV-1a, 64 bits) is *hash; made again,
 * and *hash set, only where title's differs. A title is read at every
 * interval's end and mostly the same, and regexec allocates (glibc's
 * state log of a match with groups): the steady state allocates
 * nothing. */
void pt_titlegroup_follow(const struct pt_titlegroup *tg, const char *title, char name[PT_GROUP_NAME_MAX],
                          uint64_t *hash);

#endif
