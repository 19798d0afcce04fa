/* SPDX-License-Identifier: MIT */
/*
 * Names of the error classes, as reporters print them.  Stable: CSV files
 * and thresholds refer to them.
 */
#include <throng/sample.h>

static const char *const class_names[] = {
    [THRONG_ERROR_NONE] = "none",
    [THRONG_ERROR_CONNECT] = "connect",
    [THRONG_ERROR_DNS] = "dns",
    [THRONG_ERROR_TLS] = "tls",
    [THRONG_ERROR_CERTIFICATE] = "certificate",
    [THRONG_ERROR_TIMEOUT] = "timeout",
    [THRONG_ERROR_RESET] = "reset",
    [THRONG_ERROR_PROTOCOL] = "protocol",
    [THRONG_ERROR_STATUS] = "status",
    [THRONG_ERROR_BODY_LIMIT] = "body-limit",
    [THRONG_ERROR_OTHER] = "other",
};

const char *
throng_error_class_name (ThrongErrorClass error_class)
{
    if ((guint) error_class >= G_N_ELEMENTS (class_names) || class_names[error_class] == NULL)
        return "other";
    return class_names[error_class];
}
