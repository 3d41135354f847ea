/* proctree-execd: process-tree metrics for Telegraf's inputs.execd.
 *
 * This file only wires things together: options -> collector -> loop.
 * Everything that decides a number is in common/. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proctree/caps.h"
#include "proctree/collector.h"
#include "proctree/escape.h"
#include "proctree/fdbudget.h"
#include "proctree/launch.h"
#include "log.h"
#include "loop.h"
#include "options.h"
#include "supervise.h"

/* Kept /proc files make polls cheap (fdbudget.h), and this process has
 * its open-files limit to itself: raise it to the hard limit and keep all
 * of it but a reserve for stdio, the signalfd and the files read once. */
#define EXECD_FD_RESERVE 64

static size_t raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    return pt_fdbudget_from_rlimit(1.0, EXECD_FD_RESERVE);
}

/* A file of the user's that an option names, opened for writing: created
 * with mode if missing, and how (O_APPEND or O_TRUNC) the option says.
 * Opened without blocking (a FIFO with no reader fails, where a blocking
 * open would hang us), then made blocking again, as writers expect. -1
 * with a one-line reason naming the option on error. */
static int open_users_file(const char *option, const char *path, int how, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | how | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, mode);
    if (fd < 0 || fcntl(fd, F_SETFL, how & O_APPEND) != 0) {
        char q[PT_QUOTED_MAX];
        pt_logf(PT_LOG_ERROR, "--%s: cannot open \"%s\": %s", option, pt_escape(path, q, sizeof(q)), strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* Where --command-output sends the command's stdout and stderr; -1 with a
 * one-line reason on error. "stderr" is ours: for a terminal. Under
 * Telegraf, that is the pipe its 64 KiB line scanner reads, where a long
 * line (a progress bar) would end the reading and then block the command
 * and every log line of ours; hence the default, discard. A file is
 * appended to. */
static int command_output_fd(const char *where)
{
    if (!where || strcmp(where, "discard") == 0)
        where = "/dev/null";
    else if (strcmp(where, "stderr") == 0)
        return dup(STDERR_FILENO);
    return open_users_file("command-output", where, O_APPEND, 0600);
}

/* --summary-file, opened (and emptied) before the command runs, so that a
 * path it cannot write ends the run before the command's work is done for
 * nothing. */
static int summary_file_fd(const char *path)
{
    return open_users_file("summary-file", path, O_TRUNC, 0644);
}

/* What launch mode does for the user (the command's cgroup, its output
 * file, the command and its PATH search) it does with the user's own
 * permissions, never with the file capabilities raised for reading /proc
 * (caps.h). False, said in one line, when they cannot be lowered. */
static bool as_the_user(void)
{
    if (pt_caps_lower())
        return true;
    pt_logf(PT_LOG_ERROR, "cannot lower the capabilities raised for reading /proc (%s): COMMAND is not run with them",
            strerror(errno));
    return false;
}

/* The launched command must not read Telegraf's newlines nor write into
 * our line protocol: its stdin is /dev/null, its output goes where
 * --command-output says; it runs in cg, made as --launch-cgroup says.
 * Returns its pid, or minus the status to exit with. */
static pid_t launch_command(const struct execd_options *o, struct pt_launch_cgroup *cg)
{
    char err[256];
    if (!as_the_user())
        return -2;
    int out = command_output_fd(o->command_output);
    pid_t pid = -2;
    if (out >= 0) {
        int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
        pid = pt_launch(o->command, devnull, out, out, cg, err, sizeof(err));
        if (devnull >= 0)
            close(devnull);
        close(out);
        if (pid < 0) {
            pt_logf(PT_LOG_ERROR, "%s", err);
            pid = -127;
        }
    }
    pt_caps_raise();
    return pid;
}

/* A descriptor of 0, 1 or 2 closed by whoever started us would be the
 * next one opened: a kept /proc or cgroup.procs file, which the launched
 * command's dup2 then replaces, or our line protocol written into a file
 * of ours. Each is opened on /dev/null first (open takes the lowest free
 * number). False when one cannot be. */
static bool open_standard_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int null = open("/dev/null", O_RDWR);
        if (null != fd) {
            if (null >= 0)
                close(null);
            return false;
        }
    }
    return true;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int main(int argc, char **argv)
{
    /* First of all: a batch request or a stop that arrives while we start
     * up waits in the signalfd instead of killing us (SIGHUP, SIGUSR1 and
     * SIGUSR2 terminate by default). */
    if (!open_standard_fds())
        return 2; /* nowhere to say it: stderr may be what is missing */
    execd_block_signals();
    execd_log_start(false);
    struct execd_options o;
    switch (execd_parse_options(argc, argv, &o)) {
    case EXECD_EXIT_OK:
        return 0;
    case EXECD_EXIT_USAGE:
        return 2;
    case EXECD_RUN:
        break;
    }
    execd_log_start(isatty(STDERR_FILENO) && !o.verbose);
    /* file capabilities are given permitted only (caps.h): made effective here */
    pt_caps_raise();
    size_t fd_budget = raise_fd_limit();
    if (!o.fd_budget_given)
        o.config.fd_budget = fd_budget;

    if (o.format == EXECD_FORMAT_AUTO) /* a person reads a terminal; anything else is a program's */
        o.format = isatty(STDOUT_FILENO) ? EXECD_FORMAT_TABLE : EXECD_FORMAT_INFLUX;
    /* line protocol on stdout is Telegraf's or a database's: a summary
     * there would be a malformed batch */
    if (o.format == EXECD_FORMAT_INFLUX && !o.summary_file &&
        (o.summary == EXECD_SUMMARY_TEXT || o.summary == EXECD_SUMMARY_JSON)) {
        pt_logf(PT_LOG_ERROR,
                "--summary %s: stdout carries line protocol here (not a terminal, or --format influx); "
                "give --summary-file FILE, or --format table (see --help)",
                o.summary == EXECD_SUMMARY_JSON ? "json" : "text");
        execd_options_free(&o);
        return 2;
    }
    char err[256];
    int summary_fd = -1;
    struct pt_launch_cgroup cg = {0}; /* none made until launch mode makes it */
    if (o.command) {
        /* made first: the supervisor removes it should the worker die */
        if (!as_the_user()) {
            execd_options_free(&o);
            return 2;
        }
        if (o.summary_file && (summary_fd = summary_file_fd(o.summary_file)) < 0) {
            execd_options_free(&o);
            return 2;
        }
        int made =
            pt_launch_cgroup_make(&cg, o.launch_cgroup_mode, o.launch_cgroup, o.config.sys_root, err, sizeof(err));
        pt_caps_raise();
        if (made != 0) {
            pt_logf(PT_LOG_ERROR, "--launch-cgroup: %s", err);
            execd_options_free(&o);
            return 2;
        }
        if (execd_supervise(&cg) != 0) {
            pt_launch_cgroup_remove(&cg);
            pt_launch_cgroup_give_back(&cg);
            execd_options_free(&o);
            return 2;
        }
    }
    struct pt_collector *c = pt_collector_new(&o.config, err, sizeof(err));
    if (!c) {
        pt_logf(PT_LOG_ERROR, "%s", err);
        pt_launch_cgroup_remove(&cg);
        execd_options_free(&o);
        return 2;
    }
    /* launch mode: listening before the command starts, so that none of
     * its forks is missed (collectortick.h) */
    if (o.command)
        pt_collector_listen(c);
    int status = 0;
    char command_name[16]; /* like comm: at most 15 bytes */
    for (size_t i = 0; i < o.n_targets && status == 0; i++) {
        struct execd_target *t = &o.targets[i];
        if (t->selector.kind == PT_SELECT_CHILD) {
            if (!t->name) {
                snprintf(command_name, sizeof(command_name), "%s", base_name(o.command[0]));
                t->name = command_name;
            }
            t->selector.pid = launch_command(&o, &cg);
            if (t->selector.pid < 0) {
                status = -t->selector.pid;
                break;
            }
            t->selector.path = cg.dir[0] ? cg.dir : NULL;
            t->selector.cgroupfs = &cg.where;
            t->selector.cgroup_never = cg.never[0] ? cg.never : NULL;
        }
        if (pt_collector_add_target(c, t->name, &t->selector, &t->options, err, sizeof(err)) != 0) {
            pt_logf(PT_LOG_ERROR, "%s%s: %s", t->option ? "--" : "-- COMMAND", t->option ? t->option : "", err);
            if (t->selector.kind == PT_SELECT_CHILD) { /* launched last, so nothing else runs */
                /* its group by number: it is our child, reaped only below */
                pt_launch_signal_tree(t->selector.pid, SIGKILL);
                waitpid(t->selector.pid, NULL, 0); /* out of its cgroup */
            }
            status = 2;
        }
    }
    if (status == 0)
        status = execd_loop(c, &o, summary_fd);
    if (summary_fd >= 0)
        close(summary_fd);
    pt_collector_free(c);
    /* The loop returns once the tree is gone (or stopped): its cgroups
     * are empty, and were read for the last time. */
    pt_launch_cgroup_remove(&cg);
    /* the supervisor, proctree's last process, gives back its own cgroup
     * (supervise.c); if it died, we are the last */
    if (execd_orphaned())
        pt_launch_cgroup_give_back(&cg);
    execd_options_free(&o);
    return status;
}
