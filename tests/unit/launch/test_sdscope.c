/* Unit tests for sdscope.c: the one D-Bus call to systemd, spoken by
 * libsystemd's sd-bus, against a fake manager on a Unix socket that
 * answers as scripted, hostile answers included: each ends in one line
 * within the deadline, never a hang. */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proctree/base.h"
#include "launch/sdscope.h"
#include "unit.h"

/* ---- a reply, marshalled as systemd would (native byte order) ---------- */

struct msg {
    uint8_t b[1024];
    size_t n;
};

static void put(struct msg *m, const void *p, size_t len)
{
    memcpy(m->b + m->n, p, len);
    m->n += len;
}

static void align(struct msg *m, size_t a)
{
    while (m->n % a)
        m->b[m->n++] = 0;
}

static void u32(struct msg *m, uint32_t v)
{
    align(m, 4);
    put(m, &v, 4);
}

static void str(struct msg *m, const char *s)
{
    u32(m, (uint32_t)strlen(s));
    put(m, s, strlen(s) + 1);
}

static void sig(struct msg *m, const char *s)
{
    m->b[m->n++] = (uint8_t)strlen(s);
    put(m, s, strlen(s) + 1);
}

static char endian(void)
{
    uint32_t one = 1;
    return *(uint8_t *)&one ? 'l' : 'B';
}

/* A message of systemd's to the call of serial `serial`: type 2 (a return:
 * its body the job's path), 3 (an error: its name, its body the message)
 * or 4 (a signal, JobNew, which is no reply). */
static struct msg message(uint8_t type, uint32_t serial, const char *error_name, const char *text)
{
    struct msg body = {0}, m = {0};
    if (text)
        str(&body, text);
    m.b[m.n++] = (uint8_t)endian();
    m.b[m.n++] = type;
    m.b[m.n++] = 0;
    m.b[m.n++] = 1;
    u32(&m, (uint32_t)body.n);
    u32(&m, 9);
    u32(&m, 0);
    size_t fields = m.n;
    align(&m, 8);
    if (type == 4) {
        m.b[m.n++] = 1;
        sig(&m, "o");
        str(&m, "/org/freedesktop/systemd1");
        align(&m, 8);
        m.b[m.n++] = 2;
        sig(&m, "s");
        str(&m, "org.freedesktop.systemd1.Manager");
        align(&m, 8);
        m.b[m.n++] = 3;
        sig(&m, "s");
        str(&m, "JobNew");
    } else {
        m.b[m.n++] = 5;
        sig(&m, "u");
        u32(&m, serial);
    }
    if (error_name) {
        align(&m, 8);
        m.b[m.n++] = 4;
        sig(&m, "s");
        str(&m, error_name);
    }
    if (text) {
        align(&m, 8);
        m.b[m.n++] = 8;
        sig(&m, "g");
        sig(&m, type == 2 ? "o" : "s");
    }
    uint32_t len = (uint32_t)(m.n - fields);
    memcpy(m.b + 12, &len, 4);
    align(&m, 8);
    put(&m, body.b, body.n);
    return m;
}

/* ---- the fake manager ------------------------------------------------------ */

/* What the fake manager does after the client's authentication lines
 * (sd-bus sends "\0AUTH EXTERNAL", "DATA" and "BEGIN" at once): ANSWER
 * reads the call and sends the scripted bytes, the other scripts say
 * their name. */
enum script { ANSWER, AUTH_REJECTED, AUTH_REJECTED_CLOSED, SILENT_AUTH, CLOSE_AFTER_AUTH, SILENT };

/* The reply is made by the server once it has read the call's serial. */
typedef struct msg (*reply_fn)(uint32_t serial);

/* A path that D-Bus's address syntax must escape (",", ";", "%", a
 * space): sd-bus reads the socket's path from "unix:path=...". */
static char sock_path[108];

static const struct pt_sd_scope the_scope = {"proctree-launch-7.scope", "test.slice", "a command", {4242}, 1};

static ssize_t read_some(int fd, void *p, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)p + got, len - got);
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

