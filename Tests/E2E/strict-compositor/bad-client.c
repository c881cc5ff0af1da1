/*
 * bad-client: a Wayland client that makes one mistake on purpose, so the tests can show that
 * the strict compositor catches each kind (a check that cannot fail proves nothing).
 *
 * Usage: bad-client MISTAKE   (with WAYLAND_DISPLAY set)
 *   stale        damages a corner but changes the picture elsewhere too
 *   busy-write   draws into a buffer the compositor still holds
 *   reattach     attaches a buffer the compositor has not released
 *   early        commits a buffer before acking the first configure
 *   no-ack       never acks the configure
 *   small        fills less than the configured fullscreen size
 *   odd-scale    a buffer whose size is not divisible by its scale
 *   leak         keeps creating buffers
 *   good         makes no mistake (the control)
 * It runs about a second and exits 0; the compositor's report says what it saw.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <wayland-client.h>
#include "xdg-shell-client-protocol.h"

static struct wl_compositor *compositor;
static struct wl_shm *shm;
static struct xdg_wm_base *wm;
static uint32_t cfg_serial;
static int32_t cfg_w, cfg_h;
static int configured;

struct buf {
    struct wl_buffer *b;
    uint32_t *px;
    int w, h;
};

static void global(void *d, struct wl_registry *r, uint32_t name, const char *iface, uint32_t v)
{
    if (!strcmp(iface, "wl_compositor")) compositor = wl_registry_bind(r, name, &wl_compositor_interface, 4);
    else if (!strcmp(iface, "wl_shm")) shm = wl_registry_bind(r, name, &wl_shm_interface, 1);
    else if (!strcmp(iface, "xdg_wm_base")) wm = wl_registry_bind(r, name, &xdg_wm_base_interface, 1);
}
static void global_remove(void *d, struct wl_registry *r, uint32_t name) {}
static const struct wl_registry_listener registry_listener = {global, global_remove};

static void ping(void *d, struct xdg_wm_base *w, uint32_t serial) { xdg_wm_base_pong(w, serial); }
static const struct xdg_wm_base_listener wm_listener = {ping};

static void surface_configure(void *d, struct xdg_surface *s, uint32_t serial) { cfg_serial = serial; configured = 1; }
static const struct xdg_surface_listener xdg_surface_listener = {surface_configure};

static void top_configure(void *d, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *st)
{
    cfg_w = w > 0 ? w : 640;
    cfg_h = h > 0 ? h : 480;
}
static void top_close(void *d, struct xdg_toplevel *t) {}
static void top_bounds(void *d, struct xdg_toplevel *t, int32_t w, int32_t h) {}
static void top_caps(void *d, struct xdg_toplevel *t, struct wl_array *a) {}
static const struct xdg_toplevel_listener top_listener = {top_configure, top_close, top_bounds, top_caps};

static struct buf make_buffer(int w, int h, uint32_t color)
{
    struct buf b = {.w = w, .h = h};
    size_t size = (size_t)w * h * 4;
    int fd = memfd_create("bad-client", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)size) < 0) exit(3);
    b.px = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    for (size_t i = 0; i < size / 4; i++) b.px[i] = color;
    struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, (int32_t)size);
    b.b = wl_shm_pool_create_buffer(pool, 0, w, h, w * 4, WL_SHM_FORMAT_XRGB8888);
    wl_shm_pool_destroy(pool);
    close(fd);
    return b;
}

static void show(struct wl_surface *s, struct buf *b, int x, int y, int w, int h)
{
    wl_surface_attach(s, b->b, 0, 0);
    wl_surface_damage_buffer(s, x, y, w, h);
    wl_surface_commit(s);
}

int main(int argc, char **argv)
{
    const char *mistake = argc > 1 ? argv[1] : "good";
    struct wl_display *d = wl_display_connect(NULL);
    if (!d) { fprintf(stderr, "bad-client: no display\n"); return 2; }
    struct wl_registry *reg = wl_display_get_registry(d);
    wl_registry_add_listener(reg, &registry_listener, NULL);
    wl_display_roundtrip(d);
    if (!compositor || !shm || !wm) return 2;
    xdg_wm_base_add_listener(wm, &wm_listener, NULL);
    struct wl_surface *surface = wl_compositor_create_surface(compositor);
    struct xdg_surface *xs = xdg_wm_base_get_xdg_surface(wm, surface);
    xdg_surface_add_listener(xs, &xdg_surface_listener, NULL);
    struct xdg_toplevel *top = xdg_surface_get_toplevel(xs);
    xdg_toplevel_add_listener(top, &top_listener, NULL);
    xdg_toplevel_set_fullscreen(top, NULL);
    if (!strcmp(mistake, "early")) {
        struct buf b = make_buffer(64, 64, 0xff102030);
        show(surface, &b, 0, 0, 64, 64);
        wl_display_roundtrip(d);
        return 0;
    }
    wl_surface_commit(surface);
    while (!configured && wl_display_dispatch(d) >= 0) {}
    if (!strcmp(mistake, "no-ack")) {
        sleep(2);
        wl_display_roundtrip(d);
        return 0;
    }
    xdg_surface_ack_configure(xs, cfg_serial);
    int w = cfg_w, h = cfg_h;
    if (!strcmp(mistake, "small")) { w -= 10; h -= 10; }
    if (!strcmp(mistake, "odd-scale")) { wl_surface_set_buffer_scale(surface, 2); w = cfg_w * 2 + 1; h = cfg_h * 2; }
    struct buf a = make_buffer(w, h, 0xff102030), b = make_buffer(w, h, 0xff102030);
    show(surface, &a, 0, 0, w, h);
    wl_display_roundtrip(d);
    if (!strcmp(mistake, "stale")) {
        for (int i = 0; i < w * h; i++) b.px[i] = 0xff405060; /* all changed ... */
        show(surface, &b, 0, 0, 16, 16);                       /* ... but only a corner damaged */
    } else if (!strcmp(mistake, "busy-write")) {
        a.px[w * 5 + 7] = 0xffffffff; /* a is on screen and held */
        show(surface, &b, 0, 0, w, h); /* replaced: the compositor checks a as it releases it */
    } else if (!strcmp(mistake, "reattach")) {
        a.px[0] = 0xff000000;
        show(surface, &a, 0, 0, 1, 1);
    } else if (!strcmp(mistake, "leak")) {
        for (int i = 0; i < 12; i++) {
            struct buf n = make_buffer(w, h, 0xff102030);
            show(surface, &n, 0, 0, w, h);
        }
    } else {
        show(surface, &b, 0, 0, w, h);
    }
    wl_display_roundtrip(d);
    usleep(300 * 1000);
    wl_display_roundtrip(d);
    return 0;
}
