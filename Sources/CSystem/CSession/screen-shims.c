#define _GNU_SOURCE
#include "CSession.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/cec.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* ---- DDC/CI (VESA DDC/CI 1.1, MCCS): Set VCP Feature, written to the display at 0x37 -------- */
#define DDC_CI_ADDRESS 0x37
#define DDC_CI_HOST 0x51

int kiosk_ddc_set_vcp_message(uint8_t feature, uint16_t value, uint8_t out[6]) {
    /* Length (0x80 | 4), the opcode, the feature, the value high and low, then the checksum:
     * the XOR of the display's write address (0x6E), the host's 0x51 and every byte before. */
    uint8_t bytes[6] = {0x84, 0x03, feature, (uint8_t)(value >> 8), (uint8_t)value, 0};
    uint8_t sum = (DDC_CI_ADDRESS << 1) ^ DDC_CI_HOST;
    for (int i = 0; i < 5; i++) sum ^= bytes[i];
    bytes[5] = sum;
    memcpy(out, bytes, sizeof bytes);
    return 0;
}

int kiosk_ddc_set_vcp(const char *device, uint8_t feature, uint16_t value) {
    int fd = open(device, O_RDWR | O_CLOEXEC);
    if (fd < 0) return -errno;
    int result = 0;
    if (ioctl(fd, I2C_SLAVE, DDC_CI_ADDRESS) < 0) {
        result = -errno;
    } else {
        /* An SMBus "I2C block write" is, on the wire, the plain write DDC/CI asks for (the host's
         * 0x51 as the command byte); DRM's DDC adapters emulate it, and so does i2c-stub. */
        union i2c_smbus_data data;
        data.block[0] = 6;
        kiosk_ddc_set_vcp_message(feature, value, &data.block[1]);
        struct i2c_smbus_ioctl_data request = {
            .read_write = I2C_SMBUS_WRITE, .command = DDC_CI_HOST, .size = I2C_SMBUS_I2C_BLOCK_DATA, .data = &data};
        if (ioctl(fd, I2C_SMBUS, &request) < 0) result = -errno;
    }
    close(fd);
    return result;
}

/* ---- HDMI-CEC (the kernel's CEC API, linux/cec.h) ----------------------------------------- */

/* The adapter's logical address, claiming one as a playback device named "Kiosk" when nobody
 * has (a Raspberry Pi's vc4 adapter starts unconfigured). */
static int cec_logical_address(int fd, uint8_t *address) {
    struct cec_log_addrs addrs;
    memset(&addrs, 0, sizeof addrs);
    if (ioctl(fd, CEC_ADAP_G_LOG_ADDRS, &addrs) < 0) return -errno;
    if (addrs.num_log_addrs == 0) {
        memset(&addrs, 0, sizeof addrs);
        addrs.cec_version = CEC_OP_CEC_VERSION_1_4;
        addrs.vendor_id = CEC_VENDOR_ID_NONE;
        addrs.num_log_addrs = 1;
        addrs.log_addr_type[0] = CEC_LOG_ADDR_TYPE_PLAYBACK;
        addrs.primary_device_type[0] = CEC_OP_PRIM_DEVTYPE_PLAYBACK;
        addrs.all_device_types[0] = CEC_OP_ALL_DEVTYPE_PLAYBACK;
        addrs.flags = CEC_LOG_ADDRS_FL_ALLOW_UNREG_FALLBACK;
        strncpy(addrs.osd_name, "Kiosk", sizeof addrs.osd_name - 1);
        if (ioctl(fd, CEC_ADAP_S_LOG_ADDRS, &addrs) < 0) return -errno;
        if (ioctl(fd, CEC_ADAP_G_LOG_ADDRS, &addrs) < 0) return -errno;
    }
    if (addrs.num_log_addrs == 0 || addrs.log_addr[0] == CEC_LOG_ADDR_INVALID) return -EADDRNOTAVAIL;
    *address = addrs.log_addr[0];
    return 0;
}

static int cec_send(int fd, const uint8_t *bytes, uint32_t length) {
    struct cec_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.len = length;
    memcpy(msg.msg, bytes, length);
    if (ioctl(fd, CEC_TRANSMIT, &msg) < 0) return -errno;
    if (msg.tx_status & CEC_TX_STATUS_OK) return 0;
    return msg.tx_status & CEC_TX_STATUS_NACK ? -EHOSTUNREACH : -EIO;
}

int kiosk_cec_set_tv_power(const char *device, int on, uint16_t *physical_address) {
    int fd = open(device, O_RDWR | O_CLOEXEC);
    if (fd < 0) return -errno;
    int result;
    uint16_t pa = CEC_PHYS_ADDR_INVALID;
    uint8_t la = 0;
    if (ioctl(fd, CEC_ADAP_G_PHYS_ADDR, &pa) < 0) {
        result = -errno;
    } else if (pa == CEC_PHYS_ADDR_INVALID) {
        result = -ENOTCONN; /* no display on this connector (or no EDID read yet) */
    } else if ((result = cec_logical_address(fd, &la)) == 0) {
        const uint8_t to_tv = (uint8_t)(la << 4 | CEC_LOG_ADDR_TV);
        if (on) {
            /* Image View On wakes the TV; Active Source (broadcast) makes it show this input. */
            const uint8_t view[] = {to_tv, CEC_MSG_IMAGE_VIEW_ON};
            const uint8_t active[] = {(uint8_t)(la << 4 | CEC_LOG_ADDR_BROADCAST), CEC_MSG_ACTIVE_SOURCE,
                                      (uint8_t)(pa >> 8), (uint8_t)pa};
            result = cec_send(fd, view, sizeof view);
            if (result == 0) result = cec_send(fd, active, sizeof active);
        } else {
            const uint8_t standby[] = {to_tv, CEC_MSG_STANDBY};
            result = cec_send(fd, standby, sizeof standby);
        }
    }
    if (physical_address) *physical_address = pa;
    close(fd);
    return result;
}
