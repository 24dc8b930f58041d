/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uaeventd: LUN numbers that a target gave to another logical unit (see identity.c). */
#ifndef UAED_IDENTITY_H
#define UAED_IDENTITY_H

#include <stdbool.h>
#include <stdint.h>

#include "stale.h"

/*
 * Ask each LU of @luns that the target still lists (@listed, its REPORT LUNS) for its
 * identity; log each that answers as another LU, and under @remove remove it while held
 * and unused (the rules of stale LUNs, those held back for a moment looked at again
 * within @budget_s).  The removed LUN numbers, to be scanned again, go to @removed (up to
 * @max_removed); returns how many were removed.
 */
int uaed_check_identity(const struct uaed_lun *luns, int n, const uint64_t *listed,
			int n_listed, bool remove, unsigned int budget_s, uint64_t *removed,
			int max_removed);

/*
 * Whether multipath's WWID @wwid (udev's ID_SERIAL, "36001405..." or "1Linux_scsi_debug_2000")
 * names the LU whose VPD page 83h is @page (@len bytes).
 */
bool uaed_wwid_names_lu(const uint8_t *page, int len, const char *wwid);

#endif /* UAED_IDENTITY_H */