/* Reads a line of the SASL exchange ("\r\n"-terminated) into line. */
static void read_line(int c, char *line, size_t cap)
{
    size_t len = 0;
    while (len < cap - 1 && read(c, line + len, 1) == 1 && line[len++] != '\n')
        ;
    line[len] = '\0';
}

/* Serves one connection in a child: reads the call (exits 3 when it is not
 * the StartTransientUnit of scope), then sends reply(its serial). */
static pid_t serve(enum script script, reply_fn reply, const struct pt_sd_scope *scope)
{
    snprintf(sock_path, sizeof(sock_path), "/tmp/proctree sdscope,%d;%%.sock", (int)getpid());
    unlink(sock_path);
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock_path);
    ck_assert_int_eq(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
    ck_assert_int_eq(listen(l, 1), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid > 0) {
        close(l);
        return pid;
    }
    int c = accept(l, NULL, NULL);
    char line[128];
    read_line(c, line, sizeof(line));
    if (line[0] != '\0' || strncmp(line + 1, "AUTH EXTERNAL", 13) != 0)
        _exit(2);
    if (script == SILENT_AUTH) {
        pause();
        _exit(0);
    }
    if (script == AUTH_REJECTED || script == AUTH_REJECTED_CLOSED) {
        /* as a D-Bus server answers: REJECTED, then ERROR to the DATA */
        (void)!write(c, "REJECTED EXTERNAL\r\n", 19);
        if (script == AUTH_REJECTED_CLOSED)
            _exit(0);
        (void)!write(c, "ERROR\r\n", 7);
        pause();
        _exit(0);
    }
    (void)!write(c, "DATA\r\nOK 0123456789abcdef0123456789abcdef\r\n", 43);
    if (script == CLOSE_AFTER_AUTH)
        _exit(0);
    do
        read_line(c, line, sizeof(line));
    while (line[0] && strcmp(line, "BEGIN\r\n") != 0);
    static uint8_t req[4096];
    if (!line[0] || read_some(c, req, 16) < 0)
        _exit(2);
    uint32_t body, serial, fields;
    memcpy(&body, req + 4, 4);
    memcpy(&serial, req + 8, 4);
    memcpy(&fields, req + 12, 4);
    size_t total = ((16 + fields + 7) & ~7u) + body;
    if (total > sizeof(req) || read_some(c, req + 16, total - 16) < 0)
        _exit(2);
    const char *want[] = {"StartTransientUnit",
                          "ssa(sv)a(sa(sv))",
                          scope->name,
                          "fail",
                          "PIDs",
                          "au",
                          "MemoryAccounting",
                          "CPUAccounting",
                          "IOAccounting",
                          "TasksAccounting",
                          "CollectMode",
                          "inactive-or-failed",
                          "Description",
                          scope->description,
                          scope->slice ? scope->slice : "Description"};
    for (size_t i = 0; i < COUNT(want); i++)
        if (!memmem(req, total, want[i], strlen(want[i]) + 1))
            _exit(3);
    if (!scope->slice && memmem(req, total, "Slice", 6))
        _exit(3);
    for (size_t i = 0; i < scope->n_pids; i++) {
        uint32_t pid_u32 = (uint32_t)scope->pids[i];
        if (!memmem(req, total, &pid_u32, 4))
            _exit(3);
    }
    if (script == SILENT) {
        pause();
        _exit(0);
    }
    struct msg m = reply(serial);
    (void)!write(c, m.b, m.n);
    pause(); /* killed by the test, so the client sees no close */
    _exit(0);
}

/* The call of scope against the script: its result, err, and the
 * server's verdict on the call (0: the right one). */
