#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "proctree/base.h"

/* What is held until the first batch: the absent
 * metrics' names, each once ("..." past the room: the line stays short). */
static struct {
    bool holding;
    char absent[160];
    bool cut;
} held;

static void put(enum pt_log_level level, const char *line)
{
    static const char *const prefix[] = {"E!", "W!", "I!", "D!"};
    fprintf(stderr, "%s proctree-execd: %s\n", prefix[level], line);
}

static void log_to_stderr(enum pt_log_level level, const char *line, void *arg)
{
    (void)arg;
    if (!held.holding || level != PT_LOG_INFO)
        put(level, line);
}

static void note_absent(const char *what, void *arg)
{
    (void)arg;
    if (!held.holding)
        return;
    size_t len = strlen(held.absent), n = strlen(what);
    for (const char *at = held.absent; (at = strstr(at, what)); at += n) /* once each */
        if ((at == held.absent || at[-1] == ' ') && (at[n] == ',' || at[n] == '\0'))
            return;
    if (len + n + 2 >= sizeof(held.absent)) {
        held.cut = true;
        return;
    }
    snprintf(held.absent + len, sizeof(held.absent) - len, "%s%s", len ? ", " : "", what);
}

void execd_log_start(bool hold_notes)
{
    held.holding = hold_notes;
    pt_log_set_sink(log_to_stderr, NULL);
    pt_log_set_absent_sink(note_absent, NULL);
}

void execd_log_first_batch(void)
{
    if (!held.holding)
        return;
    held.holding = false;
    if (held.absent[0])
        fprintf(stderr, "I! proctree-execd: absent on this host: %s%s (--verbose says why)\n", held.absent,
                held.cut ? ", ..." : "");
}

void execd_log_note_now(const char *fmt, ...)
{
    char line[PT_LOG_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    put(PT_LOG_INFO, line);
}
