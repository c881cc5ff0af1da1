#ifndef KIOSK_CSESSION_H
#define KIOSK_CSESSION_H
/* What `kiosk session` needs below Swift: starting a compositor as another user (optionally in a
 * PAM session), signals as a file descriptor, the DRM capability query. */
#include <stdint.h>
#include <sys/types.h>

/* Who the child becomes; NULL fields or a NULL pointer: stay as the caller. */
struct kiosk_identity {
    const char *user;        /* switch to this user (initgroups, setgid, setuid, HOME) */
    const char *pam_service; /* open a PAM session first (pam_systemd: a logind session) */
    const char *tty;         /* the session's terminal, "ttyN" only, given to the user */
};

/* fork + exec of `path` with `argv`/`envp` (NULL-terminated), every descriptor above stderr
 * closed. The child starts with no signals blocked; as `who` (its groups, then its ids) it gets
 * SIGTERM when its parent dies, the death signal set after the change of ids, which clears it.
 * When `who` names a PAM service, the child is the session's keeper: the user's groups, then
 * PAM's credentials (a module's groups kept), the session opened, then `path` run as the user
 * in a child of its own with the session's environment (XDG_SESSION_ID…; not its
 * XDG_RUNTIME_DIR) added to `envp`; SIGTERM/SIGINT/SIGHUP wait until they can be passed on to it; the session is closed
 * when it ends and the keeper exits with its status. Returns the pid, or -1 with errno. A child
 * that cannot become `who` or exec writes one line to stderr and exits 127. */
pid_t kiosk_session_spawn(const char *path, char *const argv[], char *const envp[],
                          const struct kiosk_identity *who);

/* Blocks SIGTERM, SIGINT, SIGHUP, SIGABRT and SIGCHLD and returns a non-blocking signalfd for
 * them, or -1. */
int kiosk_session_signalfd(void);
/* The next signal number from the signalfd, or 0 when none is pending. */
int kiosk_session_signalfd_read(int fd);

/* Orphaned descendants are re-parented to this process (so it can reap and stop them). */
int kiosk_session_set_subreaper(void);

/* DRM_CAP_PRIME of an open DRM device: bit 1 import, bit 2 export; -1 with errno on failure. */
int kiosk_drm_prime_caps(int fd, uint64_t *caps);
/* The DRM driver's name ("virtio_gpu", "bochs-drm", "i915"…) into `buf`; -1 with errno. */
int kiosk_drm_driver_name(int fd, char *buf, size_t size);
/* How many display connectors an open DRM device drives (0 when it has no CRTC to drive them),
 * or -1 with errno when it does no mode setting at all: a render-only device (v3d, vgem). */
int kiosk_drm_connector_count(int fd);

/* A datagram socket bound to the abstract name `name` (no leading NUL), receiving the sender's
 * credentials; -1 with errno. */
int kiosk_session_notify_socket(const char *name);
/* Receives one datagram into `buf` (NUL-terminated); the sender's uid goes to `uid` (or -1 when
 * no credentials came). Returns its length, or -1 (EAGAIN when none is waiting). */
ssize_t kiosk_session_notify_receive(int fd, char *buf, size_t size, int64_t *uid);
/* Sends `len` bytes to the notification socket `address` ("/path" or "@abstract"); -1 on error. */
int kiosk_session_notify_send(const char *address, const char *data, size_t len);

/* The screen's power outside Wayland (kiosk-session --screen), through the kernel's devices. */
/* DDC/CI's Set VCP Feature message after the host's 0x51: length, opcode, feature, value,
 * checksum (6 bytes into `out`). */
int kiosk_ddc_set_vcp_message(uint8_t feature, uint16_t value, uint8_t out[6]);
/* Sets a monitor's VCP `feature` to `value` over the i2c-dev `device` (/dev/i2c-N); 0 or -errno
 * (ENXIO or EREMOTEIO: nothing answered at 0x37). */
int kiosk_ddc_set_vcp(const char *device, uint8_t feature, uint16_t value);
/* HDMI-CEC through the CEC adapter `device` (/dev/cecN): Standby to the TV, or Image View On
 * and Active Source. Claims a playback device's logical address when the adapter has none.
 * The adapter's physical address goes to `physical_address`; 0 or -errno (ENOTCONN: no display
 * on the connector; EHOSTUNREACH: no TV acknowledged). */
int kiosk_cec_set_tv_power(const char *device, int on, uint16_t *physical_address);

/* The console's keymap (the kernel's translation of keys on a text console): entry `index` of
 * modifier table `table`, as KDGKBENT/KDSKBENT give it (K(type, value)); 0 or -errno. */
int kiosk_console_keymap_get(int fd, uint8_t table, uint8_t index, uint16_t *value);
int kiosk_console_keymap_set(int fd, uint8_t table, uint8_t index, uint16_t value);
/* VT_LOCKSWITCH (locked) or VT_UNLOCKSWITCH: whether any console switch happens at all, by key
 * or by ioctl; needs CAP_SYS_TTY_CONFIG. 0 or -errno. */
int kiosk_console_lock_switching(int fd, int locked);

/* Drops every capability but `capability` from the bounding set: what this process execs next
 * (root's programs too) has at most that one; 0 or -errno. */
int kiosk_bounding_set_keep_only(int capability);

#endif
