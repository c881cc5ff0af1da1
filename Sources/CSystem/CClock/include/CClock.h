#ifndef KIOSK_CCLOCK_H
#define KIOSK_CCLOCK_H
/* What the kernel says of the system clock (adjtimex, as timedatectl's "System clock
 * synchronized"): 1 synchronised (NTP has disciplined it), 0 not, -1 the call failed. Swift's
 * Glibc has no <sys/timex.h>. */
int kiosk_clock_synchronized(void);
#endif
