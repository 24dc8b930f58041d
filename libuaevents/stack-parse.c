// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuaevents: the parts of a device's stack read from names alone (stack-parse.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "stack-parse.h"

enum uae_dm_class uae_dm_classify(const char *uuid)
{
	size_t digits;

	if (!uuid)
		return UAE_DM_OTHER;
	if (!strncmp(uuid, "mpath-", 6) && uuid[6])
		return UAE_DM_MPATH;
	if (!strncmp(uuid, "LVM-", 4) && uuid[4])
		return UAE_DM_LVM;
	if (!strncmp(uuid, "CRYPT-", 6) && uuid[6])
		return UAE_DM_CRYPT;
	/* kpartx: "part" N "-" and the uuid of the device it divides. */
	digits = strncmp(uuid, "part", 4) ? 0 : strspn(uuid + 4, "0123456789");
	if (digits && uuid[4 + digits] == '-' && uuid[5 + digits])
		return UAE_DM_PART;
	return UAE_DM_OTHER;
}

const char *uae_dm_mpath_wwid(const char *uuid)
{
	return uae_dm_classify(uuid) == UAE_DM_MPATH ? uuid + 6 : NULL;
}

const char *uae_dm_lvm_layer(const char *uuid)
{
	/* "LVM-", the VG's uuid and the LV's (32 characters each, no dashes), "-LAYER". */
	if (uae_dm_classify(uuid) != UAE_DM_LVM || strlen(uuid) <= 4 + 64 ||
	    uuid[4 + 64] != '-' || !uuid[4 + 64 + 1])
		return NULL;
	return uuid + 4 + 64 + 1;
}

bool uae_lvm_name(const char *dm_name, char *out, size_t size, const char **layer)
{
	size_t n = 0;
	int splits = 0;

	if (layer)
		*layer = NULL;
	if (!dm_name || !size)
		return false;
	for (const char *c = dm_name; *c; c++) {
		char ch = *c;

		if (*c == '-' && c[1] == '-') {
			c++;		/* a '-' of a name */
		} else if (*c == '-') {
			/* libdm's split: VG, LV and a layer, at the single '-' between them. */
			if (c == dm_name || !c[1] || (n && out[n - 1] == '/'))
				return false;
			if (++splits == 2) {
				if (layer)
					*layer = c + 1;
				break;
			}
			ch = '/';
		}
		if (n + 1 >= size)
			return false;
		out[n++] = ch;
	}
	out[n] = '\0';
	return splits > 0;
}

bool uae_lvm_internal_lv(const char *lv)
{
	/* lvm2's reserved suffixes (lib/misc/lvm-string.c) and the names it gives itself. */
	static const char *const reserved[] = {
		"_cdata", "_cmeta", "_corig", "_cpool", "_cvol", "_wcorig", "_mimage", "_mlog",
		"_rimage", "_rmeta", "_tdata", "_tmeta", "_vdata", "_imeta", "_iorig",
		"_pmspare", "_vorigin",
	};
	const char *u = strchr(lv, '_');

	if (!strncmp(lv, "pvmove", 6) || !strncmp(lv, "snapshot", 8))
		return true;
	for (; u; u = strchr(u + 1, '_'))
		for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
			if (!strncmp(u, reserved[i], strlen(reserved[i])))
				return true;
	return false;
}

bool uae_dm_crypt_internal(const char *uuid)
{
	return uae_dm_classify(uuid) == UAE_DM_CRYPT &&
	       (!strncmp(uuid + 6, "SUBDEV-", 7) || !strncmp(uuid + 6, "TEMP-", 5));
}

bool uae_path_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	/* "/" holds everything; a trailing '/' of @dir is not a component of its own. */
	if (!n)
		return false;
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

#define MAX_COMPONENTS 64

/* Split @buf in place into its components (empty ones dropped); their count, -1 if too many. */
static int components(char *buf, char **c)
{
	char *save = NULL;
	int n = 0;

	/* strtok_r: the library may be used by threads at once. */
	for (char *s = strtok_r(buf, "/", &save); s; s = strtok_r(NULL, "/", &save)) {
		if (n == MAX_COMPONENTS)
			return -1;
		c[n++] = s;
	}
	return n;
}

/*
 * 8-4-4-4-12 hexadecimal digits, as kubelet names a pod's folder; or 32, the md5 it gives
 * a static pod from its manifest.
 */
static bool is_uid(const char *s)
{
	if (strlen(s) == 32 && strspn(s, "0123456789abcdef") == 32)
		return true;
	static const int groups[] = { 8, 4, 4, 4, 12 };

	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		for (int i = 0; i < groups[g]; i++, s++)
			if (!isxdigit((unsigned char)*s))
				return false;
		if (*s != (g + 1 < sizeof(groups) / sizeof(groups[0]) ? '-' : '\0'))
			return false;
		s++;
	}
	return true;
}

