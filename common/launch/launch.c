/* launch: the launched command's cgroup decided and the command started
 * in it. Where the cgroup filesystem lets us, the command gets a cgroup
 * of its own (launchcg.h), or on a systemd host systemd's transient scope
 * (launchscope.h), with the cgroup below ours as the fallback; the child
 * is forked, held before exec while systemd is asked, joins its cgroup
 * and execs, and whatever stops it before exec is passed back to us
 * through a close-on-exec pipe. launch.h says what each caller gets. */
#include "proctree/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/base.h"
#include "util/escape.h"
#include "launch/launchleaf.h"
#include "launch/launchscope.h"
#include "launch/sdscope.h"

/* What a launched command without a cgroup of its own loses, after why. */
#define NONE_FMT                                                                                                       \
    "the launched command gets no cgroup of its own (%s): no cgroup_* metrics (the kernel's exact CPU time, memory "   \
    "peak, OOM kills, pressure stalls); its tree is measured as before"

/* The one line of a launched command without a cgroup of its own. */
static void say_none(const char *why)
{
    pt_logf(PT_LOG_INFO, NONE_FMT, why);
}

int pt_launch_cgroup_make(struct pt_launch_cgroup *cg, enum pt_launch_cgroup_mode mode, const char *path,
                          const char *sys_root, char *err, size_t errlen)
{
    memset(cg, 0, sizeof(*cg));
    for (size_t h = 0; h < PT_LAUNCH_HIERARCHIES; h++)
        cg->procs_fd[h] = -1;
    if (mode == PT_LAUNCH_CGROUP_NONE)
        return 0;
    cg->required = mode == PT_LAUNCH_CGROUP_PATH;
    char name[PT_CGROUPFS_PATH_MAX], why[256];
    size_t primary;
    sys_root = sys_root ? sys_root : "/sys";
    int r = pt_launch_cgroup_place(cg, mode, path, sys_root, name, sizeof(name), &primary, why, sizeof(why));
    bool unified = r == 0 && primary == 0 && cg->where.v2[0];
    for (size_t h = 1; h < PT_LAUNCH_HIERARCHIES && unified; h++)
        unified = !pt_launch_cgroup_hierarchy(&cg->where, h)[0];
    /* below our own cgroup, in cgroup v2 alone: systemd's scope where it
     * manages the cgroups, else our own cgroup given up to it where we
     * are its only processes (launchleaf.h) */
    bool below_own = unified && mode == PT_LAUNCH_CGROUP_DEFAULT;
    bool systemd = below_own && pt_sdscope_booted();
    if (systemd && !pt_launch_scope_plan(cg, strcmp(sys_root, "/sys") == 0 ? NULL : sys_root)) {
        memset(&cg->where, 0, sizeof(cg->where));
        return 0; /* nothing of ours to make: the scope, or none */
    }
    if (below_own && !systemd)
        pt_launch_leaf_take(cg);
    dev_t devs[PT_LAUNCH_HIERARCHIES] = {0};
    ino_t inos[PT_LAUNCH_HIERARCHIES] = {0};
    for (size_t step = 0; r == 0 && step < PT_LAUNCH_HIERARCHIES; step++) {
        /* the primary first: its failure is the one that counts */
        size_t h = step == 0 ? primary : step <= primary ? step - 1 : step;
        char *at = pt_launch_cgroup_hierarchy(&cg->where, h);
        if (!at[0])
            continue;
        int e = pt_launch_cgroup_make_in(cg, h, name, devs, inos);
        /* another's cgroup is never joined: its usage is not the command's,
         * and it is not ours to remove */
        if (e == -EEXIST || (e && h == primary)) {
            char dir[PT_CGROUPFS_PATH_MAX * 2], q[PT_QUOTED_MAX];
            snprintf(dir, sizeof(dir), "%s/%s", at, name);
            pt_escape(dir, q, sizeof(q));
            if (e == -EEXIST)
                snprintf(why, sizeof(why), "\"%s\" exists already: another's, or left by a proctree that was killed",
                         q);
            else
                snprintf(why, sizeof(why), "cannot make \"%s\": %s", q,
                         e == -ENOENT ? "its parent cgroup does not exist" : strerror(-e));
            r = -1;
        } else if (e) {
            at[0] = '\0'; /* a controller we may not write: its metrics are missing, said at start */
        }
        if (step == 0 && r == 0 && cg->n_made)
            snprintf(cg->dir, sizeof(cg->dir), "%s", cg->made[0]);
    }
    if (r == 0) {
        if (cg->scope)
            pt_launch_scope_describe_fallback(cg);
        return 0;
    }
    pt_launch_cgroup_remove(cg);
    pt_launch_leaf_restore(cg);
    if (cg->required) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    if (cg->scope)
        snprintf(cg->fallback, sizeof(cg->fallback), NONE_FMT, why); /* said if the scope fails */
    else
        say_none(why);
    return 0;
}

void pt_launch_cgroup_give_back(struct pt_launch_cgroup *cg)
{
    pt_launch_leaf_restore(cg);
}

void pt_launch_cgroup_keeper(struct pt_launch_cgroup *cg)
{
    if (!cg->scope)
        return;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) {
        cg->keeper = pid > 0 ? pid : 0; /* without one, the scope is asked for the command alone */
        return;
    }
    /* nothing of ours kept open (Telegraf's pipes among them): ended by
     * SIGKILL, or with the caller */
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd <= 2 && null >= 0; fd++)
        dup2(null, fd);
    close_range(3, ~0U, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent)
        _exit(0);
    prctl(PR_SET_NAME, PT_LAUNCH_KEEPER_NAME, 0, 0, 0); /* what ps shows in the scope */
    for (;;)
        pause();
}

