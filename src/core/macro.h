/* Macros every module uses. */
#ifndef VMB_MACRO_H
#define VMB_MACRO_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* A number macro as a string literal: one definition serves an option's default too. */
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

#endif
