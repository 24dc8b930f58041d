# SPDX-License-Identifier: GPL-2.0
# Kbuild fragment: generate the shared decoder's tables into $(obj) from sense/data/ and
# docs/classification.md.  Included by kernel/Kbuild and kunit/Makefile; needs UAE_TOP.

UAE_TABLE_INPUTS := $(UAE_TOP)/sense/gen-tables.py \
		    $(UAE_TOP)/sense/data/t10-asc-num.txt \
		    $(UAE_TOP)/sense/data/asc-additions.txt \
		    $(UAE_TOP)/sense/data/ua-events.txt \
		    $(UAE_TOP)/sense/data/nvme-status.txt \
		    $(UAE_TOP)/sense/data/nvme-aen.txt \
		    $(UAE_TOP)/docs/classification.md

quiet_cmd_gen_tables = GEN     $@
      cmd_gen_tables = python3 $(UAE_TOP)/sense/gen-tables.py $@ \
			--asc $(UAE_TOP)/sense/data/t10-asc-num.txt \
			      $(UAE_TOP)/sense/data/asc-additions.txt \
			--ua $(UAE_TOP)/sense/data/ua-events.txt \
			--classes $(UAE_TOP)/docs/classification.md \
			--nvme $(UAE_TOP)/sense/data/nvme-status.txt \
			--nvme-aen $(UAE_TOP)/sense/data/nvme-aen.txt

$(obj)/uae_sense_tables.h: $(UAE_TABLE_INPUTS) FORCE
	$(call if_changed,gen_tables)

targets += uae_sense_tables.h
