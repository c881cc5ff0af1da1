#define _GNU_SOURCE
#include "CSession.h"

#include <errno.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <sys/ioctl.h>

/* ---- The console: its keymap and its switching (kiosk-session --lock-keys, --audit) -------- */

int kiosk_console_keymap_get(int fd, uint8_t table, uint8_t index, uint16_t *value) {
    struct kbentry entry = {.kb_table = table, .kb_index = index, .kb_value = 0};
    if (ioctl(fd, KDGKBENT, &entry) < 0) return -errno;
    *value = entry.kb_value;
    return 0;
}

int kiosk_console_keymap_set(int fd, uint8_t table, uint8_t index, uint16_t value) {
    struct kbentry entry = {.kb_table = table, .kb_index = index, .kb_value = value};
    return ioctl(fd, KDSKBENT, &entry) < 0 ? -errno : 0;
}

int kiosk_console_lock_switching(int fd, int locked) {
    return ioctl(fd, locked ? VT_LOCKSWITCH : VT_UNLOCKSWITCH, 0) < 0 ? -errno : 0;
}

/* ---- Capabilities ---------------------------------------------------------------------------- */
#include <sys/prctl.h>
#include <linux/capability.h>

int kiosk_bounding_set_keep_only(int capability) {
    for (int c = 0; c <= CAP_LAST_CAP; c++) {
        if (c != capability && prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1 && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0) return -errno;
    }
    return 0;
}
