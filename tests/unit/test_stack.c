// SPDX-License-Identifier: LGPL-2.1-or-later
/* The parts of a device's stack read from names alone (libuaevents/stack-parse.h). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack-parse.h"

#define POD "0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9"
#define SHA "3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a"

START_TEST(dm_uuid_classes)
{
	ck_assert_int_eq(uae_dm_classify("mpath-3600a098038303053453f463045727a6b"), UAE_DM_MPATH);
	ck_assert_str_eq(uae_dm_mpath_wwid("mpath-3600a0980383030534"), "3600a0980383030534");
	ck_assert_int_eq(uae_dm_classify("part1-mpath-3600a0980383030534"), UAE_DM_PART);
	ck_assert_int_eq(uae_dm_classify("part12-LVM-x"), UAE_DM_PART);
	ck_assert_int_eq(uae_dm_classify("CRYPT-LUKS2-0b5e6a7c9d2f4e1a8b3c5d7e9f0a1b2c-luks"),
			 UAE_DM_CRYPT);
	ck_assert_int_eq(uae_dm_classify("LVM-abc"), UAE_DM_LVM);
	/* Look-alikes and the empty: other. */
	ck_assert_int_eq(uae_dm_classify("mpath-"), UAE_DM_OTHER);
	ck_assert_int_eq(uae_dm_classify("part-x"), UAE_DM_OTHER);
	ck_assert_int_eq(uae_dm_classify("partx-mpath-1"), UAE_DM_OTHER);
	ck_assert_int_eq(uae_dm_classify("part1-"), UAE_DM_OTHER);
	ck_assert_int_eq(uae_dm_classify("lvm-abc"), UAE_DM_OTHER);
	ck_assert_int_eq(uae_dm_classify(""), UAE_DM_OTHER);
	ck_assert_int_eq(uae_dm_classify(NULL), UAE_DM_OTHER);
	ck_assert_ptr_null(uae_dm_mpath_wwid("LVM-abc"));
	/* kpartx over a device that is no map. */
	ck_assert_int_eq(uae_dm_classify("part1-devnode_8:16_Wh5pYvM"), UAE_DM_PART);
	/* cryptsetup's own devices. */
	ck_assert(uae_dm_crypt_internal("CRYPT-SUBDEV-0b5e6a7c9d2f4e1a8b3c5d7e9f0a1b2c-x_dif"));
	ck_assert(uae_dm_crypt_internal("CRYPT-TEMP-x-overlay"));
	ck_assert(!uae_dm_crypt_internal("CRYPT-LUKS2-0b5e6a7c9d2f4e1a8b3c5d7e9f0a1b2c-x"));
	ck_assert(!uae_dm_crypt_internal("LVM-SUBDEV-x"));
}
END_TEST

