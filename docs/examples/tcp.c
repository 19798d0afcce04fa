/* SPDX-License-Identifier: MIT */
/*
 * tcp: an example throng protocol plugin, built outside the throng tree
 * against the installed SDK only (docs/plugins.md walks through it).
 *
 * A step connects to host:port, writes one line, reads one reply line and
 * completes its sample with the bytes, the connect time and, on failure,
 * an error class.  Everything happens asynchronously on the user's worker
 * context, with one deadline per step; nothing here ever blocks.
 *
 *   defaults: { tcp: { host: 127.0.0.1, port: 7000, timeout: 2s } }
 *   scenarios:
 *     - users: 10
 *       tcp: { keep_alive: true }          # one connection per user
 *       steps:
 *         - tcp: { send: PING, expect: PONG }
 *         - tcp: { send: "HELLO ${user.id} ${iteration}" }   # a template
 *
 * Build:
 *   cc -shared -fPIC -o libthrong-tcp.so tcp.c \
 *       $(pkg-config --cflags throng-1 gio-2.0) $(pkg-config --libs gio-2.0)
 */
#include <string.h>

#include <gio/gio.h>
#include <throng/throng.h>

/*
 * Every option of the plugin, read by one table from each layer in turn:
 * the plan's `defaults.tcp`, the scenario's `tcp`, the step's `tcp`.
 */
typedef struct {
    char *host;
    guint64 port;
    gint64 timeout; /* µs, for the whole step */
    gboolean keep_alive;
    char *send;
    char *expect;
    guint64 max_reply;
    ThrongScope *scope; /* not an option: the scenario's, for templates */
} TcpSettings;

static const ThrongOption tcp_options[] = {
    { .name = "host", .type = THRONG_OPTION_STRING, .offset = offsetof (TcpSettings, host) },
    { .name = "port", .type = THRONG_OPTION_UINT, .offset = offsetof (TcpSettings, port),
      .min = 1, .max = 65535 },
    { .name = "timeout", .type = THRONG_OPTION_DURATION, .offset = offsetof (TcpSettings, timeout),
      .min = 1000, .max = G_GINT64_CONSTANT (3600) * G_USEC_PER_SEC },
    /* Connection reuse is a property of the user, not of one step. */
    { .name = "keep_alive", .type = THRONG_OPTION_BOOL,
      .offset = offsetof (TcpSettings, keep_alive), .flags = THRONG_OPTION_FLAG_NOT_IN_STEP },
    { .name = "send", .type = THRONG_OPTION_STRING, .offset = offsetof (TcpSettings, send) },
    { .name = "expect", .type = THRONG_OPTION_STRING, .offset = offsetof (TcpSettings, expect) },
    { .name = "max_reply", .type = THRONG_OPTION_SIZE, .offset = offsetof (TcpSettings, max_reply),
      .min = 1, .max = 1 << 20 },
    { .name = NULL },
};

typedef struct {
    TcpSettings settings;
    char *line;     /* what is written: send + "\n", when send is plain text */
    gsize line_len;
    ThrongTemplate *send; /* else send as a template, expanded per step */
    char *resource; /* "host:port", the sample's resource */
} TcpStep;

typedef enum {
    STAGE_CONNECT,
    STAGE_WRITE,
    STAGE_READ,
} TcpStage;

/*
 * One virtual user.  Exactly one asynchronous call is in flight at a time
 * while a step runs; `in_flight` says so, and when user_free arrives
 * meanwhile it only marks the user `freed` and cancels: the call's
 * callback, which still holds a pointer to it, frees it.
 */
typedef struct {
    ThrongUser *user;
    GSocketClient *client;
    GCancellable *cancellable;
    ThrongTimer *deadline_timer; /* made once, re-armed for each step */
    gint64 deadline;
    GSocketConnection *connection; /* kept between steps with keep_alive */
    char *connected_to;            /* the resource `connection` is open to */

    const TcpStep *step; /* the running step, NULL between steps */
    ThrongSample *sample;
    TcpStage stage;
    gint64 connect_start;
    gboolean timed_out;
    gboolean in_flight;
    gboolean freed;

    char *buffer; /* the reply line, reused from step to step */
    gsize buffer_size;
    gsize received;
    GString *text; /* scratch for a message, reused: set_message copies it */
    GString *line; /* a templated send, expanded; reused */
} TcpUser;