static bool is_sha256(const char *s)
{
	return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

static bool copy(char *dst, size_t size, const char *src)
{
	return snprintf(dst, size, "%s", src) < (int)size;
}

/* c[i..]: "pods" UID volumes|volumeDevices PLUGIN VOLUME [mount] */
static bool pod_volume(char **c, int n, int i, struct uae_k8s_ref *ref)
{
	bool block;

	if (n - i < 5 || strcmp(c[i], "pods") || !is_uid(c[i + 1]))
		return false;
	block = !strcmp(c[i + 2], "volumeDevices");
	if (!block && strcmp(c[i + 2], "volumes"))
		return false;
	/* A CSI volume's filesystem is its "mount" folder; other plugins mount the folder. */
	if (n - i == 6 ? block || strcmp(c[i + 5], "mount") : n - i != 5)
		return false;
	ref->block = block;
	return copy(ref->pod_uid, sizeof(ref->pod_uid), c[i + 1]) &&
	       copy(ref->plugin, sizeof(ref->plugin), c[i + 3]) &&
	       copy(ref->volume, sizeof(ref->volume), c[i + 4]);
}

/* c[i..]: "plugins" "kubernetes.io" "csi" then a staging or publish path of CSI's. */
static bool csi_plugin_path(char **c, int n, int i, struct uae_k8s_ref *ref)
{
	int m = n - i;

	if (m < 5 || strcmp(c[i], "plugins") || strcmp(c[i + 1], "kubernetes.io") ||
	    strcmp(c[i + 2], "csi"))
		return false;
	copy(ref->plugin, sizeof(ref->plugin), "kubernetes.io~csi");
	/* Block: volumeDevices/staging/PV, volumeDevices/publish/PV/POD-UID. */
	if (!strcmp(c[i + 3], "volumeDevices")) {
		ref->block = true;
		if (m == 6 && !strcmp(c[i + 4], "staging")) {
			ref->staging = true;
			return copy(ref->volume, sizeof(ref->volume), c[i + 5]);
		}
		if (m == 7 && !strcmp(c[i + 4], "publish") && is_uid(c[i + 6]))
			return copy(ref->volume, sizeof(ref->volume), c[i + 5]) &&
			       copy(ref->pod_uid, sizeof(ref->pod_uid), c[i + 6]);
		/* volumeDevices/PV/dev/POD-UID: the file a loop device locks. */
		if (m == 7 && !strcmp(c[i + 5], "dev") && is_uid(c[i + 6]))
			return copy(ref->volume, sizeof(ref->volume), c[i + 4]) &&
			       copy(ref->pod_uid, sizeof(ref->pod_uid), c[i + 6]);
		return false;
	}
	if (m != 6 || strcmp(c[i + 5], "globalmount"))
		return false;
	ref->staging = true;
	/* pv/PV/globalmount, or DRIVER/SHA256/globalmount (no PV name in it). */
	if (!strcmp(c[i + 3], "pv"))
		return copy(ref->volume, sizeof(ref->volume), c[i + 4]);
	return is_sha256(c[i + 4]) && copy(ref->driver, sizeof(ref->driver), c[i + 3]);
}

/*
 * c[i..]: "plugins" PLUGIN "volumeDevices" PV ["dev"] POD-UID: where an in-tree plugin maps
 * a pod's raw block volume, the file a loop device locks.
 */
static bool block_map_path(char **c, int n, int i, struct uae_k8s_ref *ref)
{
	int m = n - i;

	if (m < 5 || strcmp(c[i], "plugins") || strcmp(c[i + 2], "volumeDevices") ||
	    !is_uid(c[n - 1]) || (m == 6 ? strcmp(c[i + 4], "dev") : m != 5))
		return false;
	ref->block = true;
	return copy(ref->plugin, sizeof(ref->plugin), c[i + 1]) &&
	       copy(ref->volume, sizeof(ref->volume), c[i + 3]) &&
	       copy(ref->pod_uid, sizeof(ref->pod_uid), c[n - 1]);
}

bool uae_k8s_parse_path(const char *path, struct uae_k8s_ref *ref)
{
	char buf[4096], *c[MAX_COMPONENTS];
	size_t len = strlen(path);
	int n;

	/* A loop device's backing file, removed since: the kernel shows it so. */
	if (len > 10 && !strcmp(path + len - 10, " (deleted)"))
		len -= 10;
	memset(ref, 0, sizeof(*ref));
	if (len >= sizeof(buf))
		return false;
	memcpy(buf, path, len);
	buf[len] = '\0';
	n = components(buf, c);

	/* The kubelet root is any folder: the layout below it is what is matched. */
	for (int i = 0; i < n; i++) {
		memset(ref, 0, sizeof(*ref));
		if (pod_volume(c, n, i, ref) || csi_plugin_path(c, n, i, ref) ||
		    block_map_path(c, n, i, ref))
			return true;
	}
	memset(ref, 0, sizeof(*ref));
	return false;
}
