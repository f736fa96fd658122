#ifndef CQRENCODE_SHIM_H
#define CQRENCODE_SHIM_H
/* libqrencode (Debian's libqrencode-dev): QRcode_encodeString and QRcode_free. */
#include <qrencode.h>
#endif
