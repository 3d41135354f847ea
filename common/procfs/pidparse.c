/* pidparse: lists of pids, parsed. */
#include "procfs/pidparse.h"

#include <stdbool.h>

#include "util/parsecursor.h"

/* pids separated by whitespace; 0 among them only where zero_ok. */
static int parse_pids(const char *buf, size_t len, bool zero_ok, int (*fn)(pid_t pid, void *arg), void *arg)
{
    struct cursor c = {buf, buf + len};
    int count = 0;
    for (;;) {
        skip_spaces(&c);
        if (at_end(&c))
            return count;
        /* The kernel writes whole records only, so a pid at the very end
         * is complete: unlike stat, no separator is needed after it. */
        pid_t pid;
        if (scan_pid(&c, &pid) || (pid == 0 && !zero_ok))
            return -1;
        if (!at_end(&c) && !is_space(*c.p))
            return -1;
        if (fn(pid, arg))
            return -1;
        count++;
    }
}

int pt_pidparse_children(const char *buf, size_t len, int (*fn)(pid_t pid, void *arg), void *arg)
{
    return parse_pids(buf, len, false, fn, arg);
}

int pt_pidparse_cgroup_procs(const char *buf, size_t len, int (*fn)(pid_t pid, void *arg), void *arg)
{
    return parse_pids(buf, len, true, fn, arg);
}

/* Whitespace that does not end a line. */
static void skip_line_spaces(struct cursor *c)
{
    while (!at_end(c) && *c->p != '\n' && is_space(*c->p))
        c->p++;
}

int pt_pidparse_pidfile(const char *buf, size_t len, pid_t *out)
{
    struct cursor c = {buf, buf + len};
    pid_t pid;
    skip_line_spaces(&c);
    if (scan_pid(&c, &pid) || pid == 0 || pid >= PT_PID_LIMIT)
        return -1;
    skip_line_spaces(&c);
    /* Ending without a newline is fine for a whole file, not for a cut one. */
    bool line_ends = at_end(&c) ? len < PT_PIDFILE_MAX : *c.p == '\n';
    if (!line_ends)
        return -1;
    *out = pid;
    return 0;
}

/* ---- /proc/PID/status: NSpid ---- */

int pt_pidparse_nspid(const char *buf, size_t len, pid_t *out, size_t max)
{
    static const char key[] = "NSpid:";
    /* a key only at a line's start: the Name line above escapes newlines */
    const char *line = find_line(buf, len, key, sizeof(key) - 1);
    if (!line)
        return 0;
    struct cursor c = {line + sizeof(key) - 1, buf + len};
    size_t n = 0;
    for (;;) {
        skip_blanks(&c);
        if (at_end(&c) || *c.p == '\n')
            break;
        pid_t pid;
        if (n == max || scan_pid(&c, &pid) || pid == 0 || !number_ended(&c))
            return -1;
        out[n++] = pid;
    }
    /* a line cut by a short read may have lost a pid */
    return !at_end(&c) && n > 0 ? (int)n : -1;
}
