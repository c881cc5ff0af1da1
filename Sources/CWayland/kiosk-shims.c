#define _GNU_SOURCE
#include "kiosk-shims.h"
#include <wayland-client.h>
#include "xdg-shell-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "idle-inhibit-unstable-v1-client-protocol.h"
#include "xdg-decoration-unstable-v1-client-protocol.h"
#include "wlr-output-power-management-unstable-v1-client-protocol.h"
#include "wlr-output-management-unstable-v1-client-protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>

const struct wl_interface *kiosk_wl_compositor_interface(void) { return &wl_compositor_interface; }
const struct wl_interface *kiosk_wl_shm_interface(void) { return &wl_shm_interface; }
const struct wl_interface *kiosk_wl_seat_interface(void) { return &wl_seat_interface; }
const struct wl_interface *kiosk_wl_output_interface(void) { return &wl_output_interface; }
const struct wl_interface *kiosk_xdg_wm_base_interface(void) { return &xdg_wm_base_interface; }
const struct wl_interface *kiosk_wp_presentation_interface(void) { return &wp_presentation_interface; }
const struct wl_interface *kiosk_zwp_idle_inhibit_manager_v1_interface(void) { return &zwp_idle_inhibit_manager_v1_interface; }
const struct wl_interface *kiosk_zwlr_output_power_manager_v1_interface(void) { return &zwlr_output_power_manager_v1_interface; }
const struct wl_interface *kiosk_zwlr_output_manager_v1_interface(void) { return &zwlr_output_manager_v1_interface; }
const struct wl_interface *kiosk_zxdg_decoration_manager_v1_interface(void) { return &zxdg_decoration_manager_v1_interface; }

int kiosk_shm_create(const char *name, size_t size)
{
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -1;
    int r;
    do {
        r = ftruncate(fd, (off_t)size);
    } while (r < 0 && errno == EINTR);
    if (r < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    /* The pages now, in one call: the buffer is drawn whole on first use anyway, this costs
     * less CPU than allocating them one page fault at a time (with `MADV_POPULATE_WRITE` in
     * `ShmBuffer.prefault`, ~20 % less for 1920x1080), and memory that is not there is an
     * error here rather than a SIGBUS in the middle of a frame. */
    do {
        r = fallocate(fd, 0, 0, (off_t)size);
    } while (r < 0 && errno == EINTR);
    if (r < 0 && errno != EOPNOTSUPP) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    /* Sealing is a safety net, not a requirement: an old kernel without seals still works. */
    (void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL);
    return fd;
}

int kiosk_timerfd_create(void)
{
    return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
}

int kiosk_timerfd_arm_absolute(int fd, uint64_t deadline_ns)
{
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    /* An all-zero it_value disarms; a deadline in the past must still fire, so use 1 ns. */
    if (deadline_ns == 0) {
        return timerfd_settime(fd, 0, &spec, NULL);
    }
    spec.it_value.tv_sec = (time_t)(deadline_ns / 1000000000ull);
    spec.it_value.tv_nsec = (long)(deadline_ns % 1000000000ull);
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0)
        spec.it_value.tv_nsec = 1;
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

uint64_t kiosk_timerfd_drain(int fd)
{
    uint64_t count = 0;
    if (read(fd, &count, sizeof count) != sizeof count)
        return 0;
    return count;
}

int kiosk_signalfd_create(void)
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGUSR1);
    if (pthread_sigmask(SIG_BLOCK, &mask, NULL) != 0)
        return -1;
    return signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
}

int kiosk_signalfd_read(int fd)
{
    struct signalfd_siginfo info;
    if (read(fd, &info, sizeof info) != sizeof info)
        return 0;
    return (int)info.ssi_signo;
}
