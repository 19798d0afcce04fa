/* SPDX-License-Identifier: MIT */
#include <glib.h>
int
main (int argc, char **argv)
{
    return 0;
}
