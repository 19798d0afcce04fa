/* SPDX-License-Identifier: MIT */
/*
 * The fast transport's TLS session store (resumption.h).  `global`
 * keeps one session for every user behind a mutex, replaced by whichever
 * connection last received one: TLS 1.3 servers often accept a ticket
 * once, so the newest is the one worth offering.  `per-thread` and
 * `per-iteration` keep a session in the user's own slot, which no other
 * user can reach.
 */
#include "resumption.h"

struct _FastSessions {
    HttpSessionPolicy policy;
    gboolean resumption;
    GMutex lock;
    GBytes *latest; /* global only */
};

FastSessions *
fast_sessions_new (HttpSessionPolicy policy, gboolean resumption)
{
    FastSessions *sessions = g_new0 (FastSessions, 1);

    sessions->policy = policy;
    sessions->resumption = resumption;
    g_mutex_init (&sessions->lock);
    return sessions;
}

void
fast_sessions_free (FastSessions *sessions)
{
    if (sessions == NULL)
        return;
    g_clear_pointer (&sessions->latest, g_bytes_unref);
    g_mutex_clear (&sessions->lock);
    g_free (sessions);
}

HttpSessionPolicy
fast_sessions_get_policy (const FastSessions *sessions)
{
    return sessions->policy;
}

GBytes *
fast_sessions_offer (FastSessions *sessions, FastSessionSlot *slot)
{
    GBytes *offer = NULL;

    if (!sessions->resumption)
        return NULL;
    if (sessions->policy != HTTP_SESSION_GLOBAL)
        return slot->own != NULL ? g_bytes_ref (slot->own) : NULL;

    g_mutex_lock (&sessions->lock);
    if (sessions->latest != NULL)
        offer = g_bytes_ref (sessions->latest);
    g_mutex_unlock (&sessions->lock);
    return offer;
}

void
fast_sessions_save (FastSessions *sessions, FastSessionSlot *slot, GBytes *data)
{
    GBytes *old;

    if (!sessions->resumption || data == NULL) {
        if (data != NULL)
            g_bytes_unref (data);
        return;
    }
    if (sessions->policy != HTTP_SESSION_GLOBAL) {
        old = slot->own;
        slot->own = data;
    } else {
        g_mutex_lock (&sessions->lock);
        old = sessions->latest;
        sessions->latest = data;
        g_mutex_unlock (&sessions->lock);
    }
    /* Freed outside the lock: the last reference may be another user's offer. */
    if (old != NULL)
        g_bytes_unref (old);
}

void
fast_sessions_iteration_begin (FastSessions *sessions, FastSessionSlot *slot)
{
    if (sessions->policy == HTTP_SESSION_PER_ITERATION)
        fast_session_slot_clear (slot);
}

void
fast_session_slot_clear (FastSessionSlot *slot)
{
    g_clear_pointer (&slot->own, g_bytes_unref);
}
