/* SPDX-License-Identifier: MIT */
/*
 * The sample: the measured result of one step.  A plain struct, filled in
 * place by the protocol plugin in memory the core owns and reuses, so a
 * step costs no allocation.
 */
#pragma once

#include <glib.h>
#include <throng/version.h>

G_BEGIN_DECLS

/**
 * ThrongErrorClass:
 * @THRONG_ERROR_NONE: the step succeeded
 * @THRONG_ERROR_CONNECT: the connection was refused or the address unreachable
 * @THRONG_ERROR_DNS: the host name did not resolve
 * @THRONG_ERROR_TLS: the TLS handshake failed for a reason other than the
 *   peer's certificate
 * @THRONG_ERROR_CERTIFICATE: the peer's certificate did not verify
 * @THRONG_ERROR_TIMEOUT: a timeout expired (connect or whole step)
 * @THRONG_ERROR_RESET: the peer reset or closed the connection before the
 *   response was complete
 * @THRONG_ERROR_PROTOCOL: the peer sent something the protocol forbids
 * @THRONG_ERROR_STATUS: a complete response whose status was not expected
 * @THRONG_ERROR_BODY_LIMIT: the response body exceeded the configured limit
 * @THRONG_ERROR_OTHER: anything else (local I/O errors, resource limits)
 * @THRONG_ERROR_CHECK: a response arrived but a check on it failed, or an
 *   extractor without a default matched nothing.  Since 0.3
 * @THRONG_ERROR_VARIABLE: the step needs a variable that is not set (an
 *   earlier extractor failed), so nothing was sent.  Such a sample is not
 *   a request: #ThrongStats.requests leaves it out and counts it in its
 *   errors only (throng_stats_get_not_sent()).  A protocol uses this class
 *   for a step that sent nothing, and only for that.  Since 0.3
 *
 * Why a step failed.  Values are only ever appended; a reporter that meets
 * a value it does not know treats it as %THRONG_ERROR_OTHER.
 *
 * Since: 0.1
 */
typedef enum {
    THRONG_ERROR_NONE = 0,
    THRONG_ERROR_CONNECT,
    THRONG_ERROR_DNS,
    THRONG_ERROR_TLS,
    THRONG_ERROR_CERTIFICATE,
    THRONG_ERROR_TIMEOUT,
    THRONG_ERROR_RESET,
    THRONG_ERROR_PROTOCOL,
    THRONG_ERROR_STATUS,
    THRONG_ERROR_BODY_LIMIT,
    THRONG_ERROR_OTHER,
    THRONG_ERROR_CHECK,
    THRONG_ERROR_VARIABLE,
} ThrongErrorClass;

/**
 * THRONG_ERROR_CLASS_SLOTS:
 *
 * The size of every per-class counter array in the SDK.  Larger than the
 * number of classes so that classes can be appended without changing the
 * layout of #ThrongStats.
 *
 * Since: 0.1
 */
#define THRONG_ERROR_CLASS_SLOTS 16

/**
 * throng_error_class_name:
 * @error_class: a #ThrongErrorClass
 *
 * Returns: (transfer none): a short stable name ("connect", "dns", "tls",
 *   "certificate", "timeout", "reset", "protocol", "status", "body-limit",
 *   "other"; "none" for success; "other" for a value this core does not
 *   know), static
 *
 * Since: 0.1
 */
THRONG_API const char *throng_error_class_name (ThrongErrorClass error_class);