static int call_scope(enum script script, reply_fn reply, const struct pt_sd_scope *scope, char *err, size_t errlen,
                      double *took)
{
    pid_t server = serve(script, reply, scope);
    double start = pt_now();
    int r = pt_sdscope_start(sock_path, scope, 0.5, err, errlen);
    *took = pt_now() - start;
    int status;
    kill(server, SIGKILL);
    waitpid(server, &status, 0);
    unlink(sock_path);
    ck_assert_msg(!WIFEXITED(status) || WEXITSTATUS(status) == 0, "the call was not as asked: server status %d",
                  WEXITSTATUS(status));
    ck_assert_msg(!strchr(err, '\n'), "one line: %s", err);
    ck_assert_double_lt(*took, 5.0); /* 0.5 s asked: never a hang */
    return r;
}

static int call(enum script script, reply_fn reply, char *err, size_t errlen, double *took)
{
    return call_scope(script, reply, &the_scope, err, errlen, took);
}

static struct msg job(uint32_t serial)
{
    return message(2, serial, NULL, "/org/freedesktop/systemd1/job/1");
}

static struct msg signal_then_job(uint32_t serial)
{
    struct msg sigm = message(4, 0, NULL, NULL), ret = job(serial);
    put(&sigm, ret.b, ret.n);
    return sigm;
}

START_TEST(test_signals_skipped_then_the_reply)
{
    char err[256] = "";
    double took;
    ck_assert_int_eq(call(ANSWER, signal_then_job, err, sizeof(err), &took), 0);
}
END_TEST

/* Two pids (the command's and its keeper's), no slice: both in PIDs, no
 * Slice property. */
START_TEST(test_two_pids_no_slice)
{
    const struct pt_sd_scope s = {"proctree-launch-8.scope", NULL, "another command", {4242, 4343}, 2};
    char err[256] = "";
    double took;
    ck_assert_int_eq(call_scope(ANSWER, job, &s, err, sizeof(err), &took), 0);
}
END_TEST

static struct msg unit_exists(uint32_t serial)
{
    return message(3, serial, "org.freedesktop.systemd1.UnitExists", "Unit exists.\nE! forged");
}

START_TEST(test_error_is_one_escaped_line)
{
    char err[256] = "";
    double took;
    ck_assert_int_eq(call(ANSWER, unit_exists, err, sizeof(err), &took), -1);
    ck_assert_ptr_nonnull(strstr(err, "org.freedesktop.systemd1.UnitExists"));
    ck_assert_ptr_nonnull(strstr(err, "Unit exists.\\nE! forged"));
}
END_TEST

static struct msg huge_body(uint32_t serial)
{
    struct msg e = job(serial);
    uint32_t huge = 1u << 30;
    memcpy(e.b + 4, &huge, 4);
    return e;
}

/* sd-bus refuses a message of 128 MiB or more from its header alone
 * (252: ENOBUFS, as org.freedesktop.DBus.Error.LimitsExceeded), before
 * the deadline. */
START_TEST(test_huge_length_refused)
{
    char err[256] = "";
    double took;
    ck_assert_int_eq(call(ANSWER, huge_body, err, sizeof(err), &took), -1);
    ck_assert_msg(strstr(err, strerror(ENOBUFS)) || strstr(err, strerror(EBADMSG)), "%s", err);
    ck_assert_double_lt(took, 0.5);
}
END_TEST

static struct msg malformed_field(uint32_t serial)
{
    struct msg e = job(serial);
    e.b[17] = 200; /* the first field's signature length: past the fields */
    return e;
}

/* sd-bus drops a message whose header fields it cannot parse (systemd
 * 252; an older one may refuse it, EBADMSG): the reply never comes, and
 * the call ends at the deadline. */
START_TEST(test_malformed_field_refused)
{
    char err[256] = "";
    double took;
    ck_assert_int_eq(call(ANSWER, malformed_field, err, sizeof(err), &took), -1);
    ck_assert_msg(strstr(err, "timed out") || strstr(err, strerror(EBADMSG)), "%s", err);
}
END_TEST

static struct msg no_byte_order(uint32_t serial)
{
    struct msg e = job(serial);
    e.b[0] = 'x';
    return e;
}

static struct msg cut_short(uint32_t serial)
{
    struct msg e = job(serial);
    e.n--;
    return e;
}