/* --- plan load (main thread) -------------------------------------------- */

/*
 * Applies one layer, then checks what a table cannot express, located at
 * the value that this layer set.
 */
static gboolean
apply_layer (const ThrongNode *map, TcpSettings *settings, gboolean in_step, GError **error)
{
    const ThrongNode *send;

    if (!throng_options_apply (map, tcp_options, settings, in_step, "tcp options", error))
        return FALSE;
    send = map != NULL && throng_node_kind (map) == THRONG_NODE_MAP
               ? throng_node_lookup (map, "send")
               : NULL;
    if (send != NULL && settings->send != NULL && strpbrk (settings->send, "\r\n") != NULL) {
        throng_node_set_error (send, error, THRONG_PLAN_ERROR_INVALID,
                               "send must be one line, without a line break");
        return FALSE;
    }
    return TRUE;
}

static void
settings_free (TcpSettings *settings)
{
    throng_options_clear (tcp_options, settings);
    g_free (settings);
}

static gpointer
tcp_scenario_new (const ThrongScenarioSetup *setup, GError **error)
{
    TcpSettings *settings = g_new0 (TcpSettings, 1);

    settings->timeout = 5 * G_USEC_PER_SEC;
    settings->max_reply = 4096;
    /* templates came with SDK 0.3: an older throng has no scope */
    if (THRONG_STRUCT_HAS (setup, ThrongScenarioSetup, scope))
        settings->scope = setup->scope;
    if (!apply_layer (setup->defaults, settings, FALSE, error) ||
        !apply_layer (setup->options, settings, FALSE, error)) {
        settings_free (settings);
        return NULL;
    }
    return settings;
}

static void
tcp_scenario_free (gpointer scenario)
{
    settings_free (scenario);
}

static void
tcp_step_free (gpointer data)
{
    TcpStep *step = data;

    if (step == NULL)
        return;
    throng_options_clear (tcp_options, &step->settings);
    throng_template_free (step->send);
    g_free (step->line);
    g_free (step->resource);
    g_free (step);
}

static gpointer
tcp_step_new (gpointer scenario, const ThrongNode *options, char **label, GError **error)
{
    const TcpSettings *inherited = scenario;
    TcpStep *step = g_new0 (TcpStep, 1);
    const char *host;

    /* Start from the scenario's settings, owning copies of its strings. */
    step->settings = *inherited;
    throng_options_copy_strings (tcp_options, &step->settings);
    if (!apply_layer (options, &step->settings, TRUE, error)) {
        tcp_step_free (step);
        return NULL;
    }
    /* The last layer is where a missing port is reported. */
    if (step->settings.port == 0) {
        const char *text = "the tcp step needs a 'port' (in the step, the scenario's tcp options "
                           "or defaults.tcp)";

        if (options != NULL)
            throng_node_set_error (options, error, THRONG_PLAN_ERROR_MISSING, "%s", text);
        else
            g_set_error_literal (error, THRONG_PLAN_ERROR, THRONG_PLAN_ERROR_MISSING, text);
        tcp_step_free (step);
        return NULL;
    }
    host = step->settings.host != NULL ? step->settings.host : "127.0.0.1";
    /* The step's own send is a template: compiled now, every name checked. */
    const ThrongNode *send = options != NULL && throng_node_kind (options) == THRONG_NODE_MAP
                                 ? throng_node_lookup (options, "send")
                                 : NULL;
    const char *text = step->settings.send != NULL ? step->settings.send : "ping";
    if (send != NULL && step->settings.scope != NULL) {
        step->send = throng_template_compile (step->settings.scope, send, error);
        if (step->send == NULL) {
            tcp_step_free (step);
            return NULL;
        }
        if (throng_template_get_literal (step->send, NULL) != NULL) {
            /* no substitution: the line stays pre-built */
            text = throng_template_get_literal (step->send, NULL);
        } else {
            text = NULL;
        }
    }
    if (text != NULL) {
        step->line = g_strconcat (text, "\n", NULL);
        step->line_len = strlen (step->line);
        g_clear_pointer (&step->send, throng_template_free);
    }
    step->resource = strchr (host, ':') != NULL
                         ? g_strdup_printf ("[%s]:%u", host, (guint) step->settings.port)
                         : g_strdup_printf ("%s:%u", host, (guint) step->settings.port);
    *label = g_strconcat ("tcp ", step->resource, NULL);
    return step;
}

