/* SPDX-License-Identifier: MIT */
/*
 * Version numbers of the throng SDK, and the plugin ABI number.
 *
 * Two numbers, two meanings.  THRONG_VERSION_* is the release of throng
 * the headers come from; a plugin may print it, nothing checks it.
 * THRONG_ABI_VERSION is the number the registry compares, at load time,
 * with the `abi` field of a plugin's descriptor: equal, or the plugin is
 * refused ("PATH: plugin ABI 2, throng expects 1").  The `1` in
 * `throng-1.pc`, `<includedir>/throng-1/` and `<libdir>/throng-1/` is the
 * SDK's major version, which changes with the ABI number.
 *
 * What changes THRONG_ABI_VERSION: anything that would make an already
 * built plugin misbehave —
 *   - a field of a public struct removed, moved, resized or retyped
 *     (ThrongPluginDescriptor, ThrongProtocol, ThrongReporter, ThrongSample,
 *     ThrongStats, ThrongSummary and the structs it holds, ThrongRunInfo,
 *     ThrongScenarioSetup, ThrongOption); the size of ThrongSample too,
 *     since a reporter walks arrays of it;
 *   - a function's signature or meaning changed, or a function removed;
 *   - an enum value renumbered, or the meaning of a value changed;
 *   - a hook that was optional made required.
 * What does not: appending a hook at the end of a vtable (the core calls
 * it only when the plugin's `size` covers it), appending a field at the
 * end of a struct that begins with `size` (a plugin reads it only when
 * `size` covers it), taking a `reserved` slot, appending an enum value
 * (readers treat unknown values as the documented fallback), adding a
 * function.  Those are minor releases: a plugin built against 0.1 keeps
 * loading into every later throng of the same ABI.  Code on either side
 * tests an appended field or hook with THRONG_STRUCT_HAS() before using it.
 *
 * ThrongOption has no `size` of its own, and a plugin hands the core whole
 * arrays of it, so it grows by a different route: the option functions
 * take the entry size the plugin was built with.  throng_options_apply(),
 * throng_options_clear() and throng_options_copy_strings() are macros over
 * the `_sized` functions that pass sizeof (ThrongOption); a plugin built
 * against 0.1 calls the functions of those names, which walk its tables
 * with the 0.1 entry size.  Either way a field appended to ThrongOption
 * (`clear` and `copy` in 0.2) is read only when the entry size covers it,
 * so appending one is a minor release too; moving or retyping one is not.
 */
#pragma once

#include <stddef.h>

/**
 * THRONG_VERSION_MAJOR:
 *
 * The major version of the throng release these headers belong to.
 *
 * Since: 0.1
 */
#define THRONG_VERSION_MAJOR 0
/**
 * THRONG_VERSION_MINOR:
 *
 * The minor version of the throng release these headers belong to.
 *
 * Since: 0.1
 */
#define THRONG_VERSION_MINOR 5
/**
 * THRONG_VERSION_MICRO:
 *
 * The micro version of the throng release these headers belong to.
 *
 * Since: 0.1
 */
#define THRONG_VERSION_MICRO 0
/**
 * THRONG_VERSION_STRING:
 *
 * "MAJOR.MINOR.MICRO", as `throng --version` prints it.  A plugin that
 * has no version of its own may use it as its descriptor's `version`.
 *
 * Since: 0.1
 */
#define THRONG_VERSION_STRING "0.5.0"

/**
 * THRONG_ABI_VERSION:
 *
 * The plugin ABI this SDK describes.  A plugin stores it in its
 * descriptor's `abi` field (as built); the registry refuses a plugin
 * whose number differs from its own, naming the file and both numbers.
 * See the top of this file for what changes it and what does not.
 *
 * Since: 0.1
 */
#define THRONG_ABI_VERSION 1

/**
 * THRONG_API:
 *
 * Marks the functions the `throng` executable exports to plugins.  A
 * plugin does not link any throng library: these symbols are resolved
 * against the executable when the plugin is loaded.
 *
 * Since: 0.1
 */
#if defined(__GNUC__)
#define THRONG_API __attribute__ ((visibility ("default")))
#else
#define THRONG_API
#endif

/**
 * THRONG_STRUCT_END:
 * @type: a struct type
 * @field: one of its fields
 *
 * How large a @type must be to carry @field: the field's offset plus its
 * size.
 *
 * Since: 0.2
 */
#define THRONG_STRUCT_END(type, field) (offsetof (type, field) + sizeof (((type *) 0)->field))

/**
 * THRONG_STRUCT_HAS:
 * @pointer: a struct that begins with `size`, its size as its builder was
 *   compiled (#ThrongSummary, #ThrongRunInfo, a vtable …)
 * @type: the struct's type
 * @field: the field to test
 *
 * Whether the struct at @pointer, built by an older or newer throng or
 * plugin, carries @field.  Read a field appended after 0.1 only when this
 * is true: `if (THRONG_STRUCT_HAS (run, ThrongRunInfo, quiet) && run->quiet)`.
 *
 * Since: 0.2
 */
#define THRONG_STRUCT_HAS(pointer, type, field)                                                   \
    ((size_t) (pointer)->size >= THRONG_STRUCT_END (type, field))
