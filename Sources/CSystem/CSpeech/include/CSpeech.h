#ifndef KIOSK_CSPEECH_H
#define KIOSK_CSPEECH_H
/* The kiosk's voice below Swift: espeak-ng (the synthesizer, as a library) and ALSA (the sound
 * device). Both are called from the voice's own thread only. */
#include <espeak-ng/espeak_ng.h>
#include <alsa/asoundlib.h>

/* ALSA prints its own errors to stderr (several lines for a machine with no sound card); the
 * kiosk says what went wrong in one line of its own instead. */
void kiosk_alsa_quiet(void);

#endif