START_TEST(lvm_layers_and_names)
{
	char vg[] = "0123456789abcdef0123456789abcdef", lv[] = "fedcba9876543210fedcba9876543210";
	char uuid[128], out[64];

	snprintf(uuid, sizeof(uuid), "LVM-%s%s", vg, lv);
	ck_assert_ptr_null(uae_dm_lvm_layer(uuid));
	snprintf(uuid, sizeof(uuid), "LVM-%s%s-tdata", vg, lv);
	ck_assert_str_eq(uae_dm_lvm_layer(uuid), "tdata");
	snprintf(uuid, sizeof(uuid), "LVM-%s%s-", vg, lv);
	ck_assert_ptr_null(uae_dm_lvm_layer(uuid));
	ck_assert_ptr_null(uae_dm_lvm_layer("mpath-x"));

	const char *layer;

	ck_assert(uae_lvm_name("vg0-data", out, sizeof(out), &layer));
	ck_assert_str_eq(out, "vg0/data");
	ck_assert_ptr_null(layer);
	ck_assert(uae_lvm_name("my--vg-my--lv", out, sizeof(out), NULL));
	ck_assert_str_eq(out, "my-vg/my-lv");
	ck_assert(uae_lvm_name("a---b", out, sizeof(out), NULL));	/* "a-" and "b" */
	ck_assert_str_eq(out, "a-/b");
	ck_assert(uae_lvm_name("vg-lv--", out, sizeof(out), NULL));
	ck_assert_str_eq(out, "vg/lv-");
	/* libdm's layers: VG-LV-LAYER. */
	ck_assert(uae_lvm_name("vg-lv-real", out, sizeof(out), &layer));
	ck_assert_str_eq(out, "vg/lv");
	ck_assert_str_eq(layer, "real");
	ck_assert(uae_lvm_name("vg-pool-tpool", out, sizeof(out), &layer));
	ck_assert_str_eq(layer, "tpool");
	ck_assert(uae_lvm_name("vg-lv-missing_0_0", out, sizeof(out), &layer));
	ck_assert_str_eq(out, "vg/lv");
	ck_assert_str_eq(layer, "missing_0_0");
	/* Not VG-LV: no single '-', at an end, two at once. */
	ck_assert(!uae_lvm_name("vg0", out, sizeof(out), NULL));
	ck_assert(!uae_lvm_name("-lv", out, sizeof(out), NULL));
	ck_assert(!uae_lvm_name("vg-", out, sizeof(out), NULL));
	ck_assert(!uae_lvm_name("my--vg", out, sizeof(out), NULL));
	ck_assert(!uae_lvm_name("vg-lv-", out, sizeof(out), NULL));
	/* Too long for @out: refused, not cut. */
	ck_assert(!uae_lvm_name("vg0-data", out, 8, NULL));
	ck_assert(uae_lvm_name("vg0-data", out, 9, NULL));

	/* LVs of LVM's own, most with no layer in their uuid. */
	ck_assert(uae_lvm_internal_lv("lv_rimage_0"));
	ck_assert(uae_lvm_internal_lv("lv_rmeta_1"));
	ck_assert(uae_lvm_internal_lv("pool_tdata"));
	ck_assert(uae_lvm_internal_lv("my_lv_mimage_0"));
	ck_assert(uae_lvm_internal_lv("pvmove0"));
	ck_assert(!uae_lvm_internal_lv("data"));
	ck_assert(!uae_lvm_internal_lv("my_data"));
	ck_assert(!uae_lvm_internal_lv("rimage"));

	/* "LVM-" and 64 characters with no '-' after them: no layer. */
	snprintf(uuid, sizeof(uuid), "LVM-%s%sx", vg, lv);
	ck_assert_ptr_null(uae_dm_lvm_layer(uuid));
}
END_TEST

START_TEST(paths_below)
{
	ck_assert(uae_path_below("/srv/data", "/srv/data"));
	ck_assert(uae_path_below("/srv/data/f", "/srv/data"));
	ck_assert(uae_path_below("/srv/data/f", "/srv/data/"));
	ck_assert(!uae_path_below("/srv/data2/f", "/srv/data"));
	ck_assert(!uae_path_below("/srv", "/srv/data"));
	ck_assert(uae_path_below("/anything", "/"));
	ck_assert(uae_path_below("/srv/data/f", "/srv/data//"));
	ck_assert(!uae_path_below("/srv/data", ""));
}
END_TEST

