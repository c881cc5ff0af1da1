#ifndef KIOSK_CVERSION_H
#define KIOSK_CVERSION_H
/* The kiosk's version, as a NUL-terminated string in the binary's own `.kiosk_version` section
 * (32 bytes), so that a build can be stamped with another version without compiling again
 * (`objcopy --update-section`: the booted tests' newer and broken releases). */
const char *kiosk_version(void);
#endif
