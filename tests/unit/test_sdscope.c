/* Unit tests for sdscope.c: the one D-Bus call to systemd, against a fake
 * manager on a Unix socket that answers as scripted, hostile answers
 * included: each ends in one line within the deadline, never a hang. */
#include <check.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* type 2 (return: body an object path), 3 (error name, body message) or 4
 * (a signal, which is no reply). */
static struct msg message(uint8_t type, const char *error_name, const char *text)
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
    } else {
        m.b[m.n++] = 5;
        sig(&m, "u");
        u32(&m, 1);
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

enum script { ANSWER, AUTH_REJECTED, CLOSE_AFTER_AUTH, SILENT };

static char sock_path[108];

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

/* Serves one connection in a child: reads the call (exits 3 when it is not
 * the StartTransientUnit asked for), then sends reply[0..n). */
static pid_t serve(enum script script, const void *reply, size_t n)
{
    snprintf(sock_path, sizeof(sock_path), "/tmp/proctree-sdscope-%d.sock", (int)getpid());
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
    size_t len = 0;
    while (len < sizeof(line) - 1 && read(c, line + len, 1) == 1 && line[len++] != '\n')
        ;
    line[len] = '\0';
    if (line[0] != '\0' || strncmp(line + 1, "AUTH EXTERNAL ", 14) != 0)
        _exit(2);
    if (script == AUTH_REJECTED) {
        (void)!write(c, "REJECTED EXTERNAL\r\n", 19);
        _exit(0);
    }
    (void)!write(c, "OK 0123456789abcdef0123456789abcdef\r\n", 37);
    if (script == CLOSE_AFTER_AUTH)
        _exit(0);
    static uint8_t call[4096];
    if (read_some(c, call, 7 + 16) < 0 || memcmp(call, "BEGIN\r\n", 7) != 0)
        _exit(2);
    uint32_t body, fields;
    memcpy(&body, call + 7 + 4, 4);
    memcpy(&fields, call + 7 + 12, 4);
    size_t total = ((16 + fields + 7) & ~7u) + body;
    if (total > sizeof(call) - 7 || read_some(c, call + 7 + 16, total - 16) < 0)
        _exit(2);
    static const char *const want[] = {
        "StartTransientUnit", "ssa(sv)a(sa(sv))", "proctree-launch-7.scope", "PIDs", "MemoryAccounting",
        "inactive-or-failed", "test.slice"};
    for (size_t i = 0; i < COUNT(want); i++)
        if (!memmem(call, total + 7, want[i], strlen(want[i]) + 1))
            _exit(3);
    uint32_t pid_le = 4242;
    if (!memmem(call, total + 7, &pid_le, 4))
        _exit(3);
    if (script == SILENT) {
        pause();
        _exit(0);
    }
    (void)!write(c, reply, n);
    pause(); /* killed by the test, so the client sees no close */
    _exit(0);
}

/* The call against the script: its result, err, and the server's verdict
 * on the call (0: the right one). */
static int call(enum script script, const void *reply, size_t n, char *err, size_t errlen, double *took)
{
    pid_t server = serve(script, reply, n);
    const struct pt_sd_scope s = {"proctree-launch-7.scope", "test.slice", "a command", {4242}, 1};
    double start = pt_now();
    int r = pt_sd_start_scope(sock_path, &s, 0.5, err, errlen);
    *took = pt_now() - start;
    int status;
    kill(server, SIGKILL);
    waitpid(server, &status, 0);
    unlink(sock_path);
    ck_assert_msg(!WIFEXITED(status) || WEXITSTATUS(status) == 0, "the call was not as asked: server status %d",
                  WEXITSTATUS(status));
    ck_assert_msg(!strchr(err, '\n'), "one line: %s", err);
    return r;
}

START_TEST(test_signals_skipped_then_the_reply)
{
    struct msg sigm = message(4, NULL, NULL), ret = message(2, NULL, "/org/freedesktop/systemd1/job/1");
    uint8_t both[2048];
    memcpy(both, sigm.b, sigm.n);
    memcpy(both + sigm.n, ret.b, ret.n);
    char err[256] = "";
    double took;
    ck_assert_int_eq(call(ANSWER, both, sigm.n + ret.n, err, sizeof(err), &took), 0);
}
END_TEST

START_TEST(test_error_is_one_escaped_line)
{
    struct msg e = message(3, "org.freedesktop.systemd1.UnitExists", "Unit exists.\nE! forged");
    char err[256] = "";
    double took;
    ck_assert_int_eq(call(ANSWER, e.b, e.n, err, sizeof(err), &took), -1);
    ck_assert_ptr_nonnull(strstr(err, "org.freedesktop.systemd1.UnitExists"));
    ck_assert_ptr_nonnull(strstr(err, "Unit exists.\\nE! forged"));
}
END_TEST

START_TEST(test_huge_length_refused)
{
    struct msg e = message(2, NULL, "/job");
    uint32_t huge = 1u << 30;
    memcpy(e.b + 4, &huge, 4);
    char err[256] = "";
    double took;
    ck_assert_int_eq(call(ANSWER, e.b, e.n, err, sizeof(err), &took), -1);
    ck_assert_ptr_nonnull(strstr(err, "at most"));
}
END_TEST

START_TEST(test_malformed_field_refused)
{
    struct msg e = message(2, NULL, "/job");
    e.b[17] = 200; /* the first field's signature length: past the fields */
    char err[256] = "";
    double took;
    ck_assert_int_eq(call(ANSWER, e.b, e.n, err, sizeof(err), &took), -1);
    ck_assert_ptr_nonnull(strstr(err, "malformed"));
}
END_TEST

START_TEST(test_silence_ends_at_the_deadline)
{
    char err[256] = "";
    double took;
    ck_assert_int_eq(call(SILENT, NULL, 0, err, sizeof(err), &took), -1);
    ck_assert_ptr_nonnull(strstr(err, "timed out"));
    ck_assert_double_lt(took, 5.0); /* 0.5 s asked: never a hang */
}
END_TEST

START_TEST(test_refusals_said)
{
    char err[256] = "";
    double took;
    ck_assert_int_eq(call(AUTH_REJECTED, NULL, 0, err, sizeof(err), &took), -1);
    ck_assert_ptr_nonnull(strstr(err, "authentication refused: \"REJECTED EXTERNAL\""));
    ck_assert_int_eq(call(CLOSE_AFTER_AUTH, NULL, 0, err, sizeof(err), &took), -1);
    ck_assert_ptr_nonnull(strstr(err, "closed the connection"));
    const struct pt_sd_scope s = {"x.scope", NULL, "d", {1}, 1};
    ck_assert_int_eq(pt_sd_start_scope("/nonexistent/socket", &s, 0.5, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot connect to \"/nonexistent/socket\""));
}
END_TEST

/* The parser alone, on the messages the fake manager sends. */
START_TEST(test_parse_message)
{
    struct pt_sd_reply rep;
    struct msg ret = message(2, NULL, "/org/freedesktop/systemd1/job/1");
    ck_assert_uint_eq(pt_sd_message_size(ret.b), ret.n);
    ck_assert_int_eq(pt_sd_parse_message(ret.b, ret.n, &rep), 0);
    ck_assert_uint_eq(rep.type, 2);
    ck_assert_uint_eq(rep.reply_serial, 1);
    ck_assert_ptr_null(rep.error_name);
    ck_assert_ptr_null(rep.error_message);
    ck_assert_int_eq(pt_sd_parse_message(ret.b, ret.n - 1, &rep), -1); /* not its length */

    struct msg e = message(3, "org.freedesktop.systemd1.UnitExists", "Unit exists.");
    ck_assert_int_eq(pt_sd_parse_message(e.b, e.n, &rep), 0);
    ck_assert_uint_eq(rep.type, 3);
    ck_assert_str_eq(rep.error_name, "org.freedesktop.systemd1.UnitExists");
    ck_assert_str_eq(rep.error_message, "Unit exists.");

    struct msg sigm = message(4, NULL, NULL);
    ck_assert_int_eq(pt_sd_parse_message(sigm.b, sigm.n, &rep), 0);
    ck_assert_uint_eq(rep.type, 4);
    ck_assert_uint_eq(rep.reply_serial, 0);

    sigm.b[0] = 'x'; /* no byte order */
    ck_assert_uint_eq(pt_sd_message_size(sigm.b), 0);
    ck_assert_int_eq(pt_sd_parse_message(sigm.b, sigm.n, &rep), -1);
    ret.b[17] = 200; /* a signature past the fields */
    ck_assert_int_eq(pt_sd_parse_message(ret.b, ret.n, &rep), -1);
}
END_TEST

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    Suite *s = suite_create("sdscope");
    TCase *tc = tcase_create("sdscope");
    tcase_add_test(tc, test_signals_skipped_then_the_reply);
    tcase_add_test(tc, test_error_is_one_escaped_line);
    tcase_add_test(tc, test_huge_length_refused);
    tcase_add_test(tc, test_malformed_field_refused);
    tcase_add_test(tc, test_silence_ends_at_the_deadline);
    tcase_add_test(tc, test_refusals_said);
    tcase_add_test(tc, test_parse_message);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
