/*
 * kiosk-test-input: a weston module (10 on Debian 12, 14 on Debian 13) for Kiosk's end-to-end
 * tests and `make run`'s headless preview.
 *
 * weston's headless backend has no input devices, and kiosk-shell never maps a surface while no
 * wl_seat exists. This module creates one seat with touch, pointer and keyboard, then reads
 * line commands from the FIFO named by $KIOSK_TEST_FIFO and feeds them to weston as if they came
 * from real devices. After each command it appends "ok <n> <command>" (or "error <n> ...") to
 * $KIOSK_TEST_ACKS so the test knows the event has been sent to clients.
 *
 * Commands (coordinates are global compositor coordinates):
 *   down ID X Y | motion ID X Y | up ID | frame | cancel | unplug | plug (the touchscreen)
 *   pointer X Y | button down|up          (BTN_LEFT)
 *   key CODE | keydown CODE | keyup CODE   (evdev key codes, e.g. 30 = KEY_A)
 *   transform normal|rotate-90|rotate-180|rotate-270|flipped|flipped-90|flipped-180|flipped-270
 *   skew A B C D E F   a touchscreen that reports every finger elsewhere: touches are moved by
 *                      this matrix (libinput's convention, on the first output's normalized
 *                      coordinates) before weston hears of them; skew 1 0 0 0 1 0 undoes it
 *
 * Build: cc -shared -fPIC $(pkg-config --cflags --libs libweston-14) -o kiosk-test-input.so
 * Load:  weston --modules=/absolute/path/kiosk-test-input.so ...
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <wayland-server.h>
#include <libweston/libweston.h>
#include <libweston/version.h>

/* Exported by libweston but declared only in its private headers (backend.h,
 * libweston-internal.h); the signatures below are weston 10.0's and, where weston 12 moved
 * positions into struct weston_coord_global, 14.0's. */
void weston_seat_init(struct weston_seat *seat, struct weston_compositor *ec, const char *seat_name);
void weston_seat_release(struct weston_seat *seat);
void weston_seat_init_pointer(struct weston_seat *seat);
int weston_seat_init_keyboard(struct weston_seat *seat, struct xkb_keymap *keymap);
void weston_seat_init_touch(struct weston_seat *seat);
void weston_seat_release_touch(struct weston_seat *seat);
void weston_touch_device_destroy(struct weston_touch_device *device);
struct weston_touch_device *weston_touch_create_touch_device(struct weston_touch *touch, const char *syspath,
                                                             void *backend_data,
                                                             const struct weston_touch_device_ops *ops);
#if WESTON_VERSION_MAJOR >= 12
#define HAS_COORD 1
void notify_touch_normalized(struct weston_touch_device *device, const struct timespec *time, int touch_id,
                             const struct weston_coord_global *pos,
                             const struct weston_point2d_device_normalized *norm, int touch_type);
void notify_motion_absolute(struct weston_seat *seat, const struct timespec *time, struct weston_coord_global pos);
#else
#define HAS_COORD 0
void notify_touch_normalized(struct weston_touch_device *device, const struct timespec *time, int touch_id,
                             double x, double y, const struct weston_point2d_device_normalized *norm,
                             int touch_type);
void notify_motion_absolute(struct weston_seat *seat, const struct timespec *time, double x, double y);
#endif
void notify_touch_frame(struct weston_touch_device *device);
void notify_touch_cancel(struct weston_touch_device *device);
void notify_key(struct weston_seat *seat, const struct timespec *time, uint32_t key,
                enum wl_keyboard_key_state state, enum weston_key_state_update update_state);
void notify_button(struct weston_seat *seat, const struct timespec *time, int32_t button,
                   enum wl_pointer_button_state state);
void notify_pointer_frame(struct weston_seat *seat);

#define BTN_LEFT 0x110

struct test_input {
    struct weston_compositor *compositor;
    struct weston_seat seat;
    struct weston_touch_device *touch;
    struct wl_event_source *source;
    struct wl_listener destroy;
    int fd;
    FILE *acks;
    char line[1024];
    size_t used;
    unsigned count;
    double skew[6];
};

static void now(struct timespec *ts) { clock_gettime(CLOCK_MONOTONIC, ts); }

/* The one place the two weston APIs differ: a position, and an output's origin. */
static void send_touch(struct test_input *ti, const struct timespec *ts, int id, double x, double y, int type)
{
#if HAS_COORD
    struct weston_coord_global pos = {.c = {.x = x, .y = y}};
    notify_touch_normalized(ti->touch, ts, id, type == WL_TOUCH_UP ? NULL : &pos, NULL, type);
#else
    notify_touch_normalized(ti->touch, ts, id, x, y, NULL, type);
#endif
}

