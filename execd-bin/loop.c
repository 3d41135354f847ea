#include "loop.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proctree/launch.h"
#include "proctree/lines.h"
#include "log.h"
#include "output.h"
#include "summaryjson.h"
#include "supervise.h"
#include "table.h"

/* What woke the loop; a batch and a stop may come together (a last
 * newline read with EOF): the batch is emitted first. ORPHANED: the
 * supervisor is gone (supervise.h), the launched tree is killed at once. */
enum wake { WAKE_NONE = 0, WAKE_BATCH = 1, WAKE_STOP = 2, WAKE_ORPHANED = 4 };

struct loop {
    struct pt_collector *c;
    const struct execd_options *o;
    int signal_fd;
    bool watch_stdin;     /* stdin is polled (newlines, EOF) */
    bool stdin_eof_stops; /* EOF on stdin stops us, else it only ends the polling */
    bool stdin_batches;   /* newlines on stdin ask for a batch */
    double stdin_resume;  /* stdin is not polled before then (STDIN_PAUSE) */
    pid_t command;        /* the launched command while its tree runs, else 0 */
    int command_wait;     /* its wait status once its tree is gone (0 before: exit status 0) */
    bool command_ended;   /* command_wait is the command's */
    struct pt_buf out;    /* the batch being built */
    struct execd_output stdout_queue;
    size_t table_rows;                  /* --format table: rows since the columns' names */
    size_t launched;                    /* the launched command's target, or SIZE_MAX */
    struct pt_run_summary launched_run; /* its intervals so far, for the summary */
};

/* --format table says the columns' names again after this many batches,
 * as top and vmstat do, so that they are on the screen. */
#define TABLE_HEADER_EVERY 20

static void stop_signals(sigset_t *set)
{
    sigemptyset(set);
    int signals[] = {SIGHUP, SIGUSR1, SIGUSR2, SIGTERM, SIGINT, SIGCHLD, EXECD_ORPHANED_SIGNAL};
    for (size_t i = 0; i < PT_ARRAY_LEN(signals); i++)
        sigaddset(set, signals[i]);
}

void execd_block_signals(void)
{
    sigset_t set;
    stop_signals(&set);
    sigprocmask(SIG_BLOCK, &set, NULL);
    /* A write to a closed stdout must fail with EPIPE, which we handle. */
    signal(SIGPIPE, SIG_IGN);
}

/* Queue what emit built (output.h: never blocks). */
static int queue(struct loop *l)
{
    if (l->out.len == 0)
        return 0;
    if (execd_output_batch(&l->stdout_queue, l->out.data, l->out.len) != 0) {
        pt_logf(PT_LOG_ERROR, "writing to stdout: %s; exiting", strerror(errno));
        return -1;
    }
    return 0;
}

/* Close the interval and queue the batch, as line protocol or rows. */
static int emit(struct loop *l)
{
    const struct pt_batch *b = pt_collector_end_interval(l->c, pt_now());
    execd_log_first_batch();
    pt_buf_reset(&l->out);
    if (l->launched < b->n_targets) /* for the summary: the interval's amounts, whatever --counters */
        pt_runsummary_add(&l->launched_run, &b->targets[l->launched].deltas, b->seconds);
    if (l->o->format == EXECD_FORMAT_TABLE) {
        execd_table_batch(&l->out, b, &l->o->config.units, l->table_rows++ % TABLE_HEADER_EVERY == 0);
        return queue(l);
    }
    for (size_t i = 0; i < b->n_targets; i++) {
        const struct pt_target_result *t = &b->targets[i];
        pt_lines_append_report(&l->out, t->name, PT_SCOPE_PROC, &t->report, b->timestamp_ns);
        for (size_t g = 0; g < t->n_groups; g++)
            pt_lines_append_group_report(&l->out, t->name, t->breakdown_key, t->groups[g].key, &t->groups[g].report,
                                         b->timestamp_ns);
    }
    if (b->has_global)
        pt_lines_append_report(&l->out, NULL, PT_SCOPE_GLOBAL, &b->global, b->timestamp_ns);
    return queue(l);
}

/* At most this much of stdin per wake-up: a stdin that is always
 * readable (/dev/zero, a writer that floods us) must not keep the loop
 * from its signals and deadlines. Telegraf writes one newline a tick. */
#define STDIN_CHUNKS 4
/* After a wake-up that took the whole budget, stdin is left alone this
 * long (signals and deadlines are not): such a stdin would otherwise
 * keep a core busy reading what is discarded anyway. */
#define STDIN_PAUSE 0.05

