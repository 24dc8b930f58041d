/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libuaevents, inside: the parts of a device's stack (what sits above a LU: maps, volumes,
 * filesystems, Kubernetes volumes) that are read from names alone, with no I/O, so that
 * they are tested on the host with any input (tests/unit/test_stack.c).
 */
#ifndef UAE_STACK_PARSE_H
#define UAE_STACK_PARSE_H

#include <stdbool.h>
#include <stddef.h>

/* What a device-mapper device is, by the prefix its creator gives its uuid (dm/uuid). */
enum uae_dm_class {
	UAE_DM_OTHER,	/* no uuid, or one no tool here names */
	UAE_DM_MPATH,	/* multipathd: "mpath-" then the map's WWID */
	UAE_DM_PART,	/* kpartx: "partN-", then the uuid of the map it divides, or, on a
			 * device that is no map, "devnode_MAJ:MIN_..." */
	UAE_DM_LVM,	/* LVM: "LVM-", the VG's and the LV's uuids, "-LAYER" for its own */
	UAE_DM_CRYPT,	/* cryptsetup: "CRYPT-LUKS2-...", "CRYPT-PLAIN-..." */
};

enum uae_dm_class uae_dm_classify(const char *uuid);
/* The map's WWID of an UAE_DM_MPATH uuid, or NULL. */
const char *uae_dm_mpath_wwid(const char *uuid);
/*
 * An LVM layer of its own, by its uuid ("real", "cow", "tpool", "pool", "vpool", "cdata",
 * "cmeta", "cvol", "vdata", "imeta", "missing_N_M"): the part after the uuids, or NULL.
 * Such layers are not what an administrator knows by name; the volume above them is.
 */
const char *uae_dm_lvm_layer(const char *uuid);
/*
 * "VG/LV" from an LVM device's dm name "VG-LV" or "VG-LV-LAYER", in which each '-' of a
 * name is doubled: "my--vg-my--lv" is "my-vg/my-lv".  @layer, if not NULL, gets the
 * layer's start or NULL.  False when @dm_name is not of that form or @out is too short.
 */
bool uae_lvm_name(const char *dm_name, char *out, size_t size, const char **layer);
/*
 * An LV that LVM makes for itself, by its name ("lv_rimage_0", "pvmove0", "lv_tdata"):
 * lvm2 gives most of them no layer in their uuid.
 */
bool uae_lvm_internal_lv(const char *lv);
/* A device cryptsetup makes for itself (an integrity layer, a re-encryption overlay). */
bool uae_dm_crypt_internal(const char *uuid);

/* A Kubernetes volume, as kubelet lays out its mounts and block devices. */
struct uae_k8s_ref {
	char pod_uid[40];	/* "" for a staging path, which is the node's, not a pod's */
	char plugin[128];	/* "kubernetes.io~csi", "kubernetes.io~local-volume", ... */
	char volume[256];	/* the volume's name; for CSI, the PersistentVolume's (an
				 * inline ephemeral volume's is the pod's name for it) */
	char driver[128];	/* a CSI staging path's driver, when it names one */
	bool staging;		/* a CSI driver's global mount of the volume, shared by pods */
	bool block;		/* a raw block volume (volumeDevices), not a filesystem */
};

/*
 * Whether @path (a mount's target, unescaped, or a loop device's backing file) is one of
 * kubelet's, under any kubelet root:
 *   ROOT/pods/POD-UID/volumes/PLUGIN/VOLUME[/mount]      a pod's volume
 *   ROOT/pods/POD-UID/volumeDevices/PLUGIN/VOLUME        a pod's raw block volume
 *   ROOT/plugins/kubernetes.io/csi/pv/PV/globalmount     CSI staging (kubelet < 1.24)
 *   ROOT/plugins/kubernetes.io/csi/DRIVER/SHA256/globalmount   CSI staging (later)
 *   ROOT/plugins/kubernetes.io/csi/volumeDevices/staging/PV            CSI raw block
 *   ROOT/plugins/kubernetes.io/csi/volumeDevices/publish/PV/POD-UID    CSI raw block
 *   ROOT/plugins/kubernetes.io/csi/volumeDevices/PV/dev/POD-UID   CSI raw block, the file
 *                                                  a loop device locks
 *   ROOT/plugins/PLUGIN/volumeDevices/PV[/dev]/POD-UID   the same, of an in-tree plugin
 * A loop device's backing file may end in " (deleted)".
 * Whole components only; a pod's uid must look like one (8-4-4-4-12 hexadecimal digits,
 * or 32 for a static pod's).  Fills @ref when true.
 */
bool uae_k8s_parse_path(const char *path, struct uae_k8s_ref *ref);

/* @path is @dir or below it, by whole components ("/srv/data2" is not below "/srv/data"). */
bool uae_path_below(const char *path, const char *dir);

#endif /* UAE_STACK_PARSE_H */
