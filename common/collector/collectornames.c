/* collectornames: default names and the check that no two targets are
 * written as the same tag. */
#include "collector/collectornames.h"

#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "util/escape.h"
#include "report/lines.h"
#include "member/member.h"

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int pt_collector_default_name(const struct pt_collector *c, const struct pt_selector *selector, char *out,
                              size_t outlen)
{
    switch (selector->kind) {
    case PT_SELECT_PID:
    case PT_SELECT_CHILD: {
        struct pt_buf buf = {0};
        struct pt_stat st;
        enum pt_read r = pt_member_read_stat_by_pid(c->proc_root_fd, selector->pid, &buf, &st);
        pt_buf_free(&buf);
        if (r == PT_READ_OK && st.comm[0])
            snprintf(out, outlen, "%s", st.comm);
        else
            snprintf(out, outlen, "pid%d", (int)selector->pid);
        return 0;
    }
    case PT_SELECT_PIDFILE:
    case PT_SELECT_CGROUP: {
        const char *base = base_name(selector->path);
        size_t len = strlen(base);
        if (selector->kind == PT_SELECT_PIDFILE && len > 4 && strcmp(base + len - 4, ".pid") == 0)
            len -= 4;
        if (len == 0)
            return -1;
        snprintf(out, outlen, "%.*s", (int)len, base);
        return 0;
    }
    case PT_SELECT_MATCH:
    case PT_SELECT_EXE:
    case PT_SELECT_USER:
    case PT_SELECT_UNIT:
        snprintf(out, outlen, "%s", selector->value);
        return out[0] ? 0 : -1;
    }
    return -1;
}

/* Whether two names are written as the same target tag, and so would
 * merge into one series: escaping makes "\n" and "\\" both "_". */
static bool same_tag(const char *a, const char *b)
{
    struct pt_buf x = {0}, y = {0};
    pt_lines_append_tag_value(&x, a, strlen(a));
    pt_lines_append_tag_value(&y, b, strlen(b));
    bool same = x.len == y.len && memcmp(x.data, y.data, x.len) == 0;
    pt_buf_free(&x);
    pt_buf_free(&y);
    return same;
}

int pt_collector_check_unique_name(const struct pt_collector *c, const char *name, char *err, size_t errlen)
{
    char qa[96], qb[96]; /* two of them fit a 256-byte error */
    for (size_t i = 0; i < c->n_targets; i++) {
        const char *other = pt_target_name(&c->targets[i]);
        if (strcmp(other, name) == 0) {
            snprintf(err, errlen, "duplicate target name \"%s\"", pt_escape(name, qa, sizeof(qa)));
            return -1;
        }
        if (same_tag(other, name)) {
            snprintf(err, errlen, "duplicate target name: \"%s\" and \"%s\" are written as the same tag",
                     pt_escape(other, qa, sizeof(qa)), pt_escape(name, qb, sizeof(qb)));
            return -1;
        }
    }
    return 0;
}