static void pointer_to(struct test_input *ti, const struct timespec *ts, double x, double y)
{
#if HAS_COORD
    notify_motion_absolute(&ti->seat, ts, (struct weston_coord_global){.c = {.x = x, .y = y}});
#else
    notify_motion_absolute(&ti->seat, ts, x, y);
#endif
}

static void output_origin(struct weston_output *o, double *x, double *y)
{
#if HAS_COORD
    *x = o->pos.c.x, *y = o->pos.c.y;
#else
    *x = o->x, *y = o->y;
#endif
}

static struct weston_output *first_output(struct weston_compositor *c)
{
    struct weston_output *o;
    wl_list_for_each(o, &c->output_list, link) return o;
    return NULL;
}

static int parse_transform(const char *name, uint32_t *out)
{
    static const char *names[] = {"normal", "rotate-90", "rotate-180", "rotate-270",
                                  "flipped", "flipped-90", "flipped-180", "flipped-270"};
    for (uint32_t i = 0; i < 8; i++)
        if (strcmp(name, names[i]) == 0) { *out = i; return 0; }
    return -1;
}

/* Where a skewed touchscreen reports a finger at global (x, y). */
static void skewed(struct test_input *ti, double *x, double *y)
{
    struct weston_output *o = first_output(ti->compositor);
    if (!o || o->width <= 0 || o->height <= 0) return;
    const double *m = ti->skew;
    double ox, oy;
    output_origin(o, &ox, &oy);
    double nx = (*x - ox) / o->width, ny = (*y - oy) / o->height;
    *x = ox + (m[0] * nx + m[1] * ny + m[2]) * o->width;
    *y = oy + (m[3] * nx + m[4] * ny + m[5]) * o->height;
}

static int run_command(struct test_input *ti, const char *cmd)
{
    struct timespec ts;
    int id;
    double x, y;
    unsigned code;
    char word[32];
    now(&ts);

    double m[6];
    int touches = !strncmp(cmd, "down ", 5) || !strncmp(cmd, "motion ", 7) || !strncmp(cmd, "up ", 3) ||
                  !strcmp(cmd, "frame") || !strcmp(cmd, "cancel");
    if (touches && !ti->touch)
        return -1; /* unplugged */
    if (sscanf(cmd, "down %d %lf %lf", &id, &x, &y) == 3) {
        skewed(ti, &x, &y);
        send_touch(ti, &ts, id, x, y, WL_TOUCH_DOWN);
    } else if (sscanf(cmd, "motion %d %lf %lf", &id, &x, &y) == 3) {
        skewed(ti, &x, &y);
        send_touch(ti, &ts, id, x, y, WL_TOUCH_MOTION);
    } else if (sscanf(cmd, "skew %lf %lf %lf %lf %lf %lf", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) == 6) {
        memcpy(ti->skew, m, sizeof m);
    } else if (sscanf(cmd, "up %d", &id) == 1) {
        send_touch(ti, &ts, id, 0, 0, WL_TOUCH_UP);
    } else if (strcmp(cmd, "frame") == 0) {
        notify_touch_frame(ti->touch);
    } else if (strcmp(cmd, "cancel") == 0) {
        /* weston 10's default touch grab ignores cancel, so the client would never hear of it:
         * send wl_touch.cancel to the focused client ourselves, then reset weston's state. */
        struct weston_touch *touch = ti->seat.touch_state;
        struct wl_resource *r;
        wl_resource_for_each(r, &touch->focus_resource_list) wl_touch_send_cancel(r);
        notify_touch_cancel(ti->touch);
        touch->num_tp = 0;
    } else if (strcmp(cmd, "unplug") == 0) {
        /* The touchscreen pulled out: the device goes, then the seat's touch capability (clients
         * get wl_seat.capabilities without touch; weston sends no up for a finger still down). */
        if (!ti->touch)
            return -1;
        weston_touch_device_destroy(ti->touch);
        ti->touch = NULL;
        weston_seat_release_touch(&ti->seat);
    } else if (strcmp(cmd, "plug") == 0) {
        if (ti->touch)
            return -1;
        weston_seat_init_touch(&ti->seat);
        ti->touch = weston_touch_create_touch_device(ti->seat.touch_state, "kiosk-test-touch", NULL, NULL);
        if (!ti->touch)
            return -1;
    } else if (sscanf(cmd, "pointer %lf %lf", &x, &y) == 2) {
        pointer_to(ti, &ts, x, y);
        notify_pointer_frame(&ti->seat);
    } else if (sscanf(cmd, "button %31s", word) == 1 && (!strcmp(word, "down") || !strcmp(word, "up"))) {
        notify_button(&ti->seat, &ts, BTN_LEFT,
                      strcmp(word, "down") == 0 ? WL_POINTER_BUTTON_STATE_PRESSED : WL_POINTER_BUTTON_STATE_RELEASED);
        notify_pointer_frame(&ti->seat);
    } else if (sscanf(cmd, "keydown %u", &code) == 1) {
        notify_key(&ti->seat, &ts, code, WL_KEYBOARD_KEY_STATE_PRESSED, STATE_UPDATE_AUTOMATIC);
    } else if (sscanf(cmd, "keyup %u", &code) == 1) {
        notify_key(&ti->seat, &ts, code, WL_KEYBOARD_KEY_STATE_RELEASED, STATE_UPDATE_AUTOMATIC);
    } else if (sscanf(cmd, "key %u", &code) == 1) {
        notify_key(&ti->seat, &ts, code, WL_KEYBOARD_KEY_STATE_PRESSED, STATE_UPDATE_AUTOMATIC);
        now(&ts);
        notify_key(&ti->seat, &ts, code, WL_KEYBOARD_KEY_STATE_RELEASED, STATE_UPDATE_AUTOMATIC);
    } else if (sscanf(cmd, "transform %31s", word) == 1) {
        uint32_t t;
        struct weston_output *o = first_output(ti->compositor);
        if (!o || parse_transform(word, &t) < 0)
            return -1;
        weston_output_set_transform(o, t);
        /* set_transform alone does not re-configure shell surfaces; the shells listen here. */
        wl_signal_emit(&ti->compositor->output_resized_signal, o);
    } else {
        return -1;
    }
    return 0;
}

