/* SPDX-License-Identifier: MIT */
/*
 * The fast transport's TLS session store: which saved session a new
 * connection of a virtual user may offer, under the scenario's policy.
 * Kept apart from the sockets so that a unit test can show, without a
 * server, that a user is never offered another user's session.
 *
 * Sessions are opaque bytes (what gnutls_session_get_data2() returned).
 * The store is touched once per new connection, never per request.
 * (The file was session.h; that name is now the HTTP session table's,
 * h2load's sense of the word, so this one is named for what it serves.)
 */
#pragma once

#include <glib.h>
#include "../http.h"

/* The scenario-wide part: the policy and, for `global`, the one shared session. */
typedef struct _FastSessions FastSessions;

/* One virtual user's part: its own last session (per-thread, per-iteration). */
typedef struct {
    GBytes *own;
} FastSessionSlot;

FastSessions *fast_sessions_new (HttpSessionPolicy policy, gboolean resumption);
void fast_sessions_free (FastSessions *sessions);
HttpSessionPolicy fast_sessions_get_policy (const FastSessions *sessions);

/*
 * What a new connection of the user owning @slot offers: (transfer full)
 * (nullable).  NULL when resumption is off or nothing was saved yet.
 * Thread-safe (several workers call it for the global store).
 */
GBytes *fast_sessions_offer (FastSessions *sessions, FastSessionSlot *slot);

/*
 * Records @data (transfer full) as the newest session seen by the user
 * owning @slot: in its own slot, or in the shared store under `global`.
 */
void fast_sessions_save (FastSessions *sessions, FastSessionSlot *slot, GBytes *data);

/* The user's iteration starts: under `per-iteration` its session is dropped. */
void fast_sessions_iteration_begin (FastSessions *sessions, FastSessionSlot *slot);

/* Releases what @slot holds (the user goes away). */
void fast_session_slot_clear (FastSessionSlot *slot);
