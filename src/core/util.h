/* Umbrella header for the small helpers shared by every module. New code
 * includes the one it needs: parse.h, file.h, spawn.h, str.h, strv.h,
 * sys.h, stoppoint.h, macro.h. */
#ifndef VMB_UTIL_H
#define VMB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "file.h"
#include "macro.h"
#include "parse.h"
#include "spawn.h"
#include "stoppoint.h"
#include "str.h"
#include "strv.h"
#include "sys.h"

#endif
