/*
 * strict-compositor: a Wayland compositor for Kiosk's tests that is stricter than any real one.
 *
 * Real compositors forgive: weston's pixman renderer reads only the damaged part of a buffer, so
 * a client whose buffers are stale outside their damage looks fine under weston and broken under
 * wlroots. This one draws nothing; it keeps every surface's picture and checks every request a
 * client makes against the protocol and against what a careful client owes a compositor:
 *
 *   - buffer completeness: a commit of buffer B with damage D must leave the picture unchanged
 *     outside D (B equals the previous picture there), reported with the first differing pixel;
 *   - a buffer the compositor still holds is never attached again nor written to (checked
 *     against a copy taken at commit when it is released); at most 8 buffers alive at once;
 *   - every configure is acked, and followed by a commit, within --configure-timeout ms; no
 *     buffer before the first ack; acks of serials never sent are protocol errors;
 *   - buffer size divisible by the buffer scale; the surface fills the configured fullscreen
 *     size (smaller only where that size is past a kiosk's largest buffer), never exceeds it.
 *
 * and lets a test script what real compositors rarely do on demand: release buffers late or
 * never, withhold or delay frame callbacks, send configures of any size, add, change and remove
 * outputs (scale, mode, all 8 transforms), change the seat's capabilities, and send any touch,
 * pointer or key sequence (including ones a real compositor would filter).
 *
 * Usage:
 *   strict-compositor --socket NAME --control FIFO --report FILE
 *                     [--output NAME:WxH[@SCALE][:TRANSFORM]]... [--first-configure WxH|output]
 *                     [--refresh HZ] [--configure-timeout MS] [--caps touch,pointer,keyboard]
 *
 * The report file gets one line per event ("configure 3 1920 1080", "commit 7 ...",
 * "violation: ...") and, for every control command, "ok N COMMAND" or "error N COMMAND: why".
 * Control commands (one per line, coordinates in surface-local points):
 *   configure W H            send a fullscreen configure of W×H to the toplevel
 *   output add NAME W H S T | output set NAME W H S T | output remove NAME
 *                            (W×H mode pixels, S scale, T transform 0-7 in wl_output values)
 *   output mm NAME W H       the output's physical size in millimetres (default 0×0, unknown)
 *   caps LIST                seat capabilities: any of touch,pointer,keyboard, or none
 *   down ID X Y | motion ID X Y | up ID | frame | cancel          (wl_touch)
 *   touch-frames never|normal  never: `frame` sends nothing (cage 0.1.4 sends no wl_touch.frame)
 *   skew A B C D E F         a touchscreen that reports every finger elsewhere: down and motion
 *                            are moved by this matrix (libinput's convention, on the first
 *                            output's normalized logical coordinates); skew 1 0 0 0 1 0 undoes it
 *   pointer X Y | button down|up                                  (wl_pointer, BTN_LEFT)
 *   key CODE | keydown CODE | keyup CODE                          (evdev codes)
 *   release normal|immediate|never|late MS                       when buffers come back
 *   frames normal|withhold|flush|late MS                         when frame callbacks fire
 *   frames damage-only       a commit without damage keeps its frame callbacks for the next
 *                            commit with damage (wlroots repaints, and answers, only for damage)
 *   dump PATH                the toplevel's picture, upright, as a binary PPM
 *   ping                     xdg_wm_base.ping; a pong is expected within the configure timeout
 *   status                   "status violations=N commits=N buffers=N frames=N"
 *
 * Build: see the Makefile target `strict` (wayland-scanner makes the xdg-shell glue).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <pixman.h>
#include <wayland-server.h>
#include <xkbcommon/xkbcommon.h>

#include "xdg-shell-server-protocol.h"

#define BTN_LEFT 0x110
#define MAX_ALIVE_BUFFERS 8
/* Kiosk's largest buffer (Window.maxBufferSide/maxBufferArea): past it a kiosk may fill less. */
#define KIOSK_MAX_SIDE 8192
#define KIOSK_MAX_AREA (8192LL * 4608)

/* ------------------------------------------------------------------------------------------ */
/* State                                                                                       */

enum release_policy { RELEASE_NORMAL, RELEASE_IMMEDIATE, RELEASE_NEVER, RELEASE_LATE };
enum frame_policy { FRAMES_NORMAL, FRAMES_WITHHOLD, FRAMES_LATE };

struct comp;

struct output {
    struct wl_list link;
    struct comp *c;
    struct wl_global *global;
    struct wl_list resources;
    char name[64];
    int32_t w, h, scale, transform;
    int32_t mm_w, mm_h; /* physical size; 0×0 (unknown, like many projectors) by default */
    bool removed;
};

/* A buffer the compositor holds: from its commit until wl_buffer.release. */
struct held {
    struct wl_list link;
    struct comp *c;
    struct wl_resource *buffer;
    struct wl_listener destroy;
    struct surface *surface;
    uint8_t *snapshot;
    size_t bytes;
    bool replaced;      /* no longer the surface's current buffer */
    uint64_t release_at; /* for RELEASE_LATE, once replaced */
};

/* A wl_buffer the client has attached and not destroyed yet. */
struct alive {
    struct wl_list link;
    struct wl_resource *buffer;
    struct wl_listener destroy;
};

struct configure {
    uint32_t serial;
    int32_t w, h;
    uint64_t sent_ns;
    bool acked, answered, reported;
};

struct surface {
    struct wl_list link;
    struct comp *c;
    struct wl_resource *resource;
    /* pending state */
    struct wl_resource *p_buffer;
    bool p_attached;
    struct wl_listener p_buffer_destroy;
    int32_t p_scale, p_transform;
    pixman_region32_t p_damage_surface, p_damage_buffer;
    struct wl_list p_frames;
    /* current state */
    int32_t scale, transform;
    bool has_buffer;
    int32_t sw, sh;        /* surface size in points */
    int32_t lw, lh;        /* picture size: surface size × scale, upright */
    uint32_t *picture;     /* upright, alpha forced to 0xff for XRGB */
    unsigned commits;
    uint64_t arrived_ns;   /* when the latest commit arrived (CLOCK_MONOTONIC) */
    struct output *on;     /* the output it has entered */
    /* role */
    struct xdg_surf *xdg;
};

struct xdg_surf {
    struct comp *c;
    struct wl_resource *resource;
    struct wl_resource *toplevel;
    struct surface *surface;
    bool initial_commit, sent_first, acked_first;
    int32_t cfg_w, cfg_h;  /* size of the configure acked last */
    struct configure cfgs[64];
    unsigned ncfg;
};

struct comp {
    struct wl_display *display;
    struct wl_event_loop *loop;
    FILE *report;
    int control_fd;
    char line[4096];
    size_t used;
    unsigned commands;
    struct wl_list outputs, surfaces, held, alive;
    struct wl_list seat_resources, touch_resources, pointer_resources, keyboard_resources;
    struct wl_global *seat_global;
    uint32_t caps;
    struct xdg_surf *focus; /* the toplevel input goes to: the newest mapped one */
    bool pointer_in, keyboard_in;
    /* false: `frame` commands send nothing, as cage 0.1.4 never sends wl_touch.frame */
    bool touch_frames;
    double skew[6];
    enum release_policy release;
    int release_ms;
    enum frame_policy frames;
    bool frames_damage_only;
    int frames_ms;
    struct wl_list frame_queue;
    struct wl_event_source *tick;
    int refresh_hz;
    int32_t first_w, first_h; /* -1: the output's size */
    int configure_timeout_ms;
    unsigned violations, total_commits, frames_done, max_alive;
    uint32_t ping_serial;
    uint64_t ping_sent;
    char *keymap;
    size_t keymap_size;
    struct xkb_state *xkb;
    struct xkb_keymap *xkb_map;
    struct xkb_context *xkb_ctx;
    struct wl_client *dying;
};

