/* listeners: the collector's two kernel sockets, the process events
 * (procevents.h) and the exit records (exitrecords.h), each opened once
 * for every target and drained into all of them, with the lines saying
 * which mode is in use and what is lost without them. One socket each for
 * the whole process, not one per target: the kernel multicasts every
 * event on the host to each listener, and a drain's cost grows with the
 * host's forks, not with the targets. */
#ifndef PROCTREE_LISTENERS_H
#define PROCTREE_LISTENERS_H

#include "collector/collectorstate.h"

/* Open both listeners, once (pt_collector_listen, collectortick.h);
 * the first drain with a target opens them otherwise. */
void pt_collector_open_listeners(struct pt_collector *c);

/* Drain the events that arrived since the last tick, without waiting,
 * and hand them to the matching selectors' cache and to every target;
 * the first call with a target opens both listeners. */
void pt_collector_follow_events(struct pt_collector *c);

/* Hand the exit records that arrived since the last drain to every
 * target, after the process events (a process they join may be in them)
 * and the polls (the reapers' folds they read are there to share out).
 * A record without ac_tgid (which open's check should have caught) stops
 * the listener: none of that drain's records is used, as if all were
 * lost, and the targets leave out the exit metrics from that interval on. */
void pt_collector_follow_exits(struct pt_collector *c);

#endif