void pt_launch_cgroup_keeper_end(struct pt_launch_cgroup *cg)
{
    if (cg->keeper <= 0)
        return;
    kill(cg->keeper, SIGKILL); /* by pid: our child, and cleared where it is reaped (supervise.c) */
    while (waitpid(cg->keeper, NULL, 0) < 0 && errno == EINTR)
        ;
    cg->keeper = 0;
}

/* What the child passes back through the pipe when it does not exec. */
struct child_error {
    int join;  /* the index in cg->made of the cgroup it could not join, or -1 */
    int error; /* errno */
};

static void report(int fd, int join, int error)
{
    struct child_error e = {join, error};
    (void)!write(fd, &e, sizeof(e));
    _exit(127);
}

/* The held child: 's' once it is in systemd's scope (it joins nothing
 * more), 'f' to join cg's fallback, if any. */
static void hold(int fd, struct pt_launch_cgroup *cg, pid_t pid)
{
    char why[512];
    char go = pt_launch_scope_get(cg, pid, why, sizeof(why)) == 0 ? 's' : 'f';
    if (go == 'f')
        pt_logf(PT_LOG_INFO, "systemd gave the launched command no scope of its own (%s): %s", why, cg->fallback);
    (void)!write(fd, &go, 1);
    close(fd);
}

static pid_t launch_once(char *const argv[], int stdin_fd, int stdout_fd, int stderr_fd, struct pt_launch_cgroup *cg,
                         struct child_error *failed, char *err, size_t errlen)
{
    /* The child reports a failed exec through this pipe; a successful exec
     * closes it (O_CLOEXEC), so the parent reads 0 bytes. */
    int pipefd[2], holdfd[2] = {-1, -1};
    if (pipe2(pipefd, O_CLOEXEC) != 0 || (cg && cg->scope && pipe2(holdfd, O_CLOEXEC) != 0)) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(pipefd[0]);
        close(pipefd[1]);
        if (holdfd[0] >= 0)
            close(holdfd[0]), close(holdfd[1]);
        return -1;
    }
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int sig = 1; sig < NSIG; sig++)
            signal(sig, SIG_DFL);
        close(pipefd[0]);
        if (setpgid(0, 0) != 0 || (stdin_fd >= 0 && dup2(stdin_fd, STDIN_FILENO) < 0) ||
            (stdout_fd >= 0 && dup2(stdout_fd, STDOUT_FILENO) < 0) ||
            (stderr_fd >= 0 && dup2(stderr_fd, STDERR_FILENO) < 0))
            report(pipefd[1], -1, errno);
        /* held while systemd is asked for its scope */
        char go = 'f';
        if (holdfd[0] >= 0) {
            close(holdfd[1]);
            while (read(holdfd[0], &go, 1) < 0 && errno == EINTR)
                ;
        }
        /* Before exec, so that all of the command is in its cgroup ("0":
         * the writer itself); never exec'd elsewhere than asked. */
        for (size_t i = 0; cg && go != 's' && i < cg->n_made; i++)
            if (write(cg->procs_fd[i], "0", 1) != 1)
                report(pipefd[1], (int)i, errno);
        execvp(argv[0], argv);
        report(pipefd[1], -1, errno);
    }
    /* Also here: whichever of the two runs first, the group exists before
     * anyone signals it (EACCES once the child has exec'd is harmless). */
    setpgid(pid, pid);
    close(pipefd[1]);
    if (holdfd[0] >= 0) {
        close(holdfd[0]);
        hold(holdfd[1], cg, pid);
    }
    ssize_t n;
    do
        n = read(pipefd[0], failed, sizeof(*failed));
    while (n < 0 && errno == EINTR);
    close(pipefd[0]);
    if (n != (ssize_t)sizeof(*failed))
        return pid;
    /* It exits at once: reaped here, so that its cgroup can be removed and
     * no one takes it for a process of the tree. */
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    char q[PT_QUOTED_MAX], qc[PT_QUOTED_MAX];
    if (failed->join >= 0)
        snprintf(err, errlen, "cannot put \"%s\" in the cgroup \"%s\": %s", pt_escape(argv[0], q, sizeof(q)),
                 pt_escape(cg->made[failed->join], qc, sizeof(qc)), strerror(failed->error));
    else
        snprintf(err, errlen, "cannot run \"%s\": %s", pt_escape(argv[0], q, sizeof(q)), strerror(failed->error));
    return -1;
}

pid_t pt_launch(char *const argv[], int stdin_fd, int stdout_fd, int stderr_fd, struct pt_launch_cgroup *cg, char *err,
                size_t errlen)
{
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
        snprintf(err, errlen, "cannot become a child subreaper: %s", strerror(errno));
        return -1;
    }
    struct child_error failed = {-1, 0};
    pid_t pid = launch_once(argv, stdin_fd, stdout_fd, stderr_fd, cg, &failed, err, errlen);
    if (pid < 0 && cg && failed.join >= 0 && !cg->required) {
        /* the cgroup filesystem let us make it but not join it (cgroup v2
         * refuses a process in a cgroup whose controllers its parent
         * delegates only to children, a threaded subtree, a security
         * module): as when it cannot be made, the command runs without */
        say_none(err);
        pt_launch_cgroup_remove(cg);
        pid = launch_once(argv, stdin_fd, stdout_fd, stderr_fd, NULL, &failed, err, errlen);
    }
    if (cg)
        pt_launch_cgroup_close_procs(cg);
    return pid;
}
