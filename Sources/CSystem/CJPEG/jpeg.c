// libjpeg reports errors by calling error_exit, which must not return: it longjmps back here,
// something Swift cannot write. Everything else about a picture is done in Swift (Picture.swift).
#include "kiosk_jpeg.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

struct failing {
    struct jpeg_error_mgr manager;
    jmp_buf back;
    char *error;
    size_t error_size;
    int max_scans;
};

static void fail(j_common_ptr cinfo) {
    struct failing *f = (struct failing *)cinfo->err;
    char message[JMSG_LENGTH_MAX] = "";
    cinfo->err->format_message(cinfo, message);
    snprintf(f->error, f->error_size, "%s", message);
    longjmp(f->back, 1);
}

// A file that ends early is refused (libjpeg would fill the rest grey); other warnings (a few
// stray bytes before a marker, common in cameras' files) are not.
static void warn(j_common_ptr cinfo, int level) {
    if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) fail(cinfo);
}

static void count_scans(j_common_ptr cinfo) {
    struct failing *f = (struct failing *)cinfo->err;
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (cinfo->is_decompressor && d->input_scan_number > f->max_scans) {
        snprintf(f->error, f->error_size, "more than %d scans (a progressive JPEG that would take too long)", f->max_scans);
        longjmp(f->back, 1);
    }
}

static void start(struct jpeg_decompress_struct *cinfo, struct failing *f, char *error, size_t error_size) {
    cinfo->err = jpeg_std_error(&f->manager);
    f->manager.error_exit = fail;
    f->manager.emit_message = warn;
    f->error = error;
    f->error_size = error_size;
    f->max_scans = 1000;
    if (error_size > 0) error[0] = 0;
}

static uint16_t read16(const uint8_t *p, int little) { return little ? (uint16_t)(p[0] | p[1] << 8) : (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t read32(const uint8_t *p, int little) {
    return little ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
                  : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

// EXIF's orientation tag (0x0112) in the first image directory; 1 when there is none.
static int exif_orientation(struct jpeg_decompress_struct *cinfo) {
    for (jpeg_saved_marker_ptr m = cinfo->marker_list; m; m = m->next) {
        if (m->marker != JPEG_APP0 + 1 || m->data_length < 14 || memcmp(m->data, "Exif\0\0", 6) != 0) continue;
        const uint8_t *tiff = m->data + 6;
        size_t n = m->data_length - 6;
        int little = tiff[0] == 'I' && tiff[1] == 'I';
        if (!little && !(tiff[0] == 'M' && tiff[1] == 'M')) return 1;
        uint32_t ifd = read32(tiff + 4, little);
        if (ifd > n - 2 || ifd + 2 > n) return 1;
        uint16_t count = read16(tiff + ifd, little);
        for (uint32_t i = 0; i < count; i++) {
            size_t at = (size_t)ifd + 2 + (size_t)i * 12;
            if (at + 12 > n) return 1;
            if (read16(tiff + at, little) == 0x0112) {
                uint16_t v = read16(tiff + at + 8, little);
                return v >= 1 && v <= 8 ? v : 1;
            }
        }
    }
    return 1;
}

int kiosk_jpeg_read_header(const uint8_t *data, size_t size, kiosk_jpeg_header *header, char *error, size_t error_size) {
    struct jpeg_decompress_struct cinfo;
    struct failing f;
    start(&cinfo, &f, error, error_size);
    if (setjmp(f.back)) {
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xffff);
    jpeg_read_header(&cinfo, TRUE);
    header->width = (int)cinfo.image_width;
    header->height = (int)cinfo.image_height;
    header->orientation = exif_orientation(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

void kiosk_jpeg_scaled_size(int width, int height, int denominator, int *scaled_width, int *scaled_height) {
    *scaled_width = (width + denominator - 1) / denominator;
    *scaled_height = (height + denominator - 1) / denominator;
}

// Adobe's CMYK (stored inverted, as Photoshop writes it) to B, G, R, X.
static void cmyk_row(const uint8_t *in, uint8_t *out, int width, int inverted) {
    for (int x = 0; x < width; x++) {
        int c = in[4 * x], m = in[4 * x + 1], y = in[4 * x + 2], k = in[4 * x + 3];
        if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        out[4 * x] = (uint8_t)(y * k / 255);
        out[4 * x + 1] = (uint8_t)(m * k / 255);
        out[4 * x + 2] = (uint8_t)(c * k / 255);
        out[4 * x + 3] = 255;
    }
}

int kiosk_jpeg_decode(const uint8_t *data, size_t size, int denominator, uint8_t *pixels, int stride, int width, int height,
                      int max_scans, size_t max_memory, char *error, size_t error_size) {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_progress_mgr progress;
    struct failing f;
    // Volatile: read after the longjmp.
    uint8_t *volatile cmyk = NULL;
    start(&cinfo, &f, error, error_size);
    f.max_scans = max_scans;
    if (setjmp(f.back)) {
        jpeg_destroy_decompress(&cinfo);
        free(cmyk);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.mem->max_memory_to_use = (long)max_memory;
    progress.progress_monitor = count_scans;
    cinfo.progress = &progress;
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned int)denominator;
    int four_colour = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = four_colour ? JCS_CMYK : JCS_EXT_BGRX;
    jpeg_start_decompress(&cinfo);
    if ((int)cinfo.output_width != width || (int)cinfo.output_height != height) {
        snprintf(error, error_size, "decoded at %ux%u, not the %dx%d expected", cinfo.output_width, cinfo.output_height, width, height);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    if (four_colour) {
        cmyk = malloc((size_t)width * 4);
        if (!cmyk) { snprintf(error, error_size, "out of memory"); jpeg_destroy_decompress(&cinfo); return -1; }
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        uint8_t *row = pixels + (size_t)cinfo.output_scanline * (size_t)stride;
        JSAMPROW rows[1] = { four_colour ? cmyk : row };
        jpeg_read_scanlines(&cinfo, rows, 1);
        if (four_colour) cmyk_row(cmyk, row, width, cinfo.saw_Adobe_marker);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(cmyk);
    return 0;
}

int kiosk_jpeg_encode(const uint8_t *pixels, int stride, int width, int height, int cmyk, int quality, int progressive,
                      int orientation, uint8_t **out, size_t *out_size, char *error, size_t error_size) {
    struct jpeg_compress_struct cinfo;
    struct failing f;
    unsigned char *buffer = NULL;
    unsigned long size = 0;
    cinfo.err = jpeg_std_error(&f.manager);
    f.manager.error_exit = fail;
    f.error = error;
    f.error_size = error_size;
    if (setjmp(f.back)) {
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &buffer, &size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 4;
    cinfo.in_color_space = cmyk ? JCS_CMYK : JCS_EXT_BGRX;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    if (orientation >= 2 && orientation <= 8) {
        // "Exif\0\0", a little-endian TIFF header, one directory of one entry: 0x0112, SHORT.
        uint8_t exif[] = { 'E', 'x', 'i', 'f', 0, 0, 'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0,
                           0x12, 0x01, 3, 0, 1, 0, 0, 0, (uint8_t)orientation, 0, 0, 0, 0, 0, 0, 0 };
        jpeg_write_marker(&cinfo, JPEG_APP0 + 1, exif, sizeof exif);
    }
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row[1] = { (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * (size_t)stride) };
        jpeg_write_scanlines(&cinfo, row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *out_size = size;
    return 0;
}