static struct msg another_serial(uint32_t serial)
{
    return job(serial + 1);
}

/* What the hand-written parser refused (test_parse_message, before
 * sd-bus) through the socket: a header with no byte order; a message one
 * byte short of its length, a reply to another call, each ending at the
 * deadline. */
START_TEST(test_bad_messages_refused)
{
    char err[256] = "";
    double took;
    ck_assert_int_eq(call(ANSWER, no_byte_order, err, sizeof(err), &took), -1);
    ck_assert_msg(strstr(err, strerror(EBADMSG)), "%s", err);
    ck_assert_int_eq(call(ANSWER, cut_short, err, sizeof(err), &took), -1);
    ck_assert_msg(strstr(err, "timed out"), "%s", err);
    ck_assert_int_eq(call(ANSWER, another_serial, err, sizeof(err), &took), -1);
    ck_assert_msg(strstr(err, "timed out"), "%s", err);
}
END_TEST

/* The first bytes pattern in e's header fields or body changed to with
 * (as long). */
static void retype(struct msg *e, const char *pattern, size_t len, const char *with)
{
    uint8_t *at = memmem(e->b, e->n, pattern, len);
    ck_assert_ptr_nonnull(at);
    memcpy(at, with, len);
}

static struct msg error_message_not_a_string(uint32_t serial)
{
    struct msg e = unit_exists(serial);
    retype(&e, "\x08\x01g\0\x01s\0", 7, "\x08\x01g\0\x01u\0"); /* the body's signature: a u32 */
    return e;
}

static struct msg reply_serial_a_string(uint32_t serial)
{
    struct msg e = job(serial);
    retype(&e, "\x05\x01u\0", 4, "\x05\x01s\0"); /* REPLY_SERIAL's type: s */
    return e;
}

/* Wrong types: an error whose body is no message (a u32 where its
 * signature says so) is still the error its name says; a REPLY_SERIAL
 * of type s makes no reply of the message (sd-bus drops it, or refuses
 * it), so the call ends at the deadline or at the refusal. */
START_TEST(test_wrong_types_refused)
{
    char err[256] = "";
    double took;
    ck_assert_int_eq(call(ANSWER, error_message_not_a_string, err, sizeof(err), &took), -1);
    ck_assert_msg(strstr(err, "org.freedesktop.systemd1.UnitExists"), "%s", err);
    ck_assert_int_eq(call(ANSWER, reply_serial_a_string, err, sizeof(err), &took), -1);
    ck_assert_msg(strstr(err, "timed out") || strstr(err, strerror(EBADMSG)), "%s", err);
}
END_TEST

START_TEST(test_silence_ends_at_the_deadline)
{
    char err[256] = "";
    double took;
    ck_assert_int_eq(call(SILENT, NULL, err, sizeof(err), &took), -1);
    ck_assert_msg(strstr(err, "timed out"), "%s", err);
    /* silent before the authentication's OK: sd_bus_call alone would wait
     * sd-bus's own authentication timeout (25 s or more) */
    ck_assert_int_eq(call(SILENT_AUTH, NULL, err, sizeof(err), &took), -1);
    ck_assert_msg(strstr(err, "authentication") && strstr(err, "timed out"), "%s", err);
}
END_TEST

START_TEST(test_refusals_said)
{
    char err[256] = "";
    double took;
    ck_assert_int_eq(call(AUTH_REJECTED, NULL, err, sizeof(err), &took), -1);
    ck_assert_msg(strstr(err, "authentication") && strstr(err, strerror(EPERM)), "%s", err);
    ck_assert_int_eq(call(AUTH_REJECTED_CLOSED, NULL, err, sizeof(err), &took), -1);
    ck_assert_msg(strstr(err, "closed the connection"), "%s", err);
    ck_assert_int_eq(call(CLOSE_AFTER_AUTH, NULL, err, sizeof(err), &took), -1);
    ck_assert_msg(strstr(err, "closed the connection"), "%s", err);
    const struct pt_sd_scope s = {"x.scope", NULL, "d", {1}, 1};
    ck_assert_int_eq(pt_sdscope_start("/nonexistent/socket", &s, 0.5, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot connect to \"/nonexistent/socket\""));
    char long_path[200];
    memset(long_path, 'a', sizeof(long_path) - 1);
    long_path[sizeof(long_path) - 1] = '\0';
    ck_assert_int_eq(pt_sdscope_start(long_path, &s, 0.5, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "too long"));
}
END_TEST

