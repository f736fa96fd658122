#ifndef COSC_SHIM_H
#define COSC_SHIM_H
/* liblo (Debian's liblo-dev). Only its non-variadic calls are used (lo_message_add_int32 and
   friends, lo_message_deserialise, lo_send_message), so this header is the module's umbrella. */
#include <lo/lo.h>
#include <lo/lo_lowlevel.h>
#endif
