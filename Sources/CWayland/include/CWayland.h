#pragma once
/* Umbrella header for the Wayland client side: the core protocol from libwayland, the
 * wayland-scanner output for the vendored protocols, and the shims in kiosk-shims.c. */
#include <wayland-client.h>
#include "xdg-shell-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "idle-inhibit-unstable-v1-client-protocol.h"
#include "xdg-decoration-unstable-v1-client-protocol.h"
#include "wlr-output-power-management-unstable-v1-client-protocol.h"
#include "wlr-output-management-unstable-v1-client-protocol.h"
#include "kiosk-shims.h"
