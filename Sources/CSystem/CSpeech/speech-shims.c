#include "CSpeech.h"

/* ALSA's error handler is variadic, which Swift cannot define. */
static void ignore_alsa_error(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

void kiosk_alsa_quiet(void) { snd_lib_error_set_handler(ignore_alsa_error); }
