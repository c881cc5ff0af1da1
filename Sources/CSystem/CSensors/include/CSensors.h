#ifndef KIOSK_CSENSORS_H
#define KIOSK_CSENSORS_H
/* The panel's accelerometer as iio-sensor-proxy reports it on the system bus
 * (net.hadess.SensorProxy), through libsystemd's sd-bus: the varargs of sd-bus's message
 * reading are C's, not Swift's. Everything runs on the caller's event loop: the connection's
 * descriptor is watched there and kiosk_sensors_process called when it is readable. */
#include <stddef.h>

/* What the proxy says, each handed to the report callback with its text. */
enum kiosk_sensor_report {
    KIOSK_SENSOR_NO_PROXY = 1,      /* no net.hadess.SensorProxy on the bus (text: the bus's error) */
    KIOSK_SENSOR_PROXY = 2,         /* the proxy is on the bus (text: its unique name) */
    KIOSK_SENSOR_ACCELEROMETER = 3, /* HasAccelerometer (text: "true" or "false") */
    KIOSK_SENSOR_ORIENTATION = 4,   /* AccelerometerOrientation (text: normal, left-up, right-up, bottom-up, undefined) */
    KIOSK_SENSOR_ERROR = 5,         /* a call refused (text: the D-Bus error's name and message) */
};

typedef void (*kiosk_sensor_callback)(void *context, int report, const char *text);

struct kiosk_sensors;

/* Connects to the system bus ($DBUS_SYSTEM_BUS_ADDRESS, else the system's socket) and asks the
 * proxy for its accelerometer; every answer arrives through `callback`, later. NULL with `error`
 * filled when there is no system bus. */
struct kiosk_sensors *kiosk_sensors_open(kiosk_sensor_callback callback, void *context, char *error, size_t error_size);
/* The descriptor to watch for reading. */
int kiosk_sensors_fd(struct kiosk_sensors *sensors);
/* Handles what arrived; 0 while connected, a negative errno once the connection is gone. */
int kiosk_sensors_process(struct kiosk_sensors *sensors);
/* Seconds until a call's answer is overdue (sd-bus then answers it with an error itself, in
 * kiosk_sensors_process); negative: nothing awaited. */
double kiosk_sensors_timeout(struct kiosk_sensors *sensors);
/* Closes the connection (the proxy releases the claim of a client that left). */
void kiosk_sensors_close(struct kiosk_sensors *sensors);

#endif
