#include "kiosk_version.h"

/* The one place the version is written: `kiosk --version`, `kiosk-session --version`, the
 * Debian package and its changelog (made by `make deb`) all take it from here. Kept (`used`)
 * and read through a pointer, so neither the linker nor the optimiser folds a stamp away. */
__attribute__((used, section(".kiosk_version"), aligned(32)))
static const char stamped[32] = "0.2.0";

const char *kiosk_version(void) {
    const char *volatile p = stamped;
    return p;
}
