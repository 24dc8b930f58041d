/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uaeventd: an NVMe controller's SMART / health log after a SMART event (nvme-health.c). */
#ifndef UAED_NVME_HEALTH_H
#define UAED_NVME_HEALTH_H

#include <stdbool.h>

#include "event.h"
#include "uae_nvme.h"	/* uae_nvme_controller_name_valid() */

/*
 * In a job's child: read @e's controller's SMART / health log, and log what it says;
 * waiting at most @budget_s seconds in all for a controller that is not live.
 */
int uaed_nvme_health_report(const struct uaed_event *e, unsigned int budget_s);

#endif /* UAED_NVME_HEALTH_H */
