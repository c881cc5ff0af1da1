#include "CSensors.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-bus.h>

#define PROXY "net.hadess.SensorProxy"
#define PROXY_PATH "/net/hadess/SensorProxy"
#define PROPERTIES "org.freedesktop.DBus.Properties"

struct kiosk_sensors {
    sd_bus *bus;
    kiosk_sensor_callback callback;
    void *context;
    int claimed;
};

static void report(struct kiosk_sensors *s, int what, const char *text) { s->callback(s->context, what, text); }

static void report_error(struct kiosk_sensors *s, int what, const sd_bus_error *e) {
    char text[512];
    snprintf(text, sizeof text, "%s: %s", e && e->name ? e->name : "error", e && e->message ? e->message : "");
    report(s, what, text);
}

/* A claim: 0 none, 1 asked, 2 held. */
enum { UNCLAIMED, CLAIMING, CLAIMED };

static int ask_properties(struct kiosk_sensors *s);
static int claim(struct kiosk_sensors *s);

/* One a{sv} of the proxy's properties: the two the kiosk follows. The proxy reads the sensor
 * only for a claimant, so the orientation counts once the claim is held. */
static int read_properties(struct kiosk_sensors *s, sd_bus_message *m) {
    int has = -1, r;
    char orientation[32] = "";
    if ((r = sd_bus_message_enter_container(m, 'a', "{sv}")) < 0) return r;
    while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
        const char *name;
        if ((r = sd_bus_message_read(m, "s", &name)) < 0) return r;
        if (strcmp(name, "HasAccelerometer") == 0) {
            if ((r = sd_bus_message_read(m, "v", "b", &has)) < 0) return r;
        } else if (strcmp(name, "AccelerometerOrientation") == 0) {
            const char *text;
            if ((r = sd_bus_message_read(m, "v", "s", &text)) < 0) return r;
            snprintf(orientation, sizeof orientation, "%s", text);
        } else if ((r = sd_bus_message_skip(m, "v")) < 0) {
            return r;
        }
        if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    }
    if (r < 0) return r;
    if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    if (has >= 0) report(s, KIOSK_SENSOR_ACCELEROMETER, has ? "true" : "false");
    if (has == 0) s->claimed = UNCLAIMED;
    if (has > 0 && s->claimed == UNCLAIMED) return claim(s);
    if (orientation[0] && s->claimed == CLAIMED) report(s, KIOSK_SENSOR_ORIENTATION, orientation);
    return 0;
}

static int on_claimed(sd_bus_message *m, void *data, sd_bus_error *unused) {
    struct kiosk_sensors *s = data;
    (void)unused;
    if (sd_bus_message_is_method_error(m, NULL)) {
        s->claimed = UNCLAIMED;
        report_error(s, KIOSK_SENSOR_ERROR, sd_bus_message_get_error(m));
        return 0;
    }
    s->claimed = CLAIMED;
    ask_properties(s);
    return 0;
}

static int claim(struct kiosk_sensors *s) {
    s->claimed = CLAIMING;
    return sd_bus_call_method_async(s->bus, NULL, PROXY, PROXY_PATH, PROXY, "ClaimAccelerometer", on_claimed, s, "");
}

static int on_properties(sd_bus_message *m, void *data, sd_bus_error *unused) {
    struct kiosk_sensors *s = data;
    (void)unused;
    if (sd_bus_message_is_method_error(m, NULL)) {
        const sd_bus_error *e = sd_bus_message_get_error(m);
        int missing = sd_bus_error_has_name(e, "org.freedesktop.DBus.Error.ServiceUnknown") ||
                      sd_bus_error_has_name(e, "org.freedesktop.DBus.Error.NameHasNoOwner");
        report_error(s, missing ? KIOSK_SENSOR_NO_PROXY : KIOSK_SENSOR_ERROR, e);
        return 0;
    }
    if (read_properties(s, m) < 0) report(s, KIOSK_SENSOR_ERROR, "the proxy's properties could not be read");
    return 0;
}

