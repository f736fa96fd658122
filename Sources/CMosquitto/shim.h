#ifndef CMOSQUITTO_SHIM_H
#define CMOSQUITTO_SHIM_H
/* libmosquitto (Debian's libmosquitto-dev). Its API has no variadics, so Swift calls it
   directly; this header only exists to give the module one umbrella. */
#include <mosquitto.h>
#endif