/* --- running (the user's worker thread; never blocks) ------------------- */

static ThrongErrorClass
classify (const GError *error, TcpStage stage, gboolean timed_out)
{
    if (timed_out)
        return THRONG_ERROR_TIMEOUT;
    if (error->domain == G_RESOLVER_ERROR)
        return THRONG_ERROR_DNS;
    if (error->domain == G_IO_ERROR) {
        switch (error->code) {
        case G_IO_ERROR_HOST_NOT_FOUND:
            return THRONG_ERROR_DNS;
        case G_IO_ERROR_TIMED_OUT:
            return THRONG_ERROR_TIMEOUT;
        case G_IO_ERROR_CONNECTION_REFUSED:
        case G_IO_ERROR_HOST_UNREACHABLE:
        case G_IO_ERROR_NETWORK_UNREACHABLE:
            return THRONG_ERROR_CONNECT;
        case G_IO_ERROR_CONNECTION_CLOSED: /* also G_IO_ERROR_BROKEN_PIPE */
            return THRONG_ERROR_RESET;
        default:
            break;
        }
    }
    return stage == STAGE_CONNECT ? THRONG_ERROR_CONNECT : THRONG_ERROR_OTHER;
}

static void
close_connection (TcpUser *self)
{
    /* Closing a socket's fd does not block (no SO_LINGER is set). */
    g_clear_object (&self->connection);
    g_clear_pointer (&self->connected_to, g_free);
}

static void
tcp_user_destroy (TcpUser *self)
{
    close_connection (self);
    g_clear_object (&self->client);
    g_clear_object (&self->cancellable);
    g_free (self->buffer);
    g_string_free (self->text, TRUE);
    g_string_free (self->line, TRUE);
    g_free (self);
}

/*
 * Ends the step.  throng_user_step_done() may run the user's next step, or
 * free the user, before it returns: it is the last thing done, and every
 * caller returns right after.
 */
static void
complete (TcpUser *self)
{
    ThrongUser *user = self->user;

    throng_timer_rearm (self->deadline_timer, -1);
    if (!self->step->settings.keep_alive)
        close_connection (self);
    self->step = NULL;
    self->sample = NULL;
    throng_user_step_done (user);
}

/*
 * A message that changes from request to request (a GError's text, the
 * reply) is copied into the sample batch with throng_sample_set_message():
 * reporters read samples later, on the main thread, after this user has
 * moved on.  Never point sample->message at the user's own memory.
 */
static void
fail (TcpUser *self, ThrongErrorClass error_class, const char *message)
{
    self->sample->error = error_class;
    throng_sample_set_message (self->sample, message);
    /* After a failure the connection's state is unknown: never reuse it. */
    close_connection (self);
    complete (self);
}

static void
fail_with (TcpUser *self, const GError *error)
{
    fail (self, classify (error, self->stage, self->timed_out),
          self->timed_out ? "tcp: timed out" : error->message);
}

/*
 * The prologue of every callback: returns FALSE when the user was freed
 * while the call was in flight (and frees it now).
 */
static gboolean
callback_begin (TcpUser *self)
{
    self->in_flight = FALSE;
    if (self->freed) {
        tcp_user_destroy (self);
        return FALSE;
    }
    return TRUE;
}

static void read_more (TcpUser *self);

