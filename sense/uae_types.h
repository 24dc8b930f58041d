/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The only environment the shared sense decoder needs: fixed-width integers, size_t,
 * bool and NULL.  Kernel builds take them from <linux/types.h>, user space from libc's
 * freestanding headers, so uae_sense.c compiles unchanged in both.
 */
#ifndef UAE_TYPES_H
#define UAE_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#endif /* UAE_TYPES_H */