static int on_readable(int fd, uint32_t mask, void *data)
{
    struct test_input *ti = data;
    for (;;) {
        ssize_t n = read(fd, ti->line + ti->used, sizeof ti->line - 1 - ti->used);
        if (n <= 0)
            break;
        ti->used += (size_t)n;
        char *nl;
        while ((nl = memchr(ti->line, '\n', ti->used)) != NULL) {
            *nl = '\0';
            if (ti->line[0] != '\0') {
                int r = run_command(ti, ti->line);
                ti->count++;
                fprintf(ti->acks, "%s %u %s\n", r == 0 ? "ok" : "error", ti->count, ti->line);
                fflush(ti->acks);
            }
            size_t rest = ti->used - (size_t)(nl + 1 - ti->line);
            memmove(ti->line, nl + 1, rest);
            ti->used = rest;
        }
        if (ti->used == sizeof ti->line - 1)
            ti->used = 0; /* a line longer than any command: drop it */
    }
    return 0;
}

static void on_destroy(struct wl_listener *l, void *data)
{
    struct test_input *ti = wl_container_of(l, ti, destroy);
    wl_list_remove(&ti->destroy.link);
    if (ti->source)
        wl_event_source_remove(ti->source);
    close(ti->fd);
    fclose(ti->acks);
    /* The seat itself is torn down with the compositor. */
}

WL_EXPORT int wet_module_init(struct weston_compositor *compositor, int *argc, char *argv[])
{
    const char *fifo = getenv("KIOSK_TEST_FIFO"), *acks = getenv("KIOSK_TEST_ACKS");
    if (!fifo || !acks) {
        weston_log("kiosk-test-input: set KIOSK_TEST_FIFO and KIOSK_TEST_ACKS\n");
        return -1;
    }
    struct test_input *ti = calloc(1, sizeof *ti);
    if (ti) ti->skew[0] = ti->skew[4] = 1; /* no skew */
    if (!ti)
        return -1;
    ti->compositor = compositor;
    /* O_RDWR keeps a writer open ourselves, so the FIFO never reports EOF between test writes. */
    ti->fd = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    ti->acks = fopen(acks, "a");
    if (ti->fd < 0 || !ti->acks) {
        weston_log("kiosk-test-input: cannot open %s / %s: %s\n", fifo, acks, strerror(errno));
        free(ti);
        return -1;
    }
    weston_seat_init(&ti->seat, compositor, "kiosk-test");
    weston_seat_init_pointer(&ti->seat);
    weston_seat_init_keyboard(&ti->seat, NULL);
    weston_seat_init_touch(&ti->seat);
    ti->touch = weston_touch_create_touch_device(ti->seat.touch_state, "kiosk-test-touch", NULL, NULL);
    if (!ti->touch) {
        weston_log("kiosk-test-input: cannot create the touch device\n");
        return -1;
    }
    ti->source = wl_event_loop_add_fd(wl_display_get_event_loop(compositor->wl_display), ti->fd,
                                      WL_EVENT_READABLE, on_readable, ti);
    ti->destroy.notify = on_destroy;
    wl_signal_add(&compositor->destroy_signal, &ti->destroy);
    weston_log("kiosk-test-input: seat ready, reading %s\n", fifo);
    return 0;
}
