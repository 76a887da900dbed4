/* Macros every module uses. */
#ifndef VMB_MACRO_H
#define VMB_MACRO_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