/* Read what stdin holds now, up to the budget; what is read is only
 * looked at for newlines, then dropped, so no stdin makes us hold more
 * than one chunk. Several newlines that queued up while we were busy
 * make one batch, not a burst. EOF (Telegraf closes stdin to stop us)
 * stops us, after the batch a newline read with it asked for; where EOF
 * is no stop (launch mode, stdin no pipe), stdin is no longer polled:
 * /dev/null is readable at every poll and would keep a core busy. */
static int read_stdin(struct loop *l, double now)
{
    char chunk[4096];
    bool newline = false, eof = false;
    size_t chunks = 0;
    while (chunks < STDIN_CHUNKS) {
        ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break; /* a non-blocking stdin we share with another reader */
        if (n <= 0) {
            eof = true;
            break;
        }
        chunks++;
        newline |= memchr(chunk, '\n', (size_t)n) != NULL;
        struct pollfd more = {.fd = STDIN_FILENO, .events = POLLIN};
        if (poll(&more, 1, 0) <= 0 || !(more.revents & (POLLIN | POLLHUP)))
            break;
        if (!(more.revents & POLLIN)) {
            eof = true;
            break;
        }
    }
    if (chunks == STDIN_CHUNKS)
        l->stdin_resume = now + STDIN_PAUSE;
    if (eof && !l->stdin_eof_stops)
        l->watch_stdin = false;
    bool stop = eof && l->stdin_eof_stops;
    return (newline && l->stdin_batches ? WAKE_BATCH : WAKE_NONE) | (stop ? WAKE_STOP : WAKE_NONE);
}

