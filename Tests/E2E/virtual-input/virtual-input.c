/*
 * virtual-input: one virtual pointer and one virtual keyboard that stay plugged in, for the
 * end-to-end tests under wlroots compositors (sway) that have no input devices when headless.
 *
 * One-shot tools (wtype, wlroots's virtual-pointer example) plug a device in, send, and unplug
 * it: the seat gains and loses the capability around the event, and a client that binds its
 * wl_pointer or wl_keyboard only when it hears of the capability usually misses the event.
 * Here the devices are created once; commands then arrive on stdin, one per line, each answered
 * on stdout with "ok N" after a roundtrip (the compositor has handled it):
 *   pointer X Y W H      absolute motion to X,Y within a W×H area (the output layout)
 *   button down|up       BTN_LEFT
 *   key CODE | keydown CODE | keyup CODE      evdev key codes (59 = F1)
 *
 * The protocol XML beside this file is wlroots 0.15.1's (Debian source package), MIT licensed.
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
#include <xkbcommon/xkbcommon.h>
#include "virtual-keyboard-unstable-v1-client-protocol.h"
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

#define BTN_LEFT 0x110

static struct wl_seat *seat;
static struct zwlr_virtual_pointer_manager_v1 *pointer_manager;
static struct zwp_virtual_keyboard_manager_v1 *keyboard_manager;

static void global(void *d, struct wl_registry *r, uint32_t name, const char *iface, uint32_t v)
{
    if (!strcmp(iface, "wl_seat") && !seat) seat = wl_registry_bind(r, name, &wl_seat_interface, 1);
    else if (!strcmp(iface, "zwlr_virtual_pointer_manager_v1"))
        pointer_manager = wl_registry_bind(r, name, &zwlr_virtual_pointer_manager_v1_interface, 1);
    else if (!strcmp(iface, "zwp_virtual_keyboard_manager_v1"))
        keyboard_manager = wl_registry_bind(r, name, &zwp_virtual_keyboard_manager_v1_interface, 1);
}
static void global_remove(void *d, struct wl_registry *r, uint32_t name) {}
static const struct wl_registry_listener registry_listener = {global, global_remove};

static uint32_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)(ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

int main(void)
{
    struct wl_display *d = wl_display_connect(NULL);
    if (!d) { fprintf(stderr, "virtual-input: cannot connect to the Wayland display\n"); return 1; }
    struct wl_registry *reg = wl_display_get_registry(d);
    wl_registry_add_listener(reg, &registry_listener, NULL);
    wl_display_roundtrip(d);
    if (!seat || !pointer_manager || !keyboard_manager) {
        fprintf(stderr, "virtual-input: the compositor offers no%s%s%s\n", seat ? "" : " wl_seat",
                pointer_manager ? "" : " zwlr_virtual_pointer_manager_v1", keyboard_manager ? "" : " zwp_virtual_keyboard_manager_v1");
        return 1;
    }
    struct zwlr_virtual_pointer_v1 *pointer = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(pointer_manager, seat);
    struct zwp_virtual_keyboard_v1 *keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(keyboard_manager, seat);

    /* A keyboard sends nothing without a keymap: a plain US one. */
    struct xkb_context *ctx = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
    struct xkb_rule_names names = {.layout = "us"};
    struct xkb_keymap *map = ctx ? xkb_keymap_new_from_names(ctx, &names, XKB_KEYMAP_COMPILE_NO_FLAGS) : NULL;
    char *text = map ? xkb_keymap_get_as_string(map, XKB_KEYMAP_FORMAT_TEXT_V1) : NULL;
    if (!text) { fprintf(stderr, "virtual-input: cannot compile a keymap\n"); return 1; }
    size_t size = strlen(text) + 1;
    int fd = memfd_create("virtual-input-keymap", MFD_CLOEXEC);
    if (fd < 0 || write(fd, text, size) != (ssize_t)size) { fprintf(stderr, "virtual-input: keymap file\n"); return 1; }
    zwp_virtual_keyboard_v1_keymap(keyboard, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, (uint32_t)size);
    close(fd);
    wl_display_roundtrip(d);
    printf("ready\n");
    fflush(stdout);

    char line[256];
    unsigned n = 0;
    while (fgets(line, sizeof line, stdin)) {
        unsigned x, y, w, h, code;
        char word[16];
        int ok = 1;
        if (sscanf(line, "pointer %u %u %u %u", &x, &y, &w, &h) == 4) {
            zwlr_virtual_pointer_v1_motion_absolute(pointer, now_ms(), x, y, w, h);
            zwlr_virtual_pointer_v1_frame(pointer);
        } else if (sscanf(line, "button %15s", word) == 1 && (!strcmp(word, "down") || !strcmp(word, "up"))) {
            zwlr_virtual_pointer_v1_button(pointer, now_ms(), BTN_LEFT,
                                           strcmp(word, "down") ? WL_POINTER_BUTTON_STATE_RELEASED : WL_POINTER_BUTTON_STATE_PRESSED);
            zwlr_virtual_pointer_v1_frame(pointer);
        } else if (sscanf(line, "keydown %u", &code) == 1) {
            zwp_virtual_keyboard_v1_key(keyboard, now_ms(), code, WL_KEYBOARD_KEY_STATE_PRESSED);
        } else if (sscanf(line, "keyup %u", &code) == 1) {
            zwp_virtual_keyboard_v1_key(keyboard, now_ms(), code, WL_KEYBOARD_KEY_STATE_RELEASED);
        } else if (sscanf(line, "key %u", &code) == 1) {
            zwp_virtual_keyboard_v1_key(keyboard, now_ms(), code, WL_KEYBOARD_KEY_STATE_PRESSED);
            zwp_virtual_keyboard_v1_key(keyboard, now_ms(), code, WL_KEYBOARD_KEY_STATE_RELEASED);
        } else {
            ok = 0;
        }
        if (wl_display_roundtrip(d) < 0) { fprintf(stderr, "virtual-input: lost the compositor\n"); return 1; }
        printf("%s %u\n", ok ? "ok" : "error", ++n);
        fflush(stdout);
    }
    zwlr_virtual_pointer_v1_destroy(pointer);
    zwp_virtual_keyboard_v1_destroy(keyboard);
    wl_display_roundtrip(d);
    return 0;
}
