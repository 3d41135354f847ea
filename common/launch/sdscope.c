#include "launch/sdscope.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "util/base.h"
#include "util/escape.h"

bool pt_sdscope_booted(void)
{
    struct stat st;
    if (lstat("/run/systemd/system", &st) != 0 || !S_ISDIR(st.st_mode))
        return false;
    char comm[32] = "";
    int fd = open("/proc/1/comm", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, comm, sizeof(comm) - 1);
    close(fd);
    return n > 0 && strcmp(comm, "systemd\n") == 0;
}

int pt_sdscope_manager_socket(char *out, size_t outlen, char *err, size_t errlen)
{
    uid_t uid = geteuid();
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    int n = uid == 0                       ? snprintf(out, outlen, "/run/systemd/private")
            : runtime && runtime[0] == '/' ? snprintf(out, outlen, "%s/systemd/private", runtime)
                                           : snprintf(out, outlen, "/run/user/%u/systemd/private", (unsigned)uid);
    if (n < 0 || (size_t)n >= outlen) {
        snprintf(err, errlen, "XDG_RUNTIME_DIR is too long");
        return -1;
    }
    struct stat st;
    int r = stat(out, &st);
    if (r != 0 || !S_ISSOCK(st.st_mode)) {
        char q[PT_QUOTED_MAX];
        snprintf(err, errlen, "%s (\"%s\": %s)",
                 uid == 0 ? "no socket of systemd's system manager" : "no systemd user manager for this user",
                 pt_escape(out, q, sizeof(q)), r != 0 ? strerror(errno) : "not a socket");
        return -1;
    }
    return 0;
}

/* sd-bus, opened at the first call; each field has its function's type, as
 * sd-bus.h declares it. */
/* clang-format off */
#define SD_CALLS(X)                                                                                                   \
    X(sd_bus_new) X(sd_bus_set_address) X(sd_bus_negotiate_fds) X(sd_bus_start) X(sd_bus_is_ready) X(sd_bus_process) \
    X(sd_bus_wait) X(sd_bus_message_new_method_call) X(sd_bus_message_append) X(sd_bus_message_open_container)       \
    X(sd_bus_message_close_container) X(sd_bus_call) X(sd_bus_error_free) X(sd_bus_message_unref) X(sd_bus_close_unref)
/* clang-format on */
static struct {
#define FIELD(f) __typeof__(f) *f;
    SD_CALLS(FIELD)
} sd;

