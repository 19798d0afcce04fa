/* SPDX-License-Identifier: MIT */
/*
 * `throng __complete` (complete.h): commands from main.c's table, a
 * command's options from its own --help, plugin names from the plugins
 * this executable finds, as `throng plugins` lists them.
 */
#include "complete.h"

#include "registry.h"

#include <string.h>

static int
print_commands (const ThrongCliCommand *commands)
{
    for (const ThrongCliCommand *c = commands; c->name != NULL; c++) {
        /* "import har": the first word is what is typed first. */
        g_autofree char *word = g_strndup (c->name, strcspn (c->name, " "));
        g_print ("%s\t%s\n", word, c->summary);
    }
    return THRONG_EXIT_OK;
}

static int
print_options (const char *name, const ThrongCliCommand *commands)
{
    for (const ThrongCliCommand *c = commands; c->name != NULL; c++) {
        gsize first = strcspn (c->name, " ");

        /* "import har", or "import" alone. */
        if (strcmp (c->name, name) != 0
            && (strncmp (c->name, name, first) != 0 || name[first] != '\0'))
            continue;

        g_autoptr (GError) error = NULL;
        g_autoptr (ThrongUsage) usage = throng_usage_read (c, &error);
        if (usage == NULL) {
            g_printerr ("throng: %s\n", error->message);
            return THRONG_EXIT_NOT_WRITTEN;
        }
        for (guint i = 0; i < usage->options->len; i++) {
            const ThrongUsageOption *option = g_ptr_array_index (usage->options, i);
            g_print ("--%s\t%s\n", option->long_name, option->description);
            if (option->short_name != '\0')
                g_print ("-%c\t%s\n", option->short_name, option->description);
        }
        g_print ("--help\tShow help options\n");
        return THRONG_EXIT_OK;
    }
    return THRONG_EXIT_USAGE;
}

static int
print_plugins (ThrongPluginKind kind)
{
    g_autoptr (ThrongRegistry) registry = throng_registry_new ();
    g_autoptr (GPtrArray) infos = throng_registry_scan (registry);
    g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

    for (guint i = 0; i < infos->len; i++) {
        const ThrongPluginInfo *info = g_ptr_array_index (infos, i);

        /* The first of two of one name is the one a plan gets. */
        if (info->error != NULL || info->kind != kind || !g_hash_table_add (seen, info->name))
            continue;
        g_print ("%s\t%s %s\n", info->name,
                 kind == THRONG_PLUGIN_KIND_PROTOCOL ? "protocol" : "reporter", info->version);
    }
    return THRONG_EXIT_OK;
}

int
throng_complete_command (int argc, char **argv, const ThrongCliCommand *commands)
{
    const char *what = argc > 1 ? argv[1] : "";

    if (argc == 2 && strcmp (what, "commands") == 0)
        return print_commands (commands);
    if (argc == 3 && strcmp (what, "options") == 0)
        return print_options (argv[2], commands);
    if (argc == 2 && strcmp (what, "reporters") == 0)
        return print_plugins (THRONG_PLUGIN_KIND_REPORTER);
    if (argc == 2 && strcmp (what, "protocols") == 0)
        return print_plugins (THRONG_PLUGIN_KIND_PROTOCOL);
    g_printerr ("throng: __complete commands|options COMMAND|reporters|protocols\n");
    return THRONG_EXIT_USAGE;
}
