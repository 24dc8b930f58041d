// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Test helper, never installed: the two NVMe admin commands nvme.sh needs and busybox has
 * no tool for (nvme-cli's set-feature and get-log), through the kernel's
 * NVME_IOCTL_ADMIN_CMD.
 *
 *   uae-nvme-admin /dev/nvme1 set-feature FID VALUE   Set Features, dword 11 = VALUE
 *   uae-nvme-admin /dev/nvme1 get-feature FID         Get Features: prints its value in hex
 *   uae-nvme-admin /dev/nvme1 get-log LID [retain]    Get Log Page, 512 bytes, RAE clear
 *                                                     (set with "retain"): prints byte 0
 *                                                     (a SMART log's critical warning)
 *                                                     in hex
 *
 * Linux enables no SMART / health asynchronous events (feature 0Bh, Asynchronous Event
 * Configuration): set-feature 0x0b 0x1ff does, as nvme-cli would.  A controller masks an
 * event's type once it has sent one, until its log page is read with RAE clear: get-log.
 * "retain" reads and leaves the event masked (as a test that uaeventd's read unmasks it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/nvme_ioctl.h>

static int usage(void)
{
	fprintf(stderr, "usage: uae-nvme-admin DEV set-feature FID VALUE | get-feature FID | "
		"get-log LID [retain]\n");
	return 2;
}

static int admin(int fd, struct nvme_admin_cmd *cmd, const char *what)
{
	int r = ioctl(fd, NVME_IOCTL_ADMIN_CMD, cmd);

	if (r < 0) {
		fprintf(stderr, "uae-nvme-admin: %s: %s\n", what, strerror(errno));
		return 1;
	}
	/* A positive return is the command's NVMe status. */
	if (r > 0) {
		fprintf(stderr, "uae-nvme-admin: %s: NVMe status 0x%x\n", what, r);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct nvme_admin_cmd cmd = { 0 };
	uint8_t log[512];
	int fd, r;

	if (argc < 4)
		return usage();
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "uae-nvme-admin: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (!strcmp(argv[2], "set-feature") && argc == 5) {
		cmd.opcode = 0x09;			/* Set Features */
		cmd.cdw10 = strtoul(argv[3], NULL, 0) & 0xff;
		cmd.cdw11 = strtoul(argv[4], NULL, 0);
		r = admin(fd, &cmd, "set-feature");
	} else if (!strcmp(argv[2], "get-feature")) {
		cmd.opcode = 0x0a;			/* Get Features, current value */
		cmd.cdw10 = strtoul(argv[3], NULL, 0) & 0xff;
		r = admin(fd, &cmd, "get-feature");
		if (r == 0)
			printf("0x%x\n", cmd.result);
	} else if (!strcmp(argv[2], "get-log")) {
		cmd.opcode = 0x02;			/* Get Log Page */
		cmd.nsid = 0xffffffff;
		cmd.addr = (uintptr_t)log;
		cmd.data_len = sizeof(log);
		/* Dwords to read, less one, in bits 31:16; RAE (bit 15); the log id. */
		cmd.cdw10 = (sizeof(log) / 4 - 1) << 16 | (strtoul(argv[3], NULL, 0) & 0xff);
		if (argc == 5 && !strcmp(argv[4], "retain"))
			cmd.cdw10 |= 1U << 15;
		else if (argc != 4)
			return usage();
		r = admin(fd, &cmd, "get-log");
		if (r == 0)
			printf("0x%02x\n", log[0]);
	} else {
		r = usage();
	}
	close(fd);
	return r;
}