static void
on_read (GObject *source, GAsyncResult *result, gpointer data)
{
    TcpUser *self = data;
    g_autoptr (GError) error = NULL;
    gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);
    const char *newline;

    if (!callback_begin (self))
        return;
    if (n < 0) {
        fail_with (self, error);
        return;
    }
    if (n == 0) {
        fail (self, THRONG_ERROR_RESET, "tcp: connection closed before the reply line");
        return;
    }
    if (self->sample->latency_us == 0)
        self->sample->latency_us = MAX (g_get_monotonic_time () - self->sample->start_us, 1);
    self->sample->bytes_received += (guint64) n;
    newline = memchr (self->buffer + self->received, '\n', (gsize) n);
    self->received += (gsize) n;
    if (newline == NULL) {
        if (self->received >= self->step->settings.max_reply) {
            fail (self, THRONG_ERROR_BODY_LIMIT, "tcp: reply line longer than max_reply");
            return;
        }
        read_more (self);
        return;
    }

    /*
     * The reply is the line; anything after it is not ours to interpret,
     * so a kept connection with leftovers is closed rather than misread.
     */
    gsize len = (gsize) (newline - self->buffer);
    const char *expect = self->step->settings.expect;

    if (newline + 1 != self->buffer + self->received)
        close_connection (self);
    if (len > 0 && self->buffer[len - 1] == '\r')
        len--;
    if (expect != NULL && (strlen (expect) != len || memcmp (expect, self->buffer, len) != 0)) {
        g_string_printf (self->text, "tcp: expected '%s' but the reply is '%.*s'", expect,
                         (int) len, self->buffer);
        self->sample->error = THRONG_ERROR_STATUS;
        throng_sample_set_message (self->sample, self->text->str);
    }
    complete (self);
}

static void
read_more (TcpUser *self)
{
    GInputStream *in = g_io_stream_get_input_stream (G_IO_STREAM (self->connection));

    self->stage = STAGE_READ;
    self->in_flight = TRUE;
    g_input_stream_read_async (in, self->buffer + self->received,
                               self->step->settings.max_reply - self->received, G_PRIORITY_DEFAULT,
                               self->cancellable, on_read, self);
}

static void
on_written (GObject *source, GAsyncResult *result, gpointer data)
{
    TcpUser *self = data;
    g_autoptr (GError) error = NULL;
    gsize written = 0;
    gboolean ok = g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, &written,
                                                    &error);

    if (!callback_begin (self))
        return;
    self->sample->bytes_sent += written;
    if (!ok) {
        fail_with (self, error);
        return;
    }
    self->received = 0;
    read_more (self);
}

static void
send_line (TcpUser *self)
{
    GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (self->connection));
    const char *line = self->step->line;
    gsize line_len = self->step->line_len;

    self->stage = STAGE_WRITE;
    if (self->step->send != NULL) {
        g_autoptr (GError) error = NULL;

        g_string_truncate (self->line, 0);
        if (!throng_template_expand (self->step->send, self->user, self->line, &error)) {
            /* an unset variable: nothing is sent */
            fail (self, THRONG_ERROR_VARIABLE, error->message);
            return;
        }
        g_string_append_c (self->line, '\n');
        line = self->line->str;
        line_len = self->line->len;
    }
    self->in_flight = TRUE;
    g_output_stream_write_all_async (out, line, line_len, G_PRIORITY_DEFAULT, self->cancellable,
                                     on_written, self);
}

static void
on_connected (GObject *source, GAsyncResult *result, gpointer data)
{
    TcpUser *self = data;
    g_autoptr (GError) error = NULL;
    GSocketConnection *connection
        = g_socket_client_connect_to_host_finish (G_SOCKET_CLIENT (source), result, &error);

    if (!callback_begin (self)) {
        g_clear_object (&connection);
        return;
    }
    self->sample->connect_us += g_get_monotonic_time () - self->connect_start;
    if (connection == NULL) {
        fail_with (self, error);
        return;
    }
    self->sample->connections_opened++;
    self->connection = connection;
    self->connected_to = g_strdup (self->step->resource);
    send_line (self);
}

/*
 * The step's deadline.  Cancelling makes the call in flight fail with
 * G_IO_ERROR_CANCELLED, which `timed_out` turns into a timeout; its
 * callback may run inside g_cancellable_cancel(), and complete the step,
 * so nothing of the user is touched after it.
 */
