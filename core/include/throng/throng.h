/* SPDX-License-Identifier: MIT */
/*
 * The umbrella header of the throng plugin SDK: a plugin includes this
 * one header (`#include <throng/throng.h>`, with the flags of
 * `pkg-config --cflags throng-1`) and needs nothing else from throng.
 * docs/plugins.md is the guide; each header documents its part.
 */
#pragma once

#include <throng/version.h>
#include <throng/sample.h>
#include <throng/histogram.h>
#include <throng/node.h>
#include <throng/options.h>
#include <throng/user.h>
#include <throng/watch.h>
#include <throng/template.h>
#include <throng/summary.h>
#include <throng/journey.h>
#include <throng/runfile.h>
#include <throng/protocol.h>
#include <throng/reporter.h>
#include <throng/plugin.h>
