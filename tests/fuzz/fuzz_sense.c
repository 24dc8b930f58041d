// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target over the shared sense decoder and classifier.
 * Input: host byte, status byte, then sense data.  ASan and UBSan catch any read past the
 * buffer or undefined behaviour; the assertions hold the decoder's own promises.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uae_sense.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uae_sense s;
	struct uae_class cl;
	uint8_t *sense;
	size_t len;

	if (size < 2)
		return 0;
	len = size - 2;
	/* An exact-size copy, so that ASan sees a read one past the end. */
	sense = malloc(len ? len : 1);
	if (!sense)
		return 0;
	memcpy(sense, data + 2, len);

	uae_sense_decode(sense, len, &s);
	CHECK(s.status == UAE_SENSE_OK || s.status == UAE_SENSE_PARTIAL ||
	      s.status == UAE_SENSE_INVALID);
	CHECK(s.sense_key <= 0xf);
	CHECK(s.unknown_descriptors <= s.descriptors);
	CHECK(uae_sense_length(sense, len) <= len);
	if (s.status != UAE_SENSE_INVALID) {
		CHECK(uae_sense_key_name(s.sense_key) != NULL);
		CHECK(uae_ua_event_name(s.asc, s.ascq) != NULL);
		uae_asc_description(s.asc, s.ascq);
		CHECK(uae_category_name(uae_ua_category(s.asc, s.ascq)) != NULL);
	}

	uae_classify(data[0], data[1], &s, &cl);
	CHECK(cl.rule >= 1 && cl.rule <= uae_class_rule_count());
	CHECK(cl.differs == (cl.failover != uae_blk_status_is_path_error(cl.blk_status)));
	free(sense);
	return 0;
}