static void
on_deadline (G_GNUC_UNUSED ThrongTimer *timer, gpointer data)
{
    TcpUser *self = data;

    /* A timer that completion disarmed never fires; one that fires is
     * the current step's, whose deadline has passed. */
    if (self->step == NULL)
        return;
    self->timed_out = TRUE;
    g_cancellable_cancel (self->cancellable);
}

static gpointer
tcp_user_new (G_GNUC_UNUSED gpointer scenario, ThrongUser *user)
{
    TcpUser *self = g_new0 (TcpUser, 1);

    self->user = user;
    self->client = g_socket_client_new ();
    /* Loopback load needs no proxy, and asking the resolver about one costs a lookup per connect. */
    g_socket_client_set_enable_proxy (self->client, FALSE);
    self->cancellable = g_cancellable_new ();
    self->text = g_string_new (NULL);
    self->line = g_string_new (NULL);
    /* On the worker's reactor (<throng/watch.h>): a timer per user costs
     * nothing per loop iteration, where a GSource per user costs a walk. */
    self->deadline_timer = throng_user_add_timer (user, -1, on_deadline, self);
    return self;
}

static void
tcp_user_free (gpointer data)
{
    TcpUser *self = data;

    g_clear_pointer (&self->deadline_timer, throng_timer_cancel);
    if (!self->in_flight) {
        tcp_user_destroy (self);
        return;
    }
    /* The callback frees it, and never completes the step. */
    self->freed = TRUE;
    g_cancellable_cancel (self->cancellable);
}

static void
tcp_step_run (gpointer data, gpointer step_data, ThrongSample *sample)
{
    TcpUser *self = data;
    const TcpStep *step = step_data;

    self->step = step;
    self->sample = sample;
    self->timed_out = FALSE;
    /* A cancelled cancellable is replaced, not reset: resetting one whose
     * "cancelled" handlers are still on the stack would wait for them. */
    if (g_cancellable_is_cancelled (self->cancellable)) {
        g_object_unref (self->cancellable);
        self->cancellable = g_cancellable_new ();
    }
    if (self->buffer_size < step->settings.max_reply) {
        self->buffer = g_realloc (self->buffer, step->settings.max_reply);
        self->buffer_size = step->settings.max_reply;
    }
    sample->resource = step->resource;
    self->deadline = g_get_monotonic_time () + step->settings.timeout;
    throng_timer_rearm (self->deadline_timer, self->deadline);

    if (self->connection != NULL && g_strcmp0 (self->connected_to, step->resource) != 0)
        close_connection (self);
    if (self->connection != NULL) {
        send_line (self);
        return;
    }
    self->stage = STAGE_CONNECT;
    self->connect_start = g_get_monotonic_time ();
    self->in_flight = TRUE;
    /* GIO completes on the thread-default context: throng makes it the user's. */
    g_socket_client_connect_to_host_async (self->client,
                                           step->settings.host != NULL ? step->settings.host
                                                                       : "127.0.0.1",
                                           (guint16) step->settings.port, self->cancellable,
                                           on_connected, self);
}

/* --- registration --------------------------------------------------------- */

static const ThrongProtocol tcp_protocol = {
    .size = sizeof (ThrongProtocol),
    .name = "tcp",
    .scenario_new = tcp_scenario_new,
    .scenario_free = tcp_scenario_free,
    .step_new = tcp_step_new,
    .step_free = tcp_step_free,
    .user_new = tcp_user_new,
    .user_free = tcp_user_free,
    .step_run = tcp_step_run,
};

static gboolean
tcp_init (ThrongPluginHost *host, GError **error)
{
    return throng_plugin_host_register_protocol (host, &tcp_protocol, error);
}

static const ThrongPluginDescriptor tcp_descriptor = {
    .abi = THRONG_ABI_VERSION,
    .size = sizeof (ThrongPluginDescriptor),
    .name = "tcp",
    .version = "1.0",
    .description = "connect, send a line, read a reply line",
    .init = tcp_init,
};

THRONG_PLUGIN_DEFINE (tcp_descriptor)
