#include <sys/timex.h>
#include "CClock.h"

int kiosk_clock_synchronized(void)
{
    struct timex t = {0}; /* modes 0: read only */
    int state = adjtimex(&t);
    if (state < 0)
        return -1;
    return state != TIME_ERROR && !(t.status & STA_UNSYNC);
}