struct queued_frame {
    struct wl_list link;
    struct wl_resource *callback;
    struct wl_listener destroy;
    uint64_t due;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static uint32_t now_ms(void) { return (uint32_t)(now_ns() / 1000000); }

/* One line in the report file: `prefix` then the formatted message. */
static void vreport(struct comp *c, const char *prefix, const char *fmt, va_list ap)
{
    fputs(prefix, c->report);
    vfprintf(c->report, fmt, ap);
    fputc('\n', c->report);
    fflush(c->report);
}

static void report(struct comp *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(c, "", fmt, ap);
    va_end(ap);
}

static void violation(struct comp *c, const char *fmt, ...)
{
    c->violations++;
    va_list ap;
    va_start(ap, fmt);
    vreport(c, "violation: ", fmt, ap);
    va_end(ap);
}

static uint32_t next_serial(struct comp *c) { return wl_display_next_serial(c->display); }

/* ------------------------------------------------------------------------------------------ */
/* Transforms: where an upright picture pixel lives in a buffer.                              */

/* Picture pixel (x, y) of an upright W×H picture → buffer pixel, for wl_output transform t:
 * the client has already applied t to the picture to make the buffer (wl_surface spec). */
static void picture_to_buffer(int t, int W, int H, int x, int y, int *bx, int *by)
{
    switch (t & 7) {
    default:
    case 0: *bx = x; *by = y; break;
    case 1: *bx = y; *by = W - 1 - x; break;
    case 2: *bx = W - 1 - x; *by = H - 1 - y; break;
    case 3: *bx = H - 1 - y; *by = x; break;
    case 4: *bx = W - 1 - x; *by = y; break;
    case 5: *bx = y; *by = x; break;
    case 6: *bx = x; *by = H - 1 - y; break;
    case 7: *bx = H - 1 - y; *by = W - 1 - x; break;
    }
}

/* A buffer rectangle → the picture rectangle it covers (continuous corners). */
static void buffer_rect_to_picture(int t, int W, int H, int x0, int y0, int x1, int y1, pixman_box32_t *out)
{
    int px[2], py[2];
    int bxs[2] = {x0, x1}, bys[2] = {y0, y1};
    for (int i = 0; i < 2; i++) {
        int bx = bxs[i], by = bys[i], x, y;
        switch (t & 7) {
        default:
        case 0: x = bx; y = by; break;
        case 1: x = W - by; y = bx; break;
        case 2: x = W - bx; y = H - by; break;
        case 3: x = by; y = H - bx; break;
        case 4: x = W - bx; y = by; break;
        case 5: x = by; y = bx; break;
        case 6: x = bx; y = H - by; break;
        case 7: x = W - by; y = H - bx; break;
        }
        px[i] = x; py[i] = y;
    }
    out->x1 = px[0] < px[1] ? px[0] : px[1];
    out->x2 = px[0] < px[1] ? px[1] : px[0];
    out->y1 = py[0] < py[1] ? py[0] : py[1];
    out->y2 = py[0] < py[1] ? py[1] : py[0];
}

/* The buffer's pixels as an upright picture (alpha forced opaque for XRGB). */
static void buffer_to_picture(const uint8_t *data, int32_t stride, uint32_t format, int t,
                              uint32_t *pic, int W, int H)
{
    uint32_t alpha = format == WL_SHM_FORMAT_XRGB8888 ? 0xff000000u : 0;
    if ((t & 7) == 0 || (t & 7) == 6) {
        for (int y = 0; y < H; y++) {
            const uint32_t *row = (const uint32_t *)(data + (size_t)((t & 7) ? H - 1 - y : y) * stride);
            uint32_t *dst = pic + (size_t)y * W;
            for (int x = 0; x < W; x++) dst[x] = row[x] | alpha;
        }
        return;
    }
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            int bx, by;
            picture_to_buffer(t, W, H, x, y, &bx, &by);
            pic[(size_t)y * W + x] = ((const uint32_t *)(data + (size_t)by * stride))[bx] | alpha;
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Buffers                                                                                     */

static void held_free(struct held *h)
{
    wl_list_remove(&h->link);
    wl_list_remove(&h->destroy.link);
    free(h->snapshot);
    free(h);
}

/* Sends wl_buffer.release, after checking the client left the buffer alone while we held it. */
static void held_release(struct held *h)
{
    struct wl_shm_buffer *shm = wl_shm_buffer_get(h->buffer);
    if (shm && h->snapshot) {
        wl_shm_buffer_begin_access(shm);
        const uint8_t *data = wl_shm_buffer_get_data(shm);
        if (memcmp(data, h->snapshot, h->bytes) != 0) {
            size_t i = 0;
            while (i < h->bytes && data[i] == h->snapshot[i]) i++;
            int32_t stride = wl_shm_buffer_get_stride(shm);
            violation(h->c, "wl_buffer@%u was written to while the compositor held it (first change at "
                      "pixel %zu,%zu)", wl_resource_get_id(h->buffer), (i % (size_t)stride) / 4, i / (size_t)stride);
        }
        wl_shm_buffer_end_access(shm);
    }
    wl_buffer_send_release(h->buffer);
    report(h->c, "release wl_buffer@%u", wl_resource_get_id(h->buffer));
    held_free(h);
}

static void held_destroyed(struct wl_listener *l, void *data)
{
    struct held *h = wl_container_of(l, h, destroy);
    /* Destroying a buffer that has given way is the client's answer to a compositor that never
     * releases; destroying the one on screen leaves the compositor without a picture. */
    if (wl_resource_get_client(h->buffer) == h->c->dying) {
    } else if (!h->replaced)
        violation(h->c, "wl_buffer@%u was destroyed while it is the surface's current buffer",
                  wl_resource_get_id(h->buffer));
    else
        report(h->c, "wl_buffer@%u destroyed before its release", wl_resource_get_id(h->buffer));
    held_free(h);
}

static struct held *find_held(struct comp *c, struct wl_resource *buffer)
{
    struct held *h;
    wl_list_for_each(h, &c->held, link) if (h->buffer == buffer) return h;
    return NULL;
}

static void alive_destroyed(struct wl_listener *l, void *data)
{
    struct alive *a = wl_container_of(l, a, destroy);
    wl_list_remove(&a->link);
    free(a);
}

static void track_alive(struct comp *c, struct wl_resource *buffer)
{
    struct alive *a;
    wl_list_for_each(a, &c->alive, link) if (a->buffer == buffer) return;
    a = calloc(1, sizeof *a);
    a->buffer = buffer;
    a->destroy.notify = alive_destroyed;
    wl_resource_add_destroy_listener(buffer, &a->destroy);
    wl_list_insert(&c->alive, &a->link);
    unsigned n = (unsigned)wl_list_length(&c->alive);
    if (n > c->max_alive) c->max_alive = n;
    if (n == MAX_ALIVE_BUFFERS + 1)
        violation(c, "%u wl_buffers alive at once: the client allocates without bound", n);
}

/* The surface's previous buffer gave way to a new one (or to none). */
static void buffer_replaced(struct comp *c, struct surface *s)
{
    struct held *h, *tmp;
    wl_list_for_each_safe(h, tmp, &c->held, link) {
        if (h->surface != s || h->replaced) continue;
        h->replaced = true;
        switch (c->release) {
        case RELEASE_NORMAL: held_release(h); break;
        case RELEASE_LATE: h->release_at = now_ns() + (uint64_t)c->release_ms * 1000000ull; break;
        case RELEASE_NEVER: case RELEASE_IMMEDIATE: break;
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Frame callbacks                                                                             */

static void queued_frame_gone(struct wl_listener *l, void *data)
{
    struct queued_frame *q = wl_container_of(l, q, destroy);
    wl_list_remove(&q->link);
    free(q);
}

static void queue_frame(struct comp *c, struct wl_resource *cb)
{
    struct queued_frame *q = calloc(1, sizeof *q);
    q->callback = cb;
    q->due = c->frames == FRAMES_WITHHOLD ? UINT64_MAX
           : c->frames == FRAMES_LATE ? now_ns() + (uint64_t)c->frames_ms * 1000000ull : 0;
    q->destroy.notify = queued_frame_gone;
    wl_resource_add_destroy_listener(cb, &q->destroy);
    wl_list_insert(c->frame_queue.prev, &q->link);
}

static void fire_due_frames(struct comp *c, bool all)
{
    uint64_t t = now_ns();
    struct queued_frame *q, *tmp;
    wl_list_for_each_safe(q, tmp, &c->frame_queue, link) {
        if (!all && q->due > t) continue;
        struct wl_resource *cb = q->callback;
        wl_list_remove(&q->link);
        wl_list_remove(&q->destroy.link);
        free(q);
        wl_callback_send_done(cb, now_ms());
        wl_resource_destroy(cb);
        c->frames_done++;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Outputs                                                                                     */

static void output_send_state(struct output *o, struct wl_resource *r)
{
    int v = wl_resource_get_version(r);
    wl_output_send_geometry(r, 0, 0, o->mm_w, o->mm_h, WL_OUTPUT_SUBPIXEL_UNKNOWN, "strict", "strict", o->transform);
    wl_output_send_mode(r, WL_OUTPUT_MODE_CURRENT | WL_OUTPUT_MODE_PREFERRED, o->w, o->h, 60000);
    if (v >= 2) wl_output_send_scale(r, o->scale);
    if (v >= 4) {
        wl_output_send_name(r, o->name);
        wl_output_send_description(r, "strict test output");
    }
    if (v >= 2) wl_output_send_done(r);
}

static void output_release(struct wl_client *client, struct wl_resource *r) { wl_resource_destroy(r); }
static const struct wl_output_interface output_impl = {.release = output_release};

static void output_resource_gone(struct wl_resource *r) { wl_list_remove(wl_resource_get_link(r)); }

static void output_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
    struct output *o = data;
    struct wl_resource *r = wl_resource_create(client, &wl_output_interface, (int)version, id);
    wl_resource_set_implementation(r, &output_impl, o, output_resource_gone);
    wl_list_insert(&o->resources, wl_resource_get_link(r));
    output_send_state(o, r);
}

static void output_logical_size(struct output *o, int32_t *w, int32_t *h)
{
    int32_t mw = o->w, mh = o->h;
    if (o->transform & 1) { int32_t t = mw; mw = mh; mh = t; }
    *w = mw / (o->scale > 0 ? o->scale : 1);
    *h = mh / (o->scale > 0 ? o->scale : 1);
}

static struct output *output_find(struct comp *c, const char *name)
{
    struct output *o;
    wl_list_for_each(o, &c->outputs, link) if (!o->removed && strcmp(o->name, name) == 0) return o;
    return NULL;
}

static struct output *primary_output(struct comp *c)
{
    struct output *o;
    wl_list_for_each(o, &c->outputs, link) if (!o->removed) return o;
    return NULL;
}

static void surface_enter(struct surface *s, struct output *o, bool enter)
{
    struct wl_resource *r;
    struct wl_client *client = wl_resource_get_client(s->resource);
    wl_resource_for_each(r, &o->resources) {
        if (wl_resource_get_client(r) != client) continue;
        if (enter) wl_surface_send_enter(s->resource, r);
        else wl_surface_send_leave(s->resource, r);
    }
}

static struct output *output_add(struct comp *c, const char *name, int32_t w, int32_t h, int32_t scale, int32_t transform)
{
    struct output *o = calloc(1, sizeof *o);
    o->c = c;
    snprintf(o->name, sizeof o->name, "%s", name);
    o->w = w; o->h = h; o->scale = scale; o->transform = transform;
    wl_list_init(&o->resources);
    o->global = wl_global_create(c->display, &wl_output_interface, 4, o, output_bind);
    wl_list_insert(c->outputs.prev, &o->link);
    return o;
}

static int destroy_global_later(void *data)
{
    wl_global_destroy(data);
    return 0;
}

static void output_remove(struct comp *c, struct output *o)
{
    o->removed = true;
    struct surface *s;
    struct output *next = primary_output(c);
    wl_list_for_each(s, &c->surfaces, link) {
        if (s->on != o) continue;
        surface_enter(s, o, false);
        s->on = next;
        if (next) surface_enter(s, next, true);
    }
    wl_global_remove(o->global);
    /* Clients may still bind it for a moment; destroy it once they have heard it is gone. */
    struct wl_event_source *t = wl_event_loop_add_timer(c->loop, destroy_global_later, o->global);
    wl_event_source_timer_update(t, 2000);
    /* The struct stays (its resources point at it) until the process ends. */
}

/* ------------------------------------------------------------------------------------------ */
/* wl_region                                                                                   */

/* Regions are kept (a pixman region per wl_region) so the opaque region can be reported. */
static void region_destroy(struct wl_client *client, struct wl_resource *r) { wl_resource_destroy(r); }
static void region_add(struct wl_client *client, struct wl_resource *r, int32_t x, int32_t y, int32_t w, int32_t h)
{
    pixman_region32_t *reg = wl_resource_get_user_data(r);
    pixman_region32_union_rect(reg, reg, x, y, w > 0 ? w : 0, h > 0 ? h : 0);
}
static void region_subtract(struct wl_client *client, struct wl_resource *r, int32_t x, int32_t y, int32_t w, int32_t h)
{
    pixman_region32_t *reg = wl_resource_get_user_data(r), cut;
    pixman_region32_init_rect(&cut, x, y, w > 0 ? w : 0, h > 0 ? h : 0);
    pixman_region32_subtract(reg, reg, &cut);
    pixman_region32_fini(&cut);
}
static void region_free(struct wl_resource *r)
{
    pixman_region32_t *reg = wl_resource_get_user_data(r);
    pixman_region32_fini(reg);
    free(reg);
}
static const struct wl_region_interface region_impl = {region_destroy, region_add, region_subtract};

/* ------------------------------------------------------------------------------------------ */
/* wl_surface                                                                                  */

static void xdg_commit(struct xdg_surf *x, bool with_buffer);
static bool xdg_check_buffer_allowed(struct xdg_surf *x);
static void send_focus(struct comp *c);

static void surface_clear_pending_buffer(struct surface *s)
{
    if (s->p_buffer) wl_list_remove(&s->p_buffer_destroy.link);
    s->p_buffer = NULL;
}

static void pending_buffer_gone(struct wl_listener *l, void *data)
{
    struct surface *s = wl_container_of(l, s, p_buffer_destroy);
    wl_list_remove(&s->p_buffer_destroy.link);
    s->p_buffer = NULL;
}

static void surface_destroy(struct wl_client *client, struct wl_resource *r) { wl_resource_destroy(r); }
static void unlink_resource(struct wl_resource *r);

static void surface_attach(struct wl_client *client, struct wl_resource *r, struct wl_resource *buffer, int32_t x, int32_t y)
{
    struct surface *s = wl_resource_get_user_data(r);
    if (wl_resource_get_version(r) >= 5 && (x != 0 || y != 0)) {
        wl_resource_post_error(r, WL_SURFACE_ERROR_INVALID_OFFSET, "attach offset must be 0 in wl_surface v5");
        return;
    }
    surface_clear_pending_buffer(s);
    s->p_attached = true;
    if (buffer) {
        if (!wl_shm_buffer_get(buffer)) {
            wl_resource_post_error(r, WL_SURFACE_ERROR_INVALID_SIZE, "only wl_shm buffers are offered");
            return;
        }
        s->p_buffer = buffer;
        s->p_buffer_destroy.notify = pending_buffer_gone;
        wl_resource_add_destroy_listener(buffer, &s->p_buffer_destroy);
    }
}

static void surface_damage(struct wl_client *client, struct wl_resource *r, int32_t x, int32_t y, int32_t w, int32_t h)
{
    struct surface *s = wl_resource_get_user_data(r);
    if (w <= 0 || h <= 0) return;
    pixman_region32_union_rect(&s->p_damage_surface, &s->p_damage_surface, x, y, (unsigned)w, (unsigned)h);
}

static void surface_damage_buffer(struct wl_client *client, struct wl_resource *r, int32_t x, int32_t y, int32_t w, int32_t h)
{
    struct surface *s = wl_resource_get_user_data(r);
    if (w <= 0 || h <= 0) return;
    pixman_region32_union_rect(&s->p_damage_buffer, &s->p_damage_buffer, x, y, (unsigned)w, (unsigned)h);
}

static void surface_frame(struct wl_client *client, struct wl_resource *r, uint32_t id)
{
    struct surface *s = wl_resource_get_user_data(r);
    struct wl_resource *cb = wl_resource_create(client, &wl_callback_interface, 1, id);
    wl_resource_set_implementation(cb, NULL, NULL, unlink_resource);
    wl_list_insert(s->p_frames.prev, wl_resource_get_link(cb));
}

static void surface_set_opaque_region(struct wl_client *client, struct wl_resource *r, struct wl_resource *region)
{
    struct surface *s = wl_resource_get_user_data(r);
    if (!region) { report(s->c, "opaque_region none"); return; }
    pixman_region32_t *reg = wl_resource_get_user_data(region);
    pixman_box32_t *e = pixman_region32_extents(reg);
    report(s->c, "opaque_region %d,%d %dx%d rects=%d", e->x1, e->y1, e->x2 - e->x1, e->y2 - e->y1,
           pixman_region32_n_rects(reg));
}
static void surface_set_input_region(struct wl_client *client, struct wl_resource *r, struct wl_resource *region) {}

static void surface_set_buffer_transform(struct wl_client *client, struct wl_resource *r, int32_t t)
{
    struct surface *s = wl_resource_get_user_data(r);
    if (t < 0 || t > 7) {
        wl_resource_post_error(r, WL_SURFACE_ERROR_INVALID_TRANSFORM, "buffer transform %d is not a wl_output transform", t);
        return;
    }
    s->p_transform = t;
}

static void surface_set_buffer_scale(struct wl_client *client, struct wl_resource *r, int32_t scale)
{
    struct surface *s = wl_resource_get_user_data(r);
    if (scale < 1) {
        wl_resource_post_error(r, WL_SURFACE_ERROR_INVALID_SCALE, "buffer scale %d is not positive", scale);
        return;
    }
    s->p_scale = scale;
}

static void surface_offset(struct wl_client *client, struct wl_resource *r, int32_t x, int32_t y) {}

/* Checks and applies a new buffer: completeness outside the damage, size rules, then keeps its
 * picture and holds it. Returns false on a protocol error. */
static bool surface_apply_buffer(struct surface *s, struct wl_resource *buffer)
{
    struct comp *c = s->c;
    struct wl_shm_buffer *shm = wl_shm_buffer_get(buffer);
    int32_t bw = wl_shm_buffer_get_width(shm), bh = wl_shm_buffer_get_height(shm);
    int32_t stride = wl_shm_buffer_get_stride(shm);
    uint32_t format = wl_shm_buffer_get_format(shm);
    int32_t scale = s->p_scale, t = s->p_transform;
    unsigned n = s->commits;

    if (find_held(c, buffer))
        violation(c, "commit %u: wl_buffer@%u attached while the compositor still holds it (not released yet)",
                  n, wl_resource_get_id(buffer));
    track_alive(c, buffer);
    if (bw % scale != 0 || bh % scale != 0)
        violation(c, "commit %u: buffer %dx%d is not divisible by its scale %d", n, bw, bh, scale);
    int32_t lw = (t & 1) ? bh : bw, lh = (t & 1) ? bw : bh; /* upright picture, pixels */
    int32_t sw = lw / scale, sh = lh / scale;

    /* The picture this buffer shows, upright. */
    uint32_t *pic = malloc((size_t)lw * (size_t)lh * 4);
    struct held *h = calloc(1, sizeof *h);
    h->bytes = (size_t)stride * (size_t)bh;
    h->snapshot = malloc(h->bytes);
    wl_shm_buffer_begin_access(shm);
    const uint8_t *data = wl_shm_buffer_get_data(shm);
    buffer_to_picture(data, stride, format, t, pic, lw, lh);
    memcpy(h->snapshot, data, h->bytes);
    wl_shm_buffer_end_access(shm);

    /* Completeness: outside the damage the picture must not change. Only comparable when the
     * picture keeps its size; a new size, scale or transform is a new picture. */
    if (s->picture && s->lw == lw && s->lh == lh && s->scale == scale) {
        pixman_region32_t damage, outside;
        pixman_region32_init(&damage);
        pixman_region32_init(&outside);
        int nr;
        pixman_box32_t *b = pixman_region32_rectangles(&s->p_damage_surface, &nr);
        for (int i = 0; i < nr; i++)
            pixman_region32_union_rect(&damage, &damage, b[i].x1 * scale, b[i].y1 * scale,
                                       (unsigned)((b[i].x2 - b[i].x1) * scale), (unsigned)((b[i].y2 - b[i].y1) * scale));
        b = pixman_region32_rectangles(&s->p_damage_buffer, &nr);
        for (int i = 0; i < nr; i++) {
            pixman_box32_t p;
            buffer_rect_to_picture(t, lw, lh, b[i].x1, b[i].y1, b[i].x2, b[i].y2, &p);
            pixman_region32_union_rect(&damage, &damage, p.x1, p.y1, (unsigned)(p.x2 - p.x1), (unsigned)(p.y2 - p.y1));
        }
        pixman_region32_t bounds;
        pixman_region32_init_rect(&bounds, 0, 0, (unsigned)lw, (unsigned)lh);
        pixman_region32_subtract(&outside, &bounds, &damage);
        b = pixman_region32_rectangles(&outside, &nr);
        bool found = false;
        for (int i = 0; i < nr && !found; i++) {
            for (int y = b[i].y1; y < b[i].y2 && !found; y++) {
                const uint32_t *a = s->picture + (size_t)y * lw, *z = pic + (size_t)y * lw;
                if (memcmp(a + b[i].x1, z + b[i].x1, (size_t)(b[i].x2 - b[i].x1) * 4) == 0) continue;
                for (int x = b[i].x1; x < b[i].x2; x++) {
                    if (a[x] == z[x]) continue;
                    int bx, by;
                    picture_to_buffer(t, lw, lh, x, y, &bx, &by);
                    pixman_box32_t *e = pixman_region32_extents(&damage);
                    violation(c, "commit %u: wl_buffer@%u differs from the picture outside its damage at %d,%d "
                              "(buffer pixel %d,%d): was %08x, now %08x; damage %d rects within %d,%d-%d,%d",
                              n, wl_resource_get_id(buffer), x, y, bx, by, a[x], z[x],
                              pixman_region32_n_rects(&damage), e->x1, e->y1, e->x2, e->y2);
                    found = true;
                    break;
                }
            }
        }
        pixman_region32_fini(&bounds);
        pixman_region32_fini(&damage);
        pixman_region32_fini(&outside);
    }
    free(s->picture);
    s->picture = pic;
    s->lw = lw; s->lh = lh; s->sw = sw; s->sh = sh;
    s->scale = scale; s->transform = t;
    s->has_buffer = true;

    /* The previous buffer gives way; this one is held until policy says. */
    buffer_replaced(c, s);
    h->c = c;
    h->buffer = buffer;
    h->surface = s;
    h->destroy.notify = held_destroyed;
    wl_resource_add_destroy_listener(buffer, &h->destroy);
    wl_list_insert(&c->held, &h->link);
    if (c->release == RELEASE_IMMEDIATE) {
        h->replaced = true;
        held_release(h);
    }
    pixman_region32_t all;
    pixman_region32_init(&all);
    pixman_region32_union(&all, &s->p_damage_surface, &s->p_damage_buffer);
    pixman_box32_t *e = pixman_region32_extents(&all);
    /* t= when the commit arrived (CLOCK_MONOTONIC ns): launch-to-first-frame measured from outside. */
    report(c, "commit %u wl_buffer@%u %dx%d scale=%d transform=%d surface=%dx%d damage=%d:%d,%d-%d,%d t=%llu", n,
           wl_resource_get_id(buffer), bw, bh, scale, t, sw, sh, pixman_region32_n_rects(&all), e->x1, e->y1, e->x2, e->y2,
           (unsigned long long)s->arrived_ns);
    pixman_region32_fini(&all);
    return true;
}

static void surface_commit(struct wl_client *client, struct wl_resource *r)
{
    struct surface *s = wl_resource_get_user_data(r);
    struct comp *c = s->c;
    s->arrived_ns = now_ns(); /* before the checks below, which take milliseconds */
    s->commits++;
    c->total_commits++;
    bool new_buffer = s->p_attached && s->p_buffer;
    if (s->xdg && new_buffer && !xdg_check_buffer_allowed(s->xdg)) return;
    if (s->p_attached) {
        if (s->p_buffer) {
            if (!surface_apply_buffer(s, s->p_buffer)) return;
        } else {
            buffer_replaced(c, s);
            free(s->picture);
            s->picture = NULL;
            s->has_buffer = false;
            report(c, "commit %u no buffer (unmapped)", s->commits);
        }
    } else {
        report(c, "commit %u (no attach)", s->commits);
    }
    surface_clear_pending_buffer(s);
    s->p_attached = false;
    bool damaged = pixman_region32_not_empty(&s->p_damage_surface) || pixman_region32_not_empty(&s->p_damage_buffer);
    pixman_region32_clear(&s->p_damage_surface);
    pixman_region32_clear(&s->p_damage_buffer);
    struct wl_resource *cb, *tmp;
    if (c->frames_damage_only && !damaged) {
        if (s->xdg) xdg_commit(s->xdg, new_buffer);
        return; /* the callbacks wait in p_frames for a commit with damage */
    }
    wl_resource_for_each_safe(cb, tmp, &s->p_frames) {
        wl_list_remove(wl_resource_get_link(cb));
        wl_list_init(wl_resource_get_link(cb));
        queue_frame(c, cb);
    }
    if (s->xdg) xdg_commit(s->xdg, new_buffer);
}

static const struct wl_surface_interface surface_impl = {
    surface_destroy, surface_attach, surface_damage, surface_frame, surface_set_opaque_region,
    surface_set_input_region, surface_commit, surface_set_buffer_transform, surface_set_buffer_scale,
    surface_damage_buffer, surface_offset,
};

static void surface_gone(struct wl_resource *r)
{
    struct surface *s = wl_resource_get_user_data(r);
    struct comp *c = s->c;
    bool dying = wl_resource_get_client(r) == c->dying;
    if (s->xdg && !dying) violation(c, "wl_surface@%u destroyed before its xdg_surface", wl_resource_get_id(r));
    if (s->xdg) s->xdg->surface = NULL;
    surface_clear_pending_buffer(s);
    /* A surface that goes away gives its buffers back whatever the policy. */
    struct held *h, *tmp;
    wl_list_for_each_safe(h, tmp, &c->held, link) {
        if (h->surface != s) continue;
        if (dying) held_free(h);
        else { h->replaced = true; held_release(h); }
    }
    struct wl_resource *cb, *ctmp;
    wl_resource_for_each_safe(cb, ctmp, &s->p_frames) wl_resource_destroy(cb);
    pixman_region32_fini(&s->p_damage_surface);
    pixman_region32_fini(&s->p_damage_buffer);
    wl_list_remove(&s->link);
    free(s->picture);
    free(s);
}

static void compositor_create_surface(struct wl_client *client, struct wl_resource *r, uint32_t id)
{
    struct comp *c = wl_resource_get_user_data(r);
    struct surface *s = calloc(1, sizeof *s);
    s->c = c;
    s->p_scale = s->scale = 1;
    pixman_region32_init(&s->p_damage_surface);
    pixman_region32_init(&s->p_damage_buffer);
    wl_list_init(&s->p_frames);
    s->resource = wl_resource_create(client, &wl_surface_interface, wl_resource_get_version(r), id);
    wl_resource_set_implementation(s->resource, &surface_impl, s, surface_gone);
    wl_list_insert(&c->surfaces, &s->link);
}

static void compositor_create_region(struct wl_client *client, struct wl_resource *r, uint32_t id)
{
    struct wl_resource *region = wl_resource_create(client, &wl_region_interface, 1, id);
    pixman_region32_t *reg = calloc(1, sizeof *reg);
    pixman_region32_init(reg);
    wl_resource_set_implementation(region, &region_impl, reg, region_free);
}

static const struct wl_compositor_interface compositor_impl = {compositor_create_surface, compositor_create_region};

static void compositor_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
    struct wl_resource *r = wl_resource_create(client, &wl_compositor_interface, (int)version, id);
    wl_resource_set_implementation(r, &compositor_impl, data, NULL);
    report(data, "bind wl_compositor v%u", version);
}

/* ------------------------------------------------------------------------------------------ */
/* xdg-shell                                                                                   */

static void xdg_send_configure(struct xdg_surf *x, int32_t w, int32_t h)
{
    struct comp *c = x->c;
    struct wl_array states;
    wl_array_init(&states);
    uint32_t *st = wl_array_add(&states, sizeof *st * 2);
    st[0] = XDG_TOPLEVEL_STATE_FULLSCREEN;
    st[1] = XDG_TOPLEVEL_STATE_ACTIVATED;
    xdg_toplevel_send_configure(x->toplevel, w, h, &states);
    wl_array_release(&states);
    uint32_t serial = next_serial(c);
    xdg_surface_send_configure(x->resource, serial);
    struct configure *cfg = &x->cfgs[x->ncfg % 64];
    *cfg = (struct configure){.serial = serial, .w = w, .h = h, .sent_ns = now_ns()};
    x->ncfg++;
    x->sent_first = true;
    report(c, "configure %u %d %d", serial, w, h);
}

static bool xdg_check_buffer_allowed(struct xdg_surf *x)
{
    if (!x->toplevel) {
        wl_resource_post_error(x->resource, XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER, "buffer committed before the xdg_surface has a role");
        violation(x->c, "buffer committed on an xdg_surface with no role");
        return false;
    }
    if (!x->acked_first) {
        violation(x->c, "buffer committed before the first configure was acked");
        wl_resource_post_error(x->resource, XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER, "buffer committed before the first configure was acked");
        return false;
    }
    return true;
}

static void xdg_commit(struct xdg_surf *x, bool with_buffer)
{
    struct comp *c = x->c;
    struct surface *s = x->surface;
    if (!x->toplevel) return;
    /* A commit answers every configure acked before it. */
    for (unsigned i = 0; i < 64 && i < x->ncfg; i++) {
        struct configure *cfg = &x->cfgs[i];
        if (cfg->acked && !cfg->answered) cfg->answered = true;
    }
    if (!x->initial_commit) {
        x->initial_commit = true;
        if (with_buffer) return; /* already refused */
        int32_t w = c->first_w, h = c->first_h;
        struct output *o = primary_output(c);
        if (w < 0 && o) output_logical_size(o, &w, &h);
        if (w < 0) w = h = 0;
        xdg_send_configure(x, w, h);
        return;
    }
    if (!s || !s->has_buffer) return;
    /* The surface fills the fullscreen size it acked (smaller only past a kiosk's largest buffer). */
    if (x->cfg_w > 0 && x->cfg_h > 0 && with_buffer) {
        long long pw = (long long)x->cfg_w * s->scale, ph = (long long)x->cfg_h * s->scale;
        bool fits = pw <= KIOSK_MAX_SIDE && ph <= KIOSK_MAX_SIDE && pw * ph <= KIOSK_MAX_AREA;
        if (s->sw > x->cfg_w || s->sh > x->cfg_h)
            violation(c, "commit %u: surface %dx%d is larger than the configured fullscreen size %dx%d",
                      s->commits, s->sw, s->sh, x->cfg_w, x->cfg_h);
        else if (fits && (s->sw != x->cfg_w || s->sh != x->cfg_h))
            violation(c, "commit %u: surface %dx%d does not fill the configured fullscreen size %dx%d",
                      s->commits, s->sw, s->sh, x->cfg_w, x->cfg_h);
    }
    if (!s->on) {
        s->on = primary_output(c);
        if (s->on) surface_enter(s, s->on, true);
        c->focus = x;
        report(c, "mapped wl_surface@%u", wl_resource_get_id(s->resource));
        send_focus(c);
    }
}

static void xdg_check_timeouts(struct comp *c)
{
    struct surface *s;
    uint64_t t = now_ns(), limit = (uint64_t)c->configure_timeout_ms * 1000000ull;
    wl_list_for_each(s, &c->surfaces, link) {
        struct xdg_surf *x = s->xdg;
        if (!x) continue;
        for (unsigned i = 0; i < 64 && i < x->ncfg; i++) {
            struct configure *cfg = &x->cfgs[i];
            if (cfg->answered || cfg->reported || t - cfg->sent_ns < limit) continue;
            cfg->reported = true;
            violation(c, "configure %u (%dx%d) was %s within %d ms", cfg->serial, cfg->w, cfg->h,
                      cfg->acked ? "acked but not committed" : "not acked", c->configure_timeout_ms);
        }
    }
    if (c->ping_serial && t - c->ping_sent > limit) {
        violation(c, "ping %u was not answered within %d ms", c->ping_serial, c->configure_timeout_ms);
        c->ping_serial = 0;
    }
}

static void toplevel_destroy(struct wl_client *client, struct wl_resource *r) { wl_resource_destroy(r); }
static void toplevel_set_parent(struct wl_client *client, struct wl_resource *r, struct wl_resource *p) {}
static void toplevel_set_title(struct wl_client *client, struct wl_resource *r, const char *t) {}
static void toplevel_set_app_id(struct wl_client *client, struct wl_resource *r, const char *id)
{
    struct xdg_surf *x = wl_resource_get_user_data(r);
    report(x->c, "app_id %s", id);
}
static void toplevel_show_window_menu(struct wl_client *client, struct wl_resource *r, struct wl_resource *seat, uint32_t serial, int32_t x, int32_t y) {}
static void toplevel_move(struct wl_client *client, struct wl_resource *r, struct wl_resource *seat, uint32_t serial) {}
static void toplevel_resize(struct wl_client *client, struct wl_resource *r, struct wl_resource *seat, uint32_t serial, uint32_t edges) {}
static void toplevel_set_max_size(struct wl_client *client, struct wl_resource *r, int32_t w, int32_t h) {}
static void toplevel_set_min_size(struct wl_client *client, struct wl_resource *r, int32_t w, int32_t h) {}
static void toplevel_set_maximized(struct wl_client *client, struct wl_resource *r) {}
static void toplevel_unset_maximized(struct wl_client *client, struct wl_resource *r) {}
static void toplevel_set_fullscreen(struct wl_client *client, struct wl_resource *r, struct wl_resource *output)
{
    struct xdg_surf *x = wl_resource_get_user_data(r);
    report(x->c, "set_fullscreen");
}
static void toplevel_unset_fullscreen(struct wl_client *client, struct wl_resource *r) {}
static void toplevel_set_minimized(struct wl_client *client, struct wl_resource *r) {}

static const struct xdg_toplevel_interface toplevel_impl = {
    toplevel_destroy, toplevel_set_parent, toplevel_set_title, toplevel_set_app_id, toplevel_show_window_menu,
    toplevel_move, toplevel_resize, toplevel_set_max_size, toplevel_set_min_size, toplevel_set_maximized,
    toplevel_unset_maximized, toplevel_set_fullscreen, toplevel_unset_fullscreen, toplevel_set_minimized,
};

static void toplevel_gone(struct wl_resource *r)
{
    struct xdg_surf *x = wl_resource_get_user_data(r);
    if (!x) return;
    x->toplevel = NULL;
    if (x->c->focus == x) x->c->focus = NULL;
}

static void xdg_surface_destroy(struct wl_client *client, struct wl_resource *r)
{
    struct xdg_surf *x = wl_resource_get_user_data(r);
    if (x->toplevel && wl_resource_get_user_data(x->toplevel)) {
        wl_resource_post_error(r, XDG_WM_BASE_ERROR_DEFUNCT_SURFACES, "xdg_surface destroyed before its toplevel");
        return;
    }
    wl_resource_destroy(r);
}

static void xdg_surface_get_toplevel(struct wl_client *client, struct wl_resource *r, uint32_t id)
{
    struct xdg_surf *x = wl_resource_get_user_data(r);
    x->toplevel = wl_resource_create(client, &xdg_toplevel_interface, wl_resource_get_version(r), id);
    wl_resource_set_implementation(x->toplevel, &toplevel_impl, x, toplevel_gone);
}

static void xdg_surface_get_popup(struct wl_client *client, struct wl_resource *r, uint32_t id,
                                  struct wl_resource *parent, struct wl_resource *positioner)
{
    struct xdg_surf *x = wl_resource_get_user_data(r);
    violation(x->c, "xdg_surface.get_popup: a kiosk has no popups (not implemented here)");
    struct wl_resource *p = wl_resource_create(client, &xdg_popup_interface, wl_resource_get_version(r), id);
    wl_resource_set_implementation(p, NULL, NULL, NULL);
}

static void xdg_surface_set_window_geometry(struct wl_client *client, struct wl_resource *r, int32_t x, int32_t y, int32_t w, int32_t h) {}

static void xdg_surface_ack_configure(struct wl_client *client, struct wl_resource *r, uint32_t serial)
{
    struct xdg_surf *x = wl_resource_get_user_data(r);
    struct configure *found = NULL;
    for (unsigned i = 0; i < 64 && i < x->ncfg; i++)
        if (x->cfgs[i].serial == serial) found = &x->cfgs[i];
    if (!found) {
        violation(x->c, "ack_configure(%u): no configure with that serial was sent", serial);
        wl_resource_post_error(r, XDG_SURFACE_ERROR_INVALID_SERIAL, "ack of serial %u that was never sent", serial);
        return;
    }
    /* Acking a serial acks every configure sent before it. */
    for (unsigned i = 0; i < 64 && i < x->ncfg; i++)
        if ((int32_t)(x->cfgs[i].serial - serial) <= 0) x->cfgs[i].acked = true;
    x->acked_first = true;
    x->cfg_w = found->w;
    x->cfg_h = found->h;
    report(x->c, "ack %u", serial);
}

static const struct xdg_surface_interface xdg_surface_impl = {
    xdg_surface_destroy, xdg_surface_get_toplevel, xdg_surface_get_popup, xdg_surface_set_window_geometry,
    xdg_surface_ack_configure,
};

static void xdg_surface_gone(struct wl_resource *r)
{
    struct xdg_surf *x = wl_resource_get_user_data(r);
    if (x->surface) x->surface->xdg = NULL;
    if (x->c->focus == x) x->c->focus = NULL;
    if (x->toplevel) wl_resource_set_user_data(x->toplevel, NULL);
    free(x);
}

static void positioner_destroy(struct wl_client *client, struct wl_resource *r) { wl_resource_destroy(r); }
static void positioner_set_size(struct wl_client *client, struct wl_resource *r, int32_t w, int32_t h) {}
static void positioner_set_anchor_rect(struct wl_client *client, struct wl_resource *r, int32_t x, int32_t y, int32_t w, int32_t h) {}
static void positioner_set_uint(struct wl_client *client, struct wl_resource *r, uint32_t v) {}
static void positioner_set_offset(struct wl_client *client, struct wl_resource *r, int32_t x, int32_t y) {}
static void positioner_set_reactive(struct wl_client *client, struct wl_resource *r) {}
static void positioner_set_parent_size(struct wl_client *client, struct wl_resource *r, int32_t w, int32_t h) {}
static void positioner_set_parent_configure(struct wl_client *client, struct wl_resource *r, uint32_t s) {}
static const struct xdg_positioner_interface positioner_impl = {
    positioner_destroy, positioner_set_size, positioner_set_anchor_rect, positioner_set_uint, positioner_set_uint,
    positioner_set_uint, positioner_set_offset, positioner_set_reactive,
    positioner_set_parent_size, positioner_set_parent_configure,
};

static void wm_destroy(struct wl_client *client, struct wl_resource *r) { wl_resource_destroy(r); }
static void wm_create_positioner(struct wl_client *client, struct wl_resource *r, uint32_t id)
{
    struct wl_resource *p = wl_resource_create(client, &xdg_positioner_interface, wl_resource_get_version(r), id);
    wl_resource_set_implementation(p, &positioner_impl, NULL, NULL);
}
static void wm_get_xdg_surface(struct wl_client *client, struct wl_resource *r, uint32_t id, struct wl_resource *surface)
{
    struct comp *c = wl_resource_get_user_data(r);
    struct surface *s = wl_resource_get_user_data(surface);
    if (s->xdg || s->has_buffer) {
        wl_resource_post_error(r, s->xdg ? XDG_WM_BASE_ERROR_ROLE : XDG_WM_BASE_ERROR_INVALID_SURFACE_STATE,
                               "wl_surface@%u already has a role or a buffer", wl_resource_get_id(surface));
        return;
    }
    struct xdg_surf *x = calloc(1, sizeof *x);
    x->c = c;
    x->surface = s;
    s->xdg = x;
    x->resource = wl_resource_create(client, &xdg_surface_interface, wl_resource_get_version(r), id);
    wl_resource_set_implementation(x->resource, &xdg_surface_impl, x, xdg_surface_gone);
}
static void wm_pong(struct wl_client *client, struct wl_resource *r, uint32_t serial)
{
    struct comp *c = wl_resource_get_user_data(r);
    if (serial != c->ping_serial) violation(c, "pong %u answers no outstanding ping", serial);
    else report(c, "pong %u", serial);
    c->ping_serial = 0;
}
static const struct xdg_wm_base_interface wm_impl = {wm_destroy, wm_create_positioner, wm_get_xdg_surface, wm_pong};

static struct wl_list wm_resources;
static void wm_resource_gone(struct wl_resource *r) { wl_list_remove(wl_resource_get_link(r)); }
static void wm_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
    struct wl_resource *r = wl_resource_create(client, &xdg_wm_base_interface, (int)version, id);
    wl_resource_set_implementation(r, &wm_impl, data, wm_resource_gone);
    wl_list_insert(&wm_resources, wl_resource_get_link(r));
    report(data, "bind xdg_wm_base v%u", version);
}

/* ------------------------------------------------------------------------------------------ */
/* wl_seat                                                                                     */

static void resource_release(struct wl_client *client, struct wl_resource *r) { wl_resource_destroy(r); }
static void unlink_resource(struct wl_resource *r) { wl_list_remove(wl_resource_get_link(r)); }

static void pointer_set_cursor(struct wl_client *client, struct wl_resource *r, uint32_t serial,
                               struct wl_resource *surface, int32_t x, int32_t y) {}
static const struct wl_pointer_interface pointer_impl = {pointer_set_cursor, resource_release};
static const struct wl_keyboard_interface keyboard_impl = {resource_release};
static const struct wl_touch_interface touch_impl = {resource_release};

static struct wl_client *focus_client(struct comp *c)
{
    return c->focus && c->focus->surface ? wl_resource_get_client(c->focus->surface->resource) : NULL;
}

static void keyboard_enter(struct comp *c, struct wl_resource *k)
{
    struct wl_array keys;
    wl_array_init(&keys);
    wl_keyboard_send_enter(k, next_serial(c), c->focus->surface->resource, &keys);
    wl_array_release(&keys);
    wl_keyboard_send_modifiers(k, next_serial(c),
                               xkb_state_serialize_mods(c->xkb, XKB_STATE_MODS_DEPRESSED),
                               xkb_state_serialize_mods(c->xkb, XKB_STATE_MODS_LATCHED),
                               xkb_state_serialize_mods(c->xkb, XKB_STATE_MODS_LOCKED),
                               xkb_state_serialize_layout(c->xkb, XKB_STATE_LAYOUT_EFFECTIVE));
}

static void send_keymap(struct comp *c, struct wl_resource *k)
{
    int fd = memfd_create("strict-keymap", MFD_CLOEXEC);
    if (fd < 0 || write(fd, c->keymap, c->keymap_size) != (ssize_t)c->keymap_size) {
        if (fd >= 0) close(fd);
        wl_keyboard_send_keymap(k, WL_KEYBOARD_KEYMAP_FORMAT_NO_KEYMAP, -1, 0);
        return;
    }
    wl_keyboard_send_keymap(k, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, (uint32_t)c->keymap_size);
    close(fd);
    if (wl_resource_get_version(k) >= 4) wl_keyboard_send_repeat_info(k, 25, 600);
}

/* The newly mapped toplevel gets keyboard focus on every keyboard its client has. */
static void send_focus(struct comp *c)
{
    struct wl_client *client = focus_client(c);
    if (!client || !(c->caps & WL_SEAT_CAPABILITY_KEYBOARD)) return;
    struct wl_resource *k;
    wl_resource_for_each(k, &c->keyboard_resources) if (wl_resource_get_client(k) == client) keyboard_enter(c, k);
    c->keyboard_in = true;
}

/* A wl_pointer, wl_keyboard or wl_touch for `client`, listed with the others of its kind. */
static struct wl_resource *seat_device(struct wl_client *client, struct wl_resource *seat, uint32_t id,
                                       const struct wl_interface *iface, const void *impl, struct wl_list *list)
{
    struct comp *c = wl_resource_get_user_data(seat);
    struct wl_resource *r = wl_resource_create(client, iface, wl_resource_get_version(seat), id);
    wl_resource_set_implementation(r, impl, c, unlink_resource);
    wl_list_insert(list, wl_resource_get_link(r));
    report(c, "get_%s", iface->name + 3); /* "wl_pointer" → "get_pointer" */
    return r;
}
static void seat_get_pointer(struct wl_client *client, struct wl_resource *r, uint32_t id)
{
    struct comp *c = wl_resource_get_user_data(r);
    seat_device(client, r, id, &wl_pointer_interface, &pointer_impl, &c->pointer_resources);
}
static void seat_get_keyboard(struct wl_client *client, struct wl_resource *r, uint32_t id)
{
    struct comp *c = wl_resource_get_user_data(r);
    struct wl_resource *k = seat_device(client, r, id, &wl_keyboard_interface, &keyboard_impl, &c->keyboard_resources);
    send_keymap(c, k);
    if (focus_client(c) == client) keyboard_enter(c, k);
}
static void seat_get_touch(struct wl_client *client, struct wl_resource *r, uint32_t id)
{
    struct comp *c = wl_resource_get_user_data(r);
    seat_device(client, r, id, &wl_touch_interface, &touch_impl, &c->touch_resources);
}
static const struct wl_seat_interface seat_impl = {seat_get_pointer, seat_get_keyboard, seat_get_touch, resource_release};

static void seat_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
    struct comp *c = data;
    struct wl_resource *r = wl_resource_create(client, &wl_seat_interface, (int)version, id);
    wl_resource_set_implementation(r, &seat_impl, c, unlink_resource);
    wl_list_insert(&c->seat_resources, wl_resource_get_link(r));
    wl_seat_send_capabilities(r, c->caps);
    if (version >= 2) wl_seat_send_name(r, "strict-seat");
    report(c, "bind wl_seat v%u", version);
}

static void set_caps(struct comp *c, uint32_t caps)
{
    c->caps = caps;
    struct wl_resource *r;
    wl_resource_for_each(r, &c->seat_resources) wl_seat_send_capabilities(r, caps);
    if (!(caps & WL_SEAT_CAPABILITY_POINTER)) c->pointer_in = false;
    if (!(caps & WL_SEAT_CAPABILITY_KEYBOARD)) c->keyboard_in = false;
    else if (!c->keyboard_in) send_focus(c);
}

/* ------------------------------------------------------------------------------------------ */
/* Control commands                                                                            */

static int parse_caps(const char *list, uint32_t *caps)
{
    *caps = 0;
    if (strcmp(list, "none") == 0) return 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (!strcmp(tok, "touch")) *caps |= WL_SEAT_CAPABILITY_TOUCH;
        else if (!strcmp(tok, "pointer")) *caps |= WL_SEAT_CAPABILITY_POINTER;
        else if (!strcmp(tok, "keyboard")) *caps |= WL_SEAT_CAPABILITY_KEYBOARD;
        else return -1;
    }
    return 0;
}

static int dump_picture(struct comp *c, const char *path)
{
    struct surface *s = c->focus ? c->focus->surface : NULL;
    if (!s || !s->picture) return -1;
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    fprintf(f, "P6\n%d %d\n255\n", s->lw, s->lh);
    uint8_t *row = malloc((size_t)s->lw * 3);
    for (int y = 0; y < s->lh; y++) {
        for (int x = 0; x < s->lw; x++) {
            uint32_t p = s->picture[(size_t)y * s->lw + x];
            row[x * 3] = (uint8_t)(p >> 16);
            row[x * 3 + 1] = (uint8_t)(p >> 8);
            row[x * 3 + 2] = (uint8_t)p;
        }
        fwrite(row, 1, (size_t)s->lw * 3, f);
    }
    free(row);
    return fclose(f) == 0 ? 0 : -1;
}

static void send_key(struct comp *c, uint32_t code, bool down)
{
    struct wl_client *client = focus_client(c);
    xkb_state_update_key(c->xkb, code + 8, down ? XKB_KEY_DOWN : XKB_KEY_UP);
    if (!client || !(c->caps & WL_SEAT_CAPABILITY_KEYBOARD)) return;
    struct wl_resource *k;
    wl_resource_for_each(k, &c->keyboard_resources) {
        if (wl_resource_get_client(k) != client) continue;
        wl_keyboard_send_key(k, next_serial(c), now_ms(), code,
                             down ? WL_KEYBOARD_KEY_STATE_PRESSED : WL_KEYBOARD_KEY_STATE_RELEASED);
        wl_keyboard_send_modifiers(k, next_serial(c),
                                   xkb_state_serialize_mods(c->xkb, XKB_STATE_MODS_DEPRESSED),
                                   xkb_state_serialize_mods(c->xkb, XKB_STATE_MODS_LATCHED),
                                   xkb_state_serialize_mods(c->xkb, XKB_STATE_MODS_LOCKED),
                                   xkb_state_serialize_layout(c->xkb, XKB_STATE_LAYOUT_EFFECTIVE));
    }
}

/* Where a skewed touchscreen reports a finger at surface point (x, y). */
static void skewed(struct comp *c, double *x, double *y)
{
    struct output *o = primary_output(c);
    if (!o || o->w <= 0 || o->h <= 0 || o->scale <= 0) return;
    double w = (double)o->w / o->scale, h = (double)o->h / o->scale;
    if (o->transform & 1) { double t = w; w = h; h = t; }
    const double *m = c->skew, nx = *x / w, ny = *y / h;
    *x = (m[0] * nx + m[1] * ny + m[2]) * w;
    *y = (m[3] * nx + m[4] * ny + m[5]) * h;
}

static int run_command(struct comp *c, const char *cmd, char *why, size_t whylen)
{
    int id, w, h, sc, tr, ms;
    double x, y, m[6];
    unsigned code;
    char word[128], name[64];
    struct wl_client *client = focus_client(c);
    struct wl_resource *r;

    if (sscanf(cmd, "configure %d %d", &w, &h) == 2) {
        if (!c->focus || !c->focus->toplevel) { snprintf(why, whylen, "no toplevel"); return -1; }
        xdg_send_configure(c->focus, w, h);
    } else if (sscanf(cmd, "output add %63s %d %d %d %d", name, &w, &h, &sc, &tr) == 5) {
        if (output_find(c, name)) { snprintf(why, whylen, "output %s exists", name); return -1; }
        output_add(c, name, w, h, sc, tr);
    } else if (sscanf(cmd, "output set %63s %d %d %d %d", name, &w, &h, &sc, &tr) == 5) {
        struct output *o = output_find(c, name);
        if (!o) { snprintf(why, whylen, "no output %s", name); return -1; }
        o->w = w; o->h = h; o->scale = sc; o->transform = tr;
        wl_resource_for_each(r, &o->resources) output_send_state(o, r);
    } else if (sscanf(cmd, "output mm %63s %d %d", name, &w, &h) == 3) {
        struct output *o = output_find(c, name);
        if (!o) { snprintf(why, whylen, "no output %s", name); return -1; }
        o->mm_w = w; o->mm_h = h;
        wl_resource_for_each(r, &o->resources) output_send_state(o, r);
    } else if (sscanf(cmd, "output remove %63s", name) == 1) {
        struct output *o = output_find(c, name);
        if (!o) { snprintf(why, whylen, "no output %s", name); return -1; }
        output_remove(c, o);
    } else if (sscanf(cmd, "caps %127s", word) == 1) {
        uint32_t caps;
        if (parse_caps(word, &caps) < 0) { snprintf(why, whylen, "caps: touch,pointer,keyboard or none"); return -1; }
        set_caps(c, caps);
    } else if (sscanf(cmd, "skew %lf %lf %lf %lf %lf %lf", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) == 6) {
        memcpy(c->skew, m, sizeof m);
    } else if (sscanf(cmd, "down %d %lf %lf", &id, &x, &y) == 3) {
        if (!client) { snprintf(why, whylen, "nothing mapped"); return -1; }
        skewed(c, &x, &y);
        wl_resource_for_each(r, &c->touch_resources)
            if (wl_resource_get_client(r) == client)
                wl_touch_send_down(r, next_serial(c), now_ms(), c->focus->surface->resource, id,
                                   wl_fixed_from_double(x), wl_fixed_from_double(y));
    } else if (sscanf(cmd, "motion %d %lf %lf", &id, &x, &y) == 3) {
        skewed(c, &x, &y);
        wl_resource_for_each(r, &c->touch_resources)
            if (wl_resource_get_client(r) == client)
                wl_touch_send_motion(r, now_ms(), id, wl_fixed_from_double(x), wl_fixed_from_double(y));
    } else if (sscanf(cmd, "up %d", &id) == 1) {
        wl_resource_for_each(r, &c->touch_resources)
            if (wl_resource_get_client(r) == client) wl_touch_send_up(r, next_serial(c), now_ms(), id);
    } else if (strcmp(cmd, "touch-frames never") == 0 || strcmp(cmd, "touch-frames normal") == 0) {
        c->touch_frames = strcmp(cmd, "touch-frames normal") == 0;
    } else if (strcmp(cmd, "frame") == 0) {
        wl_resource_for_each(r, &c->touch_resources)
            if (c->touch_frames && wl_resource_get_client(r) == client) wl_touch_send_frame(r);
    } else if (strcmp(cmd, "cancel") == 0) {
        wl_resource_for_each(r, &c->touch_resources)
            if (wl_resource_get_client(r) == client) wl_touch_send_cancel(r);
    } else if (sscanf(cmd, "pointer %lf %lf", &x, &y) == 2) {
        if (!client) { snprintf(why, whylen, "nothing mapped"); return -1; }
        wl_resource_for_each(r, &c->pointer_resources) {
            if (wl_resource_get_client(r) != client) continue;
            if (!c->pointer_in)
                wl_pointer_send_enter(r, next_serial(c), c->focus->surface->resource, wl_fixed_from_double(x), wl_fixed_from_double(y));
            wl_pointer_send_motion(r, now_ms(), wl_fixed_from_double(x), wl_fixed_from_double(y));
            if (wl_resource_get_version(r) >= 5) wl_pointer_send_frame(r);
        }
        c->pointer_in = true;
    } else if (sscanf(cmd, "button %127s", word) == 1 && (!strcmp(word, "down") || !strcmp(word, "up"))) {
        wl_resource_for_each(r, &c->pointer_resources) {
            if (wl_resource_get_client(r) != client) continue;
            wl_pointer_send_button(r, next_serial(c), now_ms(), BTN_LEFT,
                                   strcmp(word, "down") == 0 ? WL_POINTER_BUTTON_STATE_PRESSED : WL_POINTER_BUTTON_STATE_RELEASED);
            if (wl_resource_get_version(r) >= 5) wl_pointer_send_frame(r);
        }
    } else if (sscanf(cmd, "keydown %u", &code) == 1) {
        send_key(c, code, true);
    } else if (sscanf(cmd, "keyup %u", &code) == 1) {
        send_key(c, code, false);
    } else if (sscanf(cmd, "key %u", &code) == 1) {
        send_key(c, code, true);
        send_key(c, code, false);
    } else if (sscanf(cmd, "release late %d", &ms) == 1) {
        c->release = RELEASE_LATE; c->release_ms = ms;
    } else if (sscanf(cmd, "release %127s", word) == 1) {
        if (!strcmp(word, "normal")) {
            c->release = RELEASE_NORMAL;
            struct held *hb, *tmp;
            wl_list_for_each_safe(hb, tmp, &c->held, link) if (hb->replaced) held_release(hb);
        } else if (!strcmp(word, "immediate")) c->release = RELEASE_IMMEDIATE;
        else if (!strcmp(word, "never")) c->release = RELEASE_NEVER;
        else { snprintf(why, whylen, "release normal|immediate|never|late MS"); return -1; }
    } else if (sscanf(cmd, "frames late %d", &ms) == 1) {
        c->frames = FRAMES_LATE; c->frames_ms = ms;
    } else if (sscanf(cmd, "frames %127s", word) == 1) {
        if (!strcmp(word, "normal")) { c->frames = FRAMES_NORMAL; c->frames_damage_only = false; fire_due_frames(c, true); }
        else if (!strcmp(word, "damage-only")) c->frames_damage_only = true;
        else if (!strcmp(word, "withhold")) c->frames = FRAMES_WITHHOLD;
        else if (!strcmp(word, "flush")) fire_due_frames(c, true);
        else { snprintf(why, whylen, "frames normal|damage-only|withhold|flush|late MS"); return -1; }
    } else if (sscanf(cmd, "dump %127s", word) == 1) {
        if (dump_picture(c, word) < 0) { snprintf(why, whylen, "no picture to dump, or cannot write %s", word); return -1; }
    } else if (strcmp(cmd, "ping") == 0) {
        if (wl_list_empty(&wm_resources)) { snprintf(why, whylen, "nobody bound xdg_wm_base"); return -1; }
        c->ping_serial = next_serial(c);
        c->ping_sent = now_ns();
        wl_resource_for_each(r, &wm_resources) xdg_wm_base_send_ping(r, c->ping_serial);
    } else if (strcmp(cmd, "status") == 0) {
        report(c, "status violations=%u commits=%u buffers=%d max_buffers=%u frames=%u held=%d", c->violations,
               c->total_commits, wl_list_length(&c->alive), c->max_alive, c->frames_done, wl_list_length(&c->held));
    } else {
        snprintf(why, whylen, "unknown command");
        return -1;
    }
    return 0;
}

static int on_control(int fd, uint32_t mask, void *data)
{
    struct comp *c = data;
    for (;;) {
        ssize_t n = read(fd, c->line + c->used, sizeof c->line - 1 - c->used);
        if (n <= 0) break;
        c->used += (size_t)n;
        char *nl;
        while ((nl = memchr(c->line, '\n', c->used)) != NULL) {
            *nl = '\0';
            if (c->line[0] != '\0') {
                char why[256] = "";
                int r = run_command(c, c->line, why, sizeof why);
                c->commands++;
                if (r == 0) report(c, "ok %u %s", c->commands, c->line);
                else report(c, "error %u %s: %s", c->commands, c->line, why);
                wl_display_flush_clients(c->display);
            }
            size_t rest = c->used - (size_t)(nl + 1 - c->line);
            memmove(c->line, nl + 1, rest);
            c->used = rest;
        }
        if (c->used == sizeof c->line - 1) c->used = 0;
    }
    return 0;
}

/* Once per refresh: frame callbacks, late releases, overdue configures. */
static int on_tick(void *data)
{
    struct comp *c = data;
    fire_due_frames(c, false);
    uint64_t t = now_ns();
    struct held *h, *tmp;
    wl_list_for_each_safe(h, tmp, &c->held, link)
        if (c->release == RELEASE_LATE && h->replaced && h->release_at && h->release_at <= t) held_release(h);
    xdg_check_timeouts(c);
    wl_event_source_timer_update(c->tick, 1000 / c->refresh_hz);
    return 0;
}

static int on_signal(int sig, void *data)
{
    struct comp *c = data;
    wl_display_terminate(c->display);
    return 0;
}

/* A client on its way out: its resources are destroyed next, which is not the client's doing. */
static struct comp *the_comp;
static void client_destroyed(struct wl_listener *l, void *data)
{
    the_comp->dying = data;
    report(the_comp, "client gone");
    wl_list_remove(&l->link);
    free(l);
}
static void client_created(struct wl_listener *l, void *data)
{
    struct wl_listener *d = calloc(1, sizeof *d);
    d->notify = client_destroyed;
    wl_client_add_destroy_listener(data, d);
    report(the_comp, "client connected");
}
static struct wl_listener client_created_listener = {.notify = client_created};

/* ------------------------------------------------------------------------------------------ */

static int parse_output(struct comp *c, const char *spec)
{
    char name[64];
    int w, h, scale = 1, transform = 0;
    const char *colon = strchr(spec, ':');
    if (!colon || (size_t)(colon - spec) >= sizeof name) return -1;
    memcpy(name, spec, (size_t)(colon - spec));
    name[colon - spec] = '\0';
    if (sscanf(colon + 1, "%dx%d", &w, &h) != 2 || w <= 0 || h <= 0) return -1;
    const char *at = strchr(colon + 1, '@');
    if (at) scale = atoi(at + 1);
    const char *t = strchr(colon + 1, ':');
    if (t) transform = atoi(t + 1);
    if (scale < 1 || transform < 0 || transform > 7) return -1;
    output_add(c, name, w, h, scale, transform);
    return 0;
}

int main(int argc, char **argv)
{
    static struct comp comp;
    struct comp *c = &comp;
    const char *socket = NULL, *control = NULL, *report_path = NULL;
    c->refresh_hz = 60;
    c->configure_timeout_ms = 1000;
    c->touch_frames = true;
    c->skew[0] = c->skew[4] = 1;
    c->first_w = c->first_h = -1;
    c->caps = WL_SEAT_CAPABILITY_TOUCH | WL_SEAT_CAPABILITY_POINTER | WL_SEAT_CAPABILITY_KEYBOARD;
    wl_list_init(&c->outputs);
    wl_list_init(&c->surfaces);
    wl_list_init(&c->held);
    wl_list_init(&c->alive);
    wl_list_init(&c->frame_queue);
    wl_list_init(&c->seat_resources);
    wl_list_init(&c->touch_resources);
    wl_list_init(&c->pointer_resources);
    wl_list_init(&c->keyboard_resources);
    wl_list_init(&wm_resources);

    c->display = wl_display_create();
    c->loop = wl_display_get_event_loop(c->display);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) { fprintf(stderr, "strict-compositor: %s needs a value\n", a); return 2; }
        i++;
        if (!strcmp(a, "--socket")) socket = v;
        else if (!strcmp(a, "--control")) control = v;
        else if (!strcmp(a, "--report")) report_path = v;
        else if (!strcmp(a, "--refresh")) c->refresh_hz = atoi(v) > 0 ? atoi(v) : 60;
        else if (!strcmp(a, "--configure-timeout")) c->configure_timeout_ms = atoi(v);
        else if (!strcmp(a, "--caps")) {
            if (parse_caps(v, &c->caps) < 0) { fprintf(stderr, "strict-compositor: bad --caps %s\n", v); return 2; }
        } else if (!strcmp(a, "--first-configure")) {
            if (strcmp(v, "output") != 0 && sscanf(v, "%dx%d", &c->first_w, &c->first_h) != 2) {
                fprintf(stderr, "strict-compositor: bad --first-configure %s\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--output")) {
            if (parse_output(c, v) < 0) { fprintf(stderr, "strict-compositor: bad --output %s (NAME:WxH[@S][:T])\n", v); return 2; }
        } else {
            fprintf(stderr, "strict-compositor: unknown option %s\n", a);
            return 2;
        }
    }
    if (!socket || !control || !report_path) {
        fprintf(stderr, "usage: strict-compositor --socket NAME --control FIFO --report FILE [--output NAME:WxH[@S][:T]]...\n");
        return 2;
    }
    c->report = fopen(report_path, "a");
    c->control_fd = open(control, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (!c->report || c->control_fd < 0) {
        fprintf(stderr, "strict-compositor: cannot open %s / %s: %s\n", report_path, control, strerror(errno));
        return 1;
    }
    if (wl_list_empty(&c->outputs)) output_add(c, "STRICT-1", 1920, 1080, 1, 0);

    c->xkb_ctx = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
    struct xkb_rule_names names = {.layout = "us"};
    c->xkb_map = c->xkb_ctx ? xkb_keymap_new_from_names(c->xkb_ctx, &names, XKB_KEYMAP_COMPILE_NO_FLAGS) : NULL;
    if (!c->xkb_map) { fprintf(stderr, "strict-compositor: cannot compile a us keymap\n"); return 1; }
    c->xkb = xkb_state_new(c->xkb_map);
    c->keymap = xkb_keymap_get_as_string(c->xkb_map, XKB_KEYMAP_FORMAT_TEXT_V1);
    c->keymap_size = strlen(c->keymap) + 1;

    if (wl_display_add_socket(c->display, socket) < 0) {
        fprintf(stderr, "strict-compositor: cannot create socket %s: %s\n", socket, strerror(errno));
        return 1;
    }
    wl_display_init_shm(c->display);
    wl_global_create(c->display, &wl_compositor_interface, 5, c, compositor_bind);
    wl_global_create(c->display, &xdg_wm_base_interface, 5, c, wm_bind);
    c->seat_global = wl_global_create(c->display, &wl_seat_interface, 8, c, seat_bind);
    wl_event_loop_add_fd(c->loop, c->control_fd, WL_EVENT_READABLE, on_control, c);
    c->tick = wl_event_loop_add_timer(c->loop, on_tick, c);
    wl_event_source_timer_update(c->tick, 1000 / c->refresh_hz);
    wl_event_loop_add_signal(c->loop, SIGTERM, on_signal, c);
    wl_event_loop_add_signal(c->loop, SIGINT, on_signal, c);
    the_comp = c;
    wl_display_add_client_created_listener(c->display, &client_created_listener);
    report(c, "ready %s", socket);
    wl_display_run(c->display);
    report(c, "exit violations=%u commits=%u", c->violations, c->total_commits);
    wl_display_destroy_clients(c->display);
    wl_display_destroy(c->display);
    return 0;
}