START_TEST(kubelet_paths)
{
	struct uae_k8s_ref r;

	/* A pod's CSI volume, under the usual root and under another. */
	ck_assert(uae_k8s_parse_path("/var/lib/kubelet/pods/" POD
				     "/volumes/kubernetes.io~csi/pvc-1234/mount", &r));
	ck_assert_str_eq(r.pod_uid, POD);
	ck_assert_str_eq(r.plugin, "kubernetes.io~csi");
	ck_assert_str_eq(r.volume, "pvc-1234");
	ck_assert(!r.staging && !r.block);
	ck_assert(uae_k8s_parse_path("/data/k8s/kubelet/pods/" POD
				     "/volumes/kubernetes.io~local-volume/local-pv-7", &r));
	ck_assert_str_eq(r.plugin, "kubernetes.io~local-volume");
	ck_assert_str_eq(r.volume, "local-pv-7");
	/* Raw block. */
	ck_assert(uae_k8s_parse_path("/var/lib/kubelet/pods/" POD
				     "/volumeDevices/kubernetes.io~csi/pvc-9", &r));
	ck_assert(r.block);
	ck_assert_str_eq(r.volume, "pvc-9");
	ck_assert(uae_k8s_parse_path("/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices/"
				     "publish/pvc-9/" POD, &r));
	ck_assert(r.block && !r.staging);
	ck_assert_str_eq(r.pod_uid, POD);
	ck_assert_str_eq(r.volume, "pvc-9");
	ck_assert(uae_k8s_parse_path("/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices/"
				     "staging/pvc-9", &r));
	ck_assert(r.block && r.staging);
	ck_assert_str_eq(r.pod_uid, "");
	/* CSI staging, the old layout (with the PV) and the new (with the driver). */
	ck_assert(uae_k8s_parse_path("/var/lib/kubelet/plugins/kubernetes.io/csi/pv/pvc-42/"
				     "globalmount", &r));
	ck_assert(r.staging);
	ck_assert_str_eq(r.volume, "pvc-42");
	ck_assert_str_eq(r.pod_uid, "");
	ck_assert(uae_k8s_parse_path("/var/lib/kubelet/plugins/kubernetes.io/csi/ebs.csi.aws.com/"
				     SHA "/globalmount", &r));
	ck_assert(r.staging);
	ck_assert_str_eq(r.driver, "ebs.csi.aws.com");
	ck_assert_str_eq(r.volume, "");
	/* A static pod's uid (an md5), a trailing '/' and a doubled one. */
	ck_assert(uae_k8s_parse_path("/var/lib/kubelet/pods/4a1f0c2b3d4e5f60718293a4b5c6d7e8/"
				     "volumes/kubernetes.io~csi//vol/mount/", &r));
	ck_assert_str_eq(r.pod_uid, "4a1f0c2b3d4e5f60718293a4b5c6d7e8");
	ck_assert_str_eq(r.volume, "vol");
	/* Raw block: the file a loop device locks, CSI's and an in-tree plugin's, deleted too. */
	ck_assert(uae_k8s_parse_path("/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices/"
				     "pvc-9/dev/" POD, &r));
	ck_assert(r.block && !r.staging);
	ck_assert_str_eq(r.volume, "pvc-9");
	ck_assert_str_eq(r.pod_uid, POD);
	ck_assert_str_eq(r.plugin, "kubernetes.io~csi");
	ck_assert(uae_k8s_parse_path("/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices/"
				     "pvc-9/dev/" POD " (deleted)", &r));
	ck_assert_str_eq(r.pod_uid, POD);
	ck_assert(uae_k8s_parse_path("/var/lib/kubelet/plugins/kubernetes.io~local-volume/"
				     "volumeDevices/local-pv-3/" POD, &r));
	ck_assert(r.block);
	ck_assert_str_eq(r.plugin, "kubernetes.io~local-volume");
	ck_assert_str_eq(r.volume, "local-pv-3");
	/* More components than any layout: none. */
	{
		char deep[4096] = "";

		for (int i = 0; i < 70; i++)
			strcat(deep, "/d");
		strcat(deep, "/pods/" POD "/volumes/kubernetes.io~csi/pvc-1/mount");
		ck_assert(!uae_k8s_parse_path(deep, &r));
	}
	/* Look-alikes: a pod folder that is no uid, a component more or less, no globalmount. */
	ck_assert(!uae_k8s_parse_path("/var/lib/kubelet/pods/not-a-uid/volumes/"
				      "kubernetes.io~csi/pvc-1/mount", &r));
	ck_assert(!uae_k8s_parse_path("/var/lib/kubelet/pods/" POD
				      "/volumes/kubernetes.io~csi/pvc-1/mount/data", &r));
	ck_assert(!uae_k8s_parse_path("/var/lib/kubelet/pods/" POD "/volumes/kubernetes.io~csi",
				      &r));
	ck_assert(!uae_k8s_parse_path("/var/lib/kubelet/pods/" POD
				      "/volumeDevices/kubernetes.io~csi/pvc-1/mount", &r));
	ck_assert(!uae_k8s_parse_path("/var/lib/kubelet/plugins/kubernetes.io/csi/pv/pvc-42", &r));
	ck_assert(!uae_k8s_parse_path("/var/lib/kubelet/plugins/kubernetes.io/csi/drv/notasha/"
				      "globalmount", &r));
	ck_assert(!uae_k8s_parse_path("/srv/data", &r));
	ck_assert(!uae_k8s_parse_path("", &r));
	ck_assert_str_eq(r.volume, "");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stack");
	TCase *tc = tcase_create("stack");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, dm_uuid_classes);
	tcase_add_test(tc, lvm_layers_and_names);
	tcase_add_test(tc, paths_below);
	tcase_add_test(tc, kubelet_paths);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