static int sd_open(char *err, size_t errlen)
{
    static void *lib;
    const char *missing = NULL;
    if (!lib && !(lib = dlopen(PT_SD_LIBRARY, RTLD_NOW | RTLD_LOCAL))) {
        snprintf(err, errlen, "%s (systemd's sd-bus, which speaks to it) cannot be loaded", PT_SD_LIBRARY);
        return -1;
    }
#define LOAD(f) /* POSIX: dlsym's void * converts to a function's */                                                   \
    if (!missing && !(sd.f = (__typeof__(f) *)dlsym(lib, #f)))                                                         \
        missing = #f;
    SD_CALLS(LOAD)
    if (missing)
        snprintf(err, errlen, "%s has no %s (a systemd older than 241)", PT_SD_LIBRARY, missing);
    return missing ? -1 : 0;
}

static int make_call(sd_bus *bus, const struct pt_sd_scope *s, sd_bus_message **m)
{
    int n = (int)(s->n_pids < PT_ARRAY_LEN(s->pids) ? s->n_pids : PT_ARRAY_LEN(s->pids));
    int r = sd.sd_bus_message_new_method_call(bus, m, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                                              "org.freedesktop.systemd1.Manager", "StartTransientUnit");
    if (r >= 0 && (r = sd.sd_bus_message_append(*m, "ss", s->name, "fail")) >= 0)
        r = sd.sd_bus_message_open_container(*m, 'a', "(sv)");
    if (r >= 0) /* PIDs last: its array takes n of the two pids given */
        r = sd.sd_bus_message_append(*m, "(sv)(sv)(sv)(sv)(sv)(sv)(sv)", "MemoryAccounting", "b", 1, "CPUAccounting",
                                     "b", 1, "IOAccounting", "b", 1, "TasksAccounting", "b", 1, "CollectMode", "s",
                                     "inactive-or-failed", "Description", "s", s->description, "PIDs", "au", n,
                                     (uint32_t)s->pids[0], (uint32_t)s->pids[1]);
    if (r >= 0 && s->slice)
        r = sd.sd_bus_message_append(*m, "(sv)", "Slice", "s", s->slice);
    if (r >= 0 && (r = sd.sd_bus_message_close_container(*m)) >= 0)
        r = sd.sd_bus_message_append(*m, "a(sa(sv))", 0); /* no auxiliary units */
    return r;
}

/* Microseconds to the deadline, at least 1 (0 is sd-bus's default). */
static uint64_t usec_left(double deadline)
{
    double left = deadline - pt_now();
    return left > 0 ? (uint64_t)(left * 1e6) + 1 : 1;
}

int pt_sdscope_start(const char *socket, const struct pt_sd_scope *scope, double timeout, char *err, size_t errlen)
{
    double deadline = pt_now() + timeout;
    char address[16 + 3 * 108] = "unix:path=", qn[PT_QUOTED_MAX], qm[PT_QUOTED_MAX];
    if (strlen(socket) >= 108) { /* sockaddr_un's sun_path */
        snprintf(err, errlen, "the socket's path is too long");
        return -1;
    }
    for (const char *c = socket; *c; c++) /* D-Bus's address escaping: %XX but for [-0-9A-Za-z_/.] */
        snprintf(address + strlen(address), 4, strchr("-_/.", *c) || isalnum((unsigned char)*c) ? "%c" : "%%%02x",
                 (unsigned char)*c);
    if (sd_open(err, errlen) != 0)
        return -1;
    sd_bus *bus = NULL;
    sd_bus_message *m = NULL;
    sd_bus_error e = SD_BUS_ERROR_NULL;
    int r = sd.sd_bus_new(&bus), ready = 0;
    if (r < 0 || (r = sd.sd_bus_set_address(bus, address)) < 0 || (r = sd.sd_bus_negotiate_fds(bus, 0)) < 0 ||
        (r = sd.sd_bus_start(bus)) < 0)
        snprintf(err, errlen, "cannot connect to \"%s\": %s", pt_escape(socket, qn, sizeof(qn)), strerror(-r));
    bool connected = r >= 0;
    while (r >= 0 && !(ready = sd.sd_bus_is_ready(bus) > 0)) { /* the authentication, until the deadline */
        r = pt_now() < deadline ? sd.sd_bus_process(bus, NULL) : -ETIMEDOUT;
        if (r == 0)
            r = sd.sd_bus_wait(bus, usec_left(deadline));
    }
    if (r >= 0 && (r = make_call(bus, scope, &m)) >= 0)
        r = sd.sd_bus_call(bus, m, usec_left(deadline), &e, NULL);
    if (connected && (r == -ECONNRESET || r == -ENOTCONN))
        snprintf(err, errlen, "systemd closed the connection (it refused us)");
    else if (connected && r < 0 && e.name) /* systemd's error, or sd_bus_call's */
        snprintf(err, errlen, "%s: %s", pt_escape(e.name, qn, sizeof(qn)),
                 pt_escape(e.message ? e.message : "", qm, sizeof(qm)));
    else if (connected && r < 0)
        snprintf(err, errlen, "D-Bus%s: %s", ready ? "" : " authentication", strerror(-r));
    sd.sd_bus_error_free(&e);
    sd.sd_bus_message_unref(m);
    sd.sd_bus_close_unref(bus);
    return r < 0 ? -1 : 0;
}
