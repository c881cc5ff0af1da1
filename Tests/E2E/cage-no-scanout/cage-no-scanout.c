/* A measuring shim, LD_PRELOADed into cage 0.1.4 by the live tools (never shipped): cage then
 * composites the kiosk's buffer every frame, upright, as it does on a DRM panel.
 *
 * Why: on wlroots's headless output cage scans a fullscreen client's wl_shm buffer out directly
 * (output.c `scan_out_primary_view`: wlr_output_attach_buffer, then wlr_output_commit). A DRM
 * output cannot take a wl_shm buffer, so on a panel that commit fails and cage composites the
 * frame instead. Headless, Kiosk stops the scan-out with a flipped buffer transform
 * (Quirks.flipsBuffers), which makes cage's copy ~3x dearer a pixel than a panel's. With this
 * shim and KIOSK_FLIP_BUFFERS=0 the headless cage does what a panel's does, so its cost can be
 * measured instead of estimated.
 *
 * How: an attach made by cage's own code (not by wlroots) is dropped and the commit that follows
 * refused, as the DRM backend refuses it; every other call passes through. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool refuse_next_commit;

/* Whether `ret` lies in the executable (cage) rather than in a shared library (wlroots). */
static bool called_by_the_program(void *ret)
{
	Dl_info info;
	return dladdr(ret, &info) && info.dli_fname && strstr(info.dli_fname, ".so") == NULL;
}

void wlr_output_attach_buffer(void *output, void *buffer)
{
	static void (*real)(void *, void *);
	if (called_by_the_program(__builtin_return_address(0))) {
		static bool said;
		if (!said) {
			said = true;
			fprintf(stderr, "cage-no-scanout: direct scan-out refused, cage composites every frame\n");
		}
		refuse_next_commit = true;
		return;
	}
	if (!real)
		real = (void (*)(void *, void *))dlsym(RTLD_NEXT, "wlr_output_attach_buffer");
	real(output, buffer);
}

bool wlr_output_commit(void *output)
{
	static bool (*real)(void *);
	if (refuse_next_commit) {
		refuse_next_commit = false;
		return false;
	}
	if (!real)
		real = (bool (*)(void *))dlsym(RTLD_NEXT, "wlr_output_commit");
	return real(output);
}
