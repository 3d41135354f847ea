/* log: where proctree-execd's lines go: stderr, with the prefixes Telegraf
 * maps to its log levels ("E! ", "W! ", "I! ").
 *
 * A log (stderr a pipe, a file, the agent's) gets every line. A person at
 * a terminal first wants the rows: there, unless --verbose, the notes
 * (INFO) said before the first batch are held back, and one short line
 * says instead which metrics are absent on this host (base.h: the absence
 * sink), if any; every line after the first batch is said as it comes. */
#ifndef PROCTREE_EXECD_LOG_H
#define PROCTREE_EXECD_LOG_H

#include <stdbool.h>

/* Install the sinks; hold_notes: hold the notes back as above. */
void execd_log_start(bool hold_notes);

/* The first batch is out: the one line on what is absent, and every note
 * from now on. Cheap when there is nothing held. */
void execd_log_first_batch(void);

/* A note said even while notes are held: the one a person must read to
 * get any row at all (how to ask for a batch). */
__attribute__((format(printf, 1, 2))) void execd_log_note_now(const char *fmt, ...);

#endif
