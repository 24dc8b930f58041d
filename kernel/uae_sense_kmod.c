// SPDX-License-Identifier: GPL-2.0
/* The shared sense decoder (sense/uae_sense.c), compiled into the module unchanged. */
#include "uae_sense.c"
