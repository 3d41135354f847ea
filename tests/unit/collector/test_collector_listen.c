/* A collector's listener of process events and the targets' event books.
 *
 * Why: a target notes the members that join or leave before a drain, so
 * that their fork in that drain is not counted again (eventbook.h). It
 * must note them from the moment the events are listened to. proctree-execd
 * in launch mode listens before it starts the command and adds the
 * command's target after: that target never heard the listener open, its
 * first discovery's joins went unnoted, and a child joined and gone before
 * the first drain was counted twice (forkstorm launched: 10002 of 10001,
 * in CI). Both orders must leave the target noting from the start. The
 * listener is the real one, on the real /proc (process events need
 * CAP_NET_ADMIN: this suite runs as root, as collector_exits does). */
#include <check.h>

#include "collector/collectorstate.h"
#include "proctree/collector.h"
#include "tree/targetstate.h"
#include "unit.h"

/* Launch mode's order: listening, then the target. */
START_TEST(a_target_added_after_the_listener_opened_notes_joins)
{
    struct pt_collector *c = unit_collector();
    pt_collector_listen(c);
    ck_assert_msg(c->events.fd >= 0, "no process events (this suite needs root)");
    unit_add_self(c);
    ck_assert(c->targets[0].events.follows);
    pt_collector_free(c);
}
END_TEST

/* Every other mode: the target, then the listener at the first tick. */
START_TEST(a_target_there_when_the_listener_opens_notes_joins)
{
    struct pt_collector *c = unit_collector();
    unit_add_self(c);
    ck_assert(!c->targets[0].events.follows);
    pt_collector_tick(c, 0);
    ck_assert_msg(c->events.fd >= 0, "no process events (this suite needs root)");
    ck_assert(c->targets[0].events.follows);
    pt_collector_free(c);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("collector_listen");
    TCase *tc = unit_tcase(suite, "listener");
    tcase_add_test(tc, a_target_added_after_the_listener_opened_notes_joins);
    tcase_add_test(tc, a_target_there_when_the_listener_opens_notes_joins);
    return unit_run(suite);
}
