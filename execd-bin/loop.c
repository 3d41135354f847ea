#include "loop.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lineproto.h"

/* What woke the loop; a batch and a stop may come together (a last
 * newline read with EOF): the batch is emitted first. */
enum wake { WAKE_NONE = 0, WAKE_BATCH = 1, WAKE_STOP = 2 };

struct loop {
    struct pt_collector *c;
    const struct execd_options *o;
    int signal_fd;
    bool watch_stdin;  /* EOF on stdin stops us */
    bool stdin_batches; /* newlines on stdin ask for a batch */
    bool launched;
    struct pt_out out;
};

static void stop_signals(sigset_t *set)
{
    sigemptyset(set);
    int signals[] = {SIGHUP, SIGUSR1, SIGUSR2, SIGTERM, SIGINT, SIGCHLD};
    for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
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

static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Close the interval and write the whole batch with one write(). */
static int emit(struct loop *l)
{
    const struct pt_batch *b = pt_collector_close(l->c, pt_now());
    pt_out_reset(&l->out);
    for (size_t i = 0; i < b->n_targets; i++)
        pt_lp_append_report(&l->out, b->targets[i].name, PT_SCOPE_PROC, &b->targets[i].report, b->timestamp_ns);
    if (b->has_global)
        pt_lp_append_report(&l->out, NULL, PT_SCOPE_GLOBAL, &b->global, b->timestamp_ns);
    if (l->out.len == 0)
        return 0;
    if (write_all(STDOUT_FILENO, l->out.data, l->out.len) != 0) {
        fprintf(stderr, "E! proctree-execd: writing to stdout: %s; exiting\n", strerror(errno));
        return -1;
    }
    return 0;
}

/* Read what stdin holds now. Several newlines that queued up while we
 * were busy make one batch, not a burst. EOF (Telegraf closes stdin to
 * stop us) stops us, after the batch a newline read with it asked for. */
static int read_stdin(struct loop *l)
{
    char chunk[4096];
    bool newline = false, eof = false;
    for (;;) {
        ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            eof = true;
            break;
        }
        newline |= memchr(chunk, '\n', (size_t)n) != NULL;
        struct pollfd more = {.fd = STDIN_FILENO, .events = POLLIN};
        if (poll(&more, 1, 0) <= 0 || !(more.revents & (POLLIN | POLLHUP)))
            break;
        if (!(more.revents & POLLIN)) {
            eof = true;
            break;
        }
    }
    return (newline && l->stdin_batches ? WAKE_BATCH : WAKE_NONE) | (eof ? WAKE_STOP : WAKE_NONE);
}

static int read_signals(struct loop *l)
{
    int wake = WAKE_NONE;
    struct signalfd_siginfo si;
    while (read(l->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
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

static struct timespec until(double deadline, double now)
{
    double wait = deadline > now ? deadline - now : 0;
    struct timespec ts = {(time_t)wait, (long)((wait - floor(wait)) * 1e9)};
    return ts;
}

/* Telegraf runs us with stdin a pipe; a terminal, /dev/null or a file
 * is not a stop signal in the timed modes. */
static bool stdin_is_pipe(void)
{
    struct stat st;
    return fstat(STDIN_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

int execd_loop(struct pt_collector *c, const struct execd_options *o)
{
    sigset_t set;
    stop_signals(&set);
    struct loop l = {.c = c, .o = o, .launched = o->command != NULL};
    l.signal_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (l.signal_fd < 0) {
        fprintf(stderr, "E! proctree-execd: signalfd: %s\n", strerror(errno));
        return 1;
    }
    bool timed = o->interval > 0 || o->once;
    l.stdin_batches = !timed;
    l.watch_stdin = !o->once && (!timed || stdin_is_pipe());
    double period = o->interval > 0 ? o->interval : 1.0;
    double next_emit = pt_now() + period;

    int status = 0;
    for (;;) {
        double now = pt_now();
        double deadline = pt_collector_tick(c, now);
        if (l.launched) {
            pt_collector_reap(c);
            int launched_status;
            if (pt_collector_launch_finished(c, &launched_status)) {
                /* the last, partial interval */
                status = emit(&l) == 0 ? launched_status : 1;
                break;
            }
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

        struct pollfd fds[2] = {{.fd = l.signal_fd, .events = POLLIN}, {.fd = STDIN_FILENO, .events = POLLIN}};
        struct timespec timeout = until(deadline, pt_now());
        int n = ppoll(fds, l.watch_stdin ? 2 : 1, &timeout, NULL);
        if (n < 0 && errno != EINTR) {
            fprintf(stderr, "E! proctree-execd: poll: %s\n", strerror(errno));
            status = 1;
            break;
        }
        int wake = WAKE_NONE;
        if (n > 0 && fds[0].revents)
            wake = read_signals(&l);
        if (!(wake & WAKE_STOP) && n > 0 && l.watch_stdin && fds[1].revents)
            wake |= read_stdin(&l);
        if ((wake & WAKE_BATCH) && emit(&l) != 0) {
            status = 1;
            break;
        }
        if (wake & WAKE_STOP)
            break;
    }
    close(l.signal_fd);
    pt_out_free(&l.out);
    return status;
}