/* The file dlopen finds for PT_SD_LIBRARY, found in a child (the
 * library is not loaded here): 0, or -1. */
static int library_file(char *path, size_t cap)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        void *lib = dlopen(PT_SD_LIBRARY, RTLD_NOW | RTLD_LOCAL);
        struct link_map *map = NULL;
        if (lib && dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map->l_name[0] == '/')
            (void)!write(p[1], map->l_name, strlen(map->l_name));
        _exit(0);
    }
    close(p[1]);
    size_t len = 0;
    ssize_t n;
    while (len < cap - 1 && (n = read(p[0], path + len, cap - 1 - len)) > 0)
        len += (size_t)n;
    path[len] = '\0';
    close(p[0]);
    waitpid(child, NULL, 0);
    return path[0] == '/' ? 0 : -1;
}

/* A host without libsystemd.so.0, as root: in a mount namespace of a
 * child's own, /dev/null is mounted over the library's file. The call
 * ends at once, in one line that names the library; elsewhere (not root,
 * no mount namespace, the library already loaded with CK_FORK=no) it is
 * skipped, saying so. */
START_TEST(test_no_libsystemd_said)
{
    char path[4096] = "";
    if (geteuid() != 0 || dlopen(PT_SD_LIBRARY, RTLD_NOW | RTLD_NOLOAD) || library_file(path, sizeof(path)) != 0) {
        fprintf(stderr, "test_no_libsystemd_said: skipped (not root, or %s loaded already or not found)\n",
                PT_SD_LIBRARY);
        return;
    }
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        close(p[0]);
        if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
            mount("/dev/null", path, NULL, MS_BIND, NULL) != 0)
            _exit(77);
        char err[256] = "";
        const struct pt_sd_scope s = {"x.scope", NULL, "d", {1}, 1};
        double start = pt_now();
        int r = pt_sdscope_start("/nonexistent/socket", &s, 0.5, err, sizeof(err));
        (void)!write(p[1], err, strlen(err));
        _exit(r == -1 && pt_now() - start < 0.5 ? 0 : 1);
    }
    close(p[1]);
    char err[256] = "";
    ssize_t n = read(p[0], err, sizeof(err) - 1);
    close(p[0]);
    int status;
    waitpid(child, &status, 0);
    ck_assert(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77) {
        fprintf(stderr, "test_no_libsystemd_said: skipped (no mount namespace of our own here)\n");
        return;
    }
    err[n > 0 ? n : 0] = '\0';
    ck_assert_msg(WEXITSTATUS(status) == 0, "the call did not fail at once: %s", err);
    ck_assert_msg(strstr(err, PT_SD_LIBRARY " (systemd's sd-bus") && strstr(err, "cannot be loaded"), "%s", err);
    ck_assert_msg(!strchr(err, '\n'), "one line: %s", err);
}
END_TEST

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    Suite *s = suite_create("sdscope");
    TCase *tc = tcase_create("sdscope");
    tcase_add_test(tc, test_signals_skipped_then_the_reply);
    tcase_add_test(tc, test_two_pids_no_slice);
    tcase_add_test(tc, test_error_is_one_escaped_line);
    tcase_add_test(tc, test_huge_length_refused);
    tcase_add_test(tc, test_malformed_field_refused);
    tcase_add_test(tc, test_bad_messages_refused);
    tcase_add_test(tc, test_wrong_types_refused);
    tcase_add_test(tc, test_silence_ends_at_the_deadline);
    tcase_add_test(tc, test_refusals_said);
    tcase_add_test(tc, test_no_libsystemd_said);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
