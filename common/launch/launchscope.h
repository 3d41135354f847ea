/* launchscope: the launched command's cgroup on a systemd host. systemd
 * owns the cgroup tree there: a cgroup made below ours where ours is not
 * delegated to us breaks its rules, so the command is given a transient
 * scope of systemd's (sdscope.h), asked for while the forked child waits
 * before exec. This file plans that scope (its name, its slice: ours),
 * says what the command gets when systemd gives none (a cgroup below our
 * own delegated one, and the controllers it lacks; or no cgroup at all),
 * and asks for the scope, waiting until the kernel shows the child in it. */
#ifndef PROCTREE_LAUNCHSCOPE_H
#define PROCTREE_LAUNCHSCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "launch/launchcg.h"

/* DEFAULT on a systemd host, after pt_launch_cgroup_place: plan the
 * scope (cg->scope and its name, slice, not_below), and say what the
 * fallback is. Returns true when the fallback is to make the cgroup below
 * our own as on other hosts (ours is delegated), false when it is none
 * (cg->fallback then says why). */
bool pt_launch_scope_plan(struct pt_launch_cgroup *cg, const char *not_below);

/* The fallback made below our own delegated cgroup (cg->dir): what it
 * lacks, into cg->fallback. */
void pt_launch_scope_describe_fallback(struct pt_launch_cgroup *cg);

/* Ask systemd for the scope of the held child pid (and cg->keeper's);
 * once the kernel shows it there, the scope is the command's cgroup
 * (cg->dir, cg->where.v2), and the fallback made is removed unused.
 * 0, or -1 with why. */
int pt_launch_scope_get(struct pt_launch_cgroup *cg, pid_t pid, char *why, size_t whylen);

#endif
