// libqrencode (Debian: libqrencode-dev), which draws the QR codes of TOTP enrollments.
#include <qrencode.h>