static int ask_properties(struct kiosk_sensors *s) {
    return sd_bus_call_method_async(s->bus, NULL, PROXY, PROXY_PATH, PROPERTIES, "GetAll", on_properties, s, "s", PROXY);
}

static int on_changed(sd_bus_message *m, void *data, sd_bus_error *unused) {
    struct kiosk_sensors *s = data;
    const char *interface;
    (void)unused;
    if (sd_bus_message_read(m, "s", &interface) < 0 || strcmp(interface, PROXY) != 0) return 0;
    if (read_properties(s, m) < 0) report(s, KIOSK_SENSOR_ERROR, "a change of the proxy's properties could not be read");
    return 0;
}

/* The proxy started (udev starts iio-sensor-proxy when it finds a sensor, maybe after the
 * kiosk) or stopped: a new one is asked again, and claimed again. */
static int on_owner(sd_bus_message *m, void *data, sd_bus_error *unused) {
    struct kiosk_sensors *s = data;
    const char *name, *old, *new;
    (void)unused;
    if (sd_bus_message_read(m, "sss", &name, &old, &new) < 0 || strcmp(name, PROXY) != 0) return 0;
    s->claimed = UNCLAIMED;
    if (!new || !new[0]) {
        report(s, KIOSK_SENSOR_NO_PROXY, "iio-sensor-proxy left the bus");
        return 0;
    }
    report(s, KIOSK_SENSOR_PROXY, new);
    ask_properties(s);
    return 0;
}

struct kiosk_sensors *kiosk_sensors_open(kiosk_sensor_callback callback, void *context, char *error, size_t error_size) {
    struct kiosk_sensors *s = calloc(1, sizeof *s);
    int r;
    if (!s) {
        snprintf(error, error_size, "%s", strerror(ENOMEM));
        return NULL;
    }
    s->callback = callback;
    s->context = context;
    if ((r = sd_bus_open_system(&s->bus)) < 0) {
        snprintf(error, error_size, "%s", strerror(-r));
        free(s);
        return NULL;
    }
    if ((r = sd_bus_add_match_async(s->bus, NULL, "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='" PROXY "'",
                                    on_owner, NULL, s)) < 0 ||
        (r = sd_bus_add_match_async(s->bus, NULL, "type='signal',path='" PROXY_PATH "',interface='" PROPERTIES "',member='PropertiesChanged',arg0='" PROXY "'",
                                    on_changed, NULL, s)) < 0 ||
        (r = ask_properties(s)) < 0) {
        snprintf(error, error_size, "%s", strerror(-r));
        sd_bus_flush_close_unref(s->bus);
        free(s);
        return NULL;
    }
    return s;
}

int kiosk_sensors_fd(struct kiosk_sensors *s) { return sd_bus_get_fd(s->bus); }

int kiosk_sensors_process(struct kiosk_sensors *s) {
    int r;
    while ((r = sd_bus_process(s->bus, NULL)) > 0) {}
    if (r < 0) return r;
    /* The loop watches for reading only: what a full socket kept back is written out here
     * (a few small messages; the bus reads them at once). */
    if ((sd_bus_get_events(s->bus) & POLLOUT) && (r = sd_bus_flush(s->bus)) < 0) return r;
    return 0;
}

double kiosk_sensors_timeout(struct kiosk_sensors *s) {
    uint64_t at = 0;
    struct timespec now;
    if (sd_bus_get_timeout(s->bus, &at) <= 0 || at == UINT64_MAX) return -1;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double left = (double)at / 1e6 - ((double)now.tv_sec + (double)now.tv_nsec / 1e9);
    return left > 0 ? left : 0;
}

void kiosk_sensors_close(struct kiosk_sensors *s) {
    /* The proxy releases a claim whose owner left the bus. */
    if (!s) return;
    sd_bus_flush_close_unref(s->bus);
    free(s);
}