/**
 * ThrongSample:
 * @start_us: monotonic time (g_get_monotonic_time()) the step started, set
 *   by the core before the step runs.  In open-model scenarios this is
 *   when the step *should* have started.
 * @elapsed_us: total time from @start_us to completion, set by the core in
 *   throng_user_step_done()
 * @latency_us: time from @start_us to the first byte of the response
 *   (JMeter's "Latency"); 0 if none arrived
 * @connect_us: time spent opening connections during the step (0 when an
 *   open connection was reused)
 * @tls_us: time spent in TLS handshakes during the step
 * @bytes_sent: bytes written for this step, headers included
 * @bytes_received: bytes read for this step, headers included
 * @scenario: index of the scenario in the plan (set by the core)
 * @step: index of the step in its scenario (set by the core)
 * @user: index of the virtual user in its scenario (set by the core)
 * @iteration32: the low 32 bits of @iteration, at the place 0.1 had its
 *   32-bit `iteration`, so that plugins built against 0.1 read it
 *   unchanged; new code reads @iteration
 * @status: the protocol's status (an HTTP status code), 0 if none
 * @error: why the step failed, %THRONG_ERROR_NONE on success
 * @connections_opened: connections opened during the step
 * @handshakes_full: full TLS handshakes completed during the step
 * @handshakes_resumed: resumed (abbreviated) TLS handshakes during the step
 * @retries: times the step's request was sent again by the protocol itself
 *   (an HTTP request retried on a new connection after a kept-alive one
 *   closed unanswered); in 0.1 this was a reserved field, always 0.
 *   Not the plan's `retry:`, whose attempts are samples of their own
 *   (%THRONG_SAMPLE_RETRY).  Since: 0.2
 * @message: (nullable): the status's reason phrase, or what went wrong.
 *   Either a string that outlives the run (static, or owned by the step or
 *   scenario data until the plan is freed) assigned directly, or any other
 *   text through throng_sample_set_message(), which copies it.  Never
 *   assign per-user or per-request memory directly: reporters read samples
 *   later, on the main thread, in batches
 * @resource: (nullable): what the step addressed (an URL), owned by the step
 * @wall_start_us: wall-clock time of @start_us in µs since the epoch (set
 *   by the core)
 * @iteration: the user's iteration, from 0 (set by the core); the same
 *   width as throng_user_get_iteration().  Since 0.2 (0.1 had a 32-bit
 *   field, now @iteration32, in its place)
 * @protocol: (nullable): the protocol version the step's request went over
 *   ("http/1.1", "h2"), a static string the protocol plugin assigns; NULL
 *   when it did not say (no exchange took place, or a plugin older than
 *   0.4).  The core counts samples per name in #ThrongStats.protocols.
 *   It took a reserved slot, so the struct's size (the stride of the
 *   arrays reporters receive) is unchanged.  Since: 0.4
 * @flags: #ThrongSampleFlags, set by the core when it records the sample
 *   (a protocol leaves them alone); 0 from a core older than 0.5.  Half of
 *   a reserved slot, so the size is unchanged.  Since: 0.5
 *
 * The plugin sets the fields it measures and leaves the others to the core.
 * Every field is reset to zero before a step runs.  The struct is the
 * core's (transfer none): a protocol writes it from `step_run` until it
 * calls throng_user_step_done() and never after; a reporter reads a batch
 * of them during its `samples` hook only.
 *
 * Since: 0.1
 */
typedef struct {
    gint64 start_us;
    gint64 elapsed_us;
    gint64 latency_us;
    gint64 connect_us;
    gint64 tls_us;
    guint64 bytes_sent;
    guint64 bytes_received;
    guint32 scenario;
    guint32 step;
    guint32 user;
    guint32 iteration32;
    gint32 status;
    ThrongErrorClass error;
    guint16 connections_opened;
    guint16 handshakes_full;
    guint16 handshakes_resumed;
    guint16 retries;
    const char *message;
    const char *resource;
    gint64 wall_start_us;
    guint64 iteration;
    /*< private >*/
    gpointer owner;
    /*< public >*/
    const char *protocol;
    guint32 flags;
    /*< private >*/
    guint32 reserved32;
} ThrongSample;

/**
 * ThrongSampleFlags:
 * @THRONG_SAMPLE_NOT_SENT: the step's request never went out: set exactly
 *   when the class is %THRONG_ERROR_VARIABLE (on a group's sample: one of
 *   its requests was not sent).  Not a request, but an error of the plan's
 * @THRONG_SAMPLE_RETRY: the sample is an attempt that the step's `retry:`
 *   made after a failed one (docs/journeys.md), not the step's first
 *
 * What the core states about a sample besides its figures, in
 * #ThrongSample.flags.  Values are only ever appended.
 *
 * Since: 0.5
 */
typedef enum {
    THRONG_SAMPLE_NOT_SENT = 1 << 0,
    THRONG_SAMPLE_RETRY = 1 << 1,
} ThrongSampleFlags;

/**
 * THRONG_SAMPLE_MESSAGE_MAX:
 *
 * The longest message, in bytes without the terminating NUL, that
 * throng_sample_set_message() keeps; longer text is cut at the last whole
 * UTF-8 character that fits.
 *
 * Since: 0.2
 */
#define THRONG_SAMPLE_MESSAGE_MAX 1024

/**
 * throng_sample_set_message:
 * @sample: the sample the core passed to `step_run`, before
 *   throng_user_step_done()
 * @message: (nullable): the text (a server's error text, a #GError's
 *   message); NULL clears @sample's message
 *
 * Sets @sample's message to a copy of @message, cut to
 * %THRONG_SAMPLE_MESSAGE_MAX bytes on a UTF-8 character boundary.  The
 * plugin may free or reuse @message as soon as this returns.
 *
 * The lifetime rule: the copy belongs to the core.  It stays valid for
 * the plugin until it calls throng_user_step_done(); a reporter that
 * receives the sample in its `samples` hook may read it for the duration
 * of that call (the batch owns the copy and frees it with itself), like
 * every other field.  Nobody frees it.  Assigning @sample->message
 * directly stays right for strings that outlive the run (static, or owned
 * by the step or scenario data); text that changes per request goes
 * through this call.
 *
 * Costs nothing when not called; when called, one bounded copy and no
 * allocation per request once the run is warm.  Call it only on the
 * user's worker thread, from `step_run` or a callback of the step.
 *
 * Since: 0.2
 */
THRONG_API void throng_sample_set_message (ThrongSample *sample, const char *message);

G_END_DECLS