static int read_signals(struct loop *l)
{
    int wake = WAKE_NONE;
    struct signalfd_siginfo si;
    while (read(l->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if ((int)si.ssi_signo == EXECD_ORPHANED_SIGNAL) {
            if (execd_orphaned())
                return WAKE_ORPHANED | WAKE_STOP;
            continue; /* a SIGCONT of job control: it has resumed us already */
        }
        switch (si.ssi_signo) {
        case SIGTERM:
        case SIGINT:
            return WAKE_STOP;
        case SIGCHLD:
            pt_collector_reap(l->c);
            break;
        default: /* SIGHUP, SIGUSR1, SIGUSR2: Telegraf's other signal modes */
            wake = WAKE_BATCH;
        }
    }
    return wake;
}

/* The longest single wait: the table's longest duration (units.h). A
 * later deadline (none that the options allow) is waited for in several
 * wake-ups, each of which finds nothing due; the cast below is defined
 * for every double that way, NaN (no wait) included. */
#define WAIT_MAX (PT_DURATION_MAX_MS / 1000.0)

static struct timespec until(double deadline, double now)
{
    double wait = deadline > now ? deadline - now : 0;
    if (wait > WAIT_MAX)
        wait = WAIT_MAX;
    struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
    return ts;
}

/* Telegraf runs us with stdin a pipe, and closes it to stop us; the end
 * of a terminal, /dev/null or a file is no such request: not in the
 * timed modes, and not in launch mode, where a script's or a CI job's
 * </dev/null would otherwise stop the command at once and hide its
 * status. */
static bool stdin_is_pipe(void)
{
    struct stat st;
    return fstat(STDIN_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

/* Told to stop while the launched tree runs, it gets STOP_GRACE to exit
 * after SIGTERM, then KILL_WAIT to die after SIGKILL: together well under
 * the 5 s Telegraf waits before it sends SIGTERM to us (and 5 s later
 * SIGKILL, which would leave the tree running). */
#define STOP_GRACE 2.0
#define KILL_WAIT 1.0
#define KILL_RETRY 0.05
/* How long the reader gets to take queued batches when we exit. */
#define FINAL_FLUSH 0.5

/* True once the launched command has exited and no process of its tree
 * is left; its status is then kept and l->command cleared. */
static bool command_finished(struct loop *l)
{
    pt_collector_reap(l->c);
    if (!pt_collector_launch_finished(l->c, &l->command_wait))
        return false;
    l->command = 0;
    l->command_ended = true;
    return true;
}

/* Sleep until a signal (SIGCHLD reaps) or the deadline. Batch and stop
 * requests are moot by now. */
static void wait_signal(struct loop *l, double deadline)
{
    struct pollfd p = {.fd = l->signal_fd, .events = POLLIN};
    struct timespec timeout = until(deadline, pt_now());
    if (ppoll(&p, 1, &timeout, NULL) > 0)
        read_signals(l);
}

/* No launched process may outlive us: SIGTERM to the command's process
 * group and every descendant (orphans come to us, the subreaper), then
 * SIGKILL to whatever is left; SIGKILL at once when orphaned (the
 * supervisor that Telegraf knows is gone: nobody waits for a stop). The
 * group only while the command is not reaped: then its pid is still its
 * own, later it may be a stranger's group leader's (launchtree.h). */
static void stop_command(struct loop *l, bool orphaned)
{
    if (orphaned) {
        pt_logf(PT_LOG_WARNING,
                "the process Telegraf started (proctree-execd's supervisor) is gone: SIGKILL to the launched command "
                "(pid %d) and its tree",
                (int)l->command);
    } else {
        if (pt_collector_launched_unreaped(l->c))
            pt_logf(PT_LOG_INFO, "stopping: SIGTERM to the launched command (pid %d) and its tree", (int)l->command);
        else
            pt_logf(PT_LOG_INFO, "stopping: SIGTERM to the launched tree (its command, pid %d, has exited)",
                    (int)l->command);
        pt_launch_signal_tree(pt_collector_launched_unreaped(l->c), SIGTERM);
        double give_up = pt_now() + STOP_GRACE;
        while (!command_finished(l) && pt_now() < give_up)
            wait_signal(l, give_up);
        if (!l->command)
            return;
        pt_logf(PT_LOG_WARNING, "the launched tree is still running %.0fs after SIGTERM; SIGKILL", STOP_GRACE);
    }
    double give_up = pt_now() + KILL_WAIT;
    while (!command_finished(l)) {
        size_t left = pt_launch_signal_tree(pt_collector_launched_unreaped(l->c), SIGKILL);
        double now = pt_now();
        if (now >= give_up) {
            pt_logf(PT_LOG_ERROR, "%zu processes of the launched tree survive SIGKILL", left);
            return;
        }
        wait_signal(l, now + KILL_RETRY < give_up ? now + KILL_RETRY : give_up);
    }
}

/* The launched command's target (its index in every batch), or SIZE_MAX. */
static size_t launched_target(const struct execd_options *o)
{
    for (size_t i = 0; i < o->n_targets; i++)
        if (o->targets[i].selector.kind == PT_SELECT_CHILD)
            return i;
    return SIZE_MAX;
}

/* The status this process exits with for the command's: its exit status,
 * or 128 + N for signal N, as a shell gives it. */
static int exit_code(int wait_status)
{
    return WIFSIGNALED(wait_status) ? 128 + WTERMSIG(wait_status) : WEXITSTATUS(wait_status);
}

/* Write all of text to fd, a file of the user's (--summary-file): -1 with
 * errno on error. */
static int write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        text += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The summary in form, in l->out; false when it could not be made. */
static bool render_summary(struct loop *l, enum execd_summary form)
{
    pt_buf_reset(&l->out);
    const int *wait_status = l->command_ended ? &l->command_wait : NULL;
    if (form == EXECD_SUMMARY_TEXT) {
        execd_table_summary(&l->out, l->o->command[0], wait_status, &l->launched_run, &l->o->config.units);
        return true;
    }
    if (execd_summary_json(&l->out, l->o->command[0], wait_status, &l->launched_run, &l->o->config.units) == 0)
        return true;
    pt_logf(PT_LOG_ERROR, "--summary json: out of memory");
    return false;
}

/* Launch mode: the summary of the command's whole run, with how the
 * command ended as its wait status says (an exit status of 200 is no
 * signal 72). --summary-file gets it in --summary's form (text by
 * default); a table's last row is followed by the text, which a person
 * reads, or by the JSON where no file was given to take it. */
static void summarise(struct loop *l, int summary_fd)
{
    enum execd_summary form = l->o->summary == EXECD_SUMMARY_AUTO ? EXECD_SUMMARY_TEXT : l->o->summary;
    if (form == EXECD_SUMMARY_NONE || l->launched == SIZE_MAX || l->launched_run.intervals == 0)
        return;
    if (summary_fd >= 0 && render_summary(l, form)) {
        /* the text begins with a blank line that parts it from the rows;
         * a file holds the summary alone */
        size_t skip = l->out.len > 0 && l->out.data[0] == '\n';
        if (write_all(summary_fd, l->out.data + skip, l->out.len - skip) != 0)
            pt_logf(PT_LOG_ERROR, "--summary-file: writing the summary: %s", strerror(errno));
    }
    if (l->o->format == EXECD_FORMAT_TABLE && render_summary(l, summary_fd >= 0 ? EXECD_SUMMARY_TEXT : form))
        queue(l);
}

/* Asked for batches by hand, at a terminal: say how, once. */
static void say_how_to_ask(bool stdin_batches, bool eof_stops)
{
    if (stdin_batches && isatty(STDIN_FILENO))
        execd_log_note_now("a batch each time Enter is pressed (as Telegraf's signal = \"STDIN\" asks); %s; "
                           "--interval DUR prints one every DUR",
                           eof_stops ? "end of input (Ctrl-D) stops" : "the command's end or Ctrl-C stops");
}

int execd_loop(struct pt_collector *c, const struct execd_options *o, int summary_fd)
{
    sigset_t set;
    stop_signals(&set);
    size_t launched = launched_target(o);
    struct loop l = {.c = c, .o = o, .launched = launched};
    l.command = launched != SIZE_MAX ? o->targets[launched].selector.pid : 0;
    pt_runsummary_init(&l.launched_run);
    l.signal_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (l.signal_fd < 0) {
        pt_logf(PT_LOG_ERROR, "signalfd: %s", strerror(errno));
        return 1;
    }
    bool timed = o->interval > 0 || o->once;
    bool pipe = stdin_is_pipe();
    l.stdin_batches = !timed;
    l.watch_stdin = !o->once && (!timed || pipe);
    /* Without a command, nothing else would end a per-request run. */
    l.stdin_eof_stops = pipe || !l.command;
    /* Only Telegraf (stdin a pipe) would run us again, and the job with
     * us, were we to exit when the command's tree ends while it asks for
     * batches; anyone else waits for the command, as with time(1). */
    bool end_with_command = timed || !pipe;
    say_how_to_ask(l.stdin_batches, l.stdin_eof_stops);
    execd_output_init(&l.stdout_queue, STDOUT_FILENO);
    double period = o->interval > 0 ? o->interval : 1.0;
    double next_emit = pt_now() + period;

    int status = 0;
    bool stopped = false, orphaned = false;
    for (;;) {
        double now = pt_now();
        double deadline = pt_collector_tick(c, now);
        /* Timed, or stdin no pipe: the last, partial interval, then exit
         * with the command's status. Per request on a pipe (Telegraf): the
         * next request gets that interval, then proc_processes=0 until
         * stdin closes; exiting would make Telegraf run the job again
         * after restart_delay. */
        if (l.command && command_finished(&l) && end_with_command) {
            status = emit(&l) == 0 ? exit_code(l.command_wait) : 1;
            break;
        }
        if (timed && now >= next_emit) {
            if (emit(&l) != 0) {
                status = 1;
                break;
            }
            if (o->once)
                break;
            next_emit += period;
            if (next_emit <= now)
                next_emit = now + period;
        }
        if (timed && next_emit < deadline)
            deadline = next_emit;
        bool stdin_paused = now < l.stdin_resume;
        if (stdin_paused && l.stdin_resume < deadline)
            deadline = l.stdin_resume;

        struct pollfd fds[3] = {
            {.fd = l.signal_fd, .events = POLLIN},
            {.fd = l.watch_stdin && !stdin_paused ? STDIN_FILENO : -1, .events = POLLIN},
            {.fd = execd_output_waiting(&l.stdout_queue) ? STDOUT_FILENO : -1, .events = POLLOUT},
        };
        struct timespec timeout = until(deadline, pt_now());
        int n = ppoll(fds, 3, &timeout, NULL);
        if (n < 0 && errno != EINTR) {
            pt_logf(PT_LOG_ERROR, "poll: %s", strerror(errno));
            status = 1;
            break;
        }
        if (n > 0 && fds[2].revents && execd_output_flush(&l.stdout_queue) != 0) {
            pt_logf(PT_LOG_ERROR, "writing to stdout: %s; exiting", strerror(errno));
            status = 1;
            break;
        }
        int wake = WAKE_NONE;
        if (n > 0 && fds[0].revents)
            wake = read_signals(&l);
        if (!(wake & WAKE_STOP) && n > 0 && fds[1].revents)
            wake |= read_stdin(&l, pt_now());
        if ((wake & WAKE_BATCH) && emit(&l) != 0) {
            status = 1;
            break;
        }
        if (wake & WAKE_STOP) {
            stopped = true;
            orphaned = wake & WAKE_ORPHANED;
            break;
        }
    }
    if (l.command)
        stop_command(&l, orphaned);
    /* Stopped: the command's status as reaped, whoever ended it, as
     * time(1) gives it: 128+15 where our SIGTERM did (a wrapper killed
     * on a timeout must not read success), its own where it ended by
     * itself or handled the SIGTERM; 0 without a command; 1 where the
     * tree outlived our SIGKILL or we were orphaned. */
    if (stopped)
        status = orphaned || l.command ? 1 : exit_code(l.command_wait);
    summarise(&l, summary_fd);
    execd_output_end(&l.stdout_queue, FINAL_FLUSH);
    close(l.signal_fd);
    pt_buf_free(&l.out);
    return status;
}
