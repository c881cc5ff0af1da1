#pragma once
#include <stdint.h>
#include <stddef.h>
#include <signal.h>

struct wl_interface;

/* Interface descriptors by address. Swift would copy an imported C global into a temporary, and
 * a pointer to that copy can dangle in -O builds; these return the real symbol's address. */
const struct wl_interface *kiosk_wl_compositor_interface(void);
const struct wl_interface *kiosk_wl_shm_interface(void);
const struct wl_interface *kiosk_wl_seat_interface(void);
const struct wl_interface *kiosk_wl_output_interface(void);
const struct wl_interface *kiosk_xdg_wm_base_interface(void);
const struct wl_interface *kiosk_wp_presentation_interface(void);
const struct wl_interface *kiosk_zwp_idle_inhibit_manager_v1_interface(void);
const struct wl_interface *kiosk_zwlr_output_power_manager_v1_interface(void);
const struct wl_interface *kiosk_zwlr_output_manager_v1_interface(void);
const struct wl_interface *kiosk_zxdg_decoration_manager_v1_interface(void);

/* An anonymous shared-memory file of `size` bytes for wl_shm: memfd with CLOEXEC, grown to size,
 * its pages allocated, and sealed against shrinking so the compositor's mapping can never
 * SIGBUS. Returns -1 with errno set on failure (ENOSPC, ENOMEM: no memory for the pages). */
int kiosk_shm_create(const char *name, size_t size);

/* CLOCK_MONOTONIC timerfd (non-blocking, cloexec). */
int kiosk_timerfd_create(void);
/* Arm it to fire once at an absolute CLOCK_MONOTONIC time in nanoseconds; 0 disarms. */
int kiosk_timerfd_arm_absolute(int fd, uint64_t deadline_ns);
/* Read and discard the expiration count; returns the count (0 if nothing was pending). */
uint64_t kiosk_timerfd_drain(int fd);

/* Blocks SIGTERM, SIGINT and SIGHUP in this thread (call before any thread starts, so every
 * thread inherits the mask) and returns a non-blocking signalfd for them, or -1. */
int kiosk_signalfd_create(void);
/* Reads one pending signal from the signalfd: its number, or 0 when none is pending. */
int kiosk_signalfd_read(int fd);

