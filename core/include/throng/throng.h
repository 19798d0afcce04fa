/* SPDX-License-Identifier: MIT */
/* The umbrella header of the throng plugin SDK. */
#pragma once

#include <throng/version.h>
#include <throng/sample.h>
#include <throng/histogram.h>
#include <throng/node.h>
#include <throng/options.h>
#include <throng/user.h>
#include <throng/summary.h>
#include <throng/protocol.h>
#include <throng/reporter.h>
#include <throng/plugin.h>
