// SPDX-License-Identifier: LGPL-2.1-or-later
/* uaeventd's pieces that need no kernel: sanitizing device strings, its config file. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <systemd/sd-event.h>

#include "children.h"
#include "config.h"
#include "floods.h"
#include "handoff.h"
#include "hooks.h"
#include "identity.h"
#include "log.h"
#include "metrics.h"
#include "nvme-health.h"
#include "stale.h"
#include "owed.h"
#include "state.h"
#include "sysfs.h"
#include "trust.h"
#include "vpd.h"

/* REPORT LUNS' list is used only when the target sent all of it. */
START_TEST(report_luns_whole_list_only)
{
	uint8_t resp[8 + 3 * 8] = { 0, 0, 0, 24 };	/* three LUNs */

	ck_assert_int_eq(uaed_report_luns_count(resp, sizeof(resp), sizeof(resp)), 3);
	/* Two of three sent (the residual): the zeroed third would read as LUN 0. */
	ck_assert_int_eq(uaed_report_luns_count(resp, sizeof(resp), sizeof(resp) - 8), -EBADMSG);
	ck_assert_int_eq(uaed_report_luns_count(resp, sizeof(resp), 4), -EBADMSG);
	ck_assert_int_eq(uaed_report_luns_count(resp, sizeof(resp), sizeof(resp) + 1), -EBADMSG);
	/* More than was asked for: ask again. */
	ck_assert_int_eq(uaed_report_luns_count(resp, 16, 16), -EAGAIN);
	resp[3] = 20;	/* not whole LUNs */
	ck_assert_int_eq(uaed_report_luns_count(resp, sizeof(resp), sizeof(resp)), -EBADMSG);
	resp[3] = 0;	/* none */
	ck_assert_int_eq(uaed_report_luns_count(resp, sizeof(resp), 8), 0);
	resp[1] = 0x02;	/* 16,384 LUNs: beyond the kernel's own scan */
	ck_assert_int_eq(uaed_report_luns_count(resp, sizeof(resp), sizeof(resp)), -E2BIG);
}
END_TEST

START_TEST(sanitize_hostile_strings)
{
	char out[64];

	uaed_sanitize("$(reboot);x", out, sizeof(out));
	ck_assert_str_eq(out, "__reboot__x");
	uaed_sanitize("a\nb\rc\td`id`", out, sizeof(out));
	ck_assert_str_eq(out, "a_b_c_d_id_");
	uaed_sanitize("x|y&z>w<v\"'\\*?!~#{}", out, sizeof(out));
	ck_assert_str_eq(out, "x_y_z_w_v__________");
	uaed_sanitize("\xff\x80\x01" "ok", out, sizeof(out));
	ck_assert_str_eq(out, "___ok");
	/* What a hook legitimately needs passes unchanged. */
	uaed_sanitize("naa.5000c500a1b2c3d4 sdb 2:0:0:1 /dev/sg1 a-b_c+d@e,f=g", out, sizeof(out));
	ck_assert_str_eq(out, "naa.5000c500a1b2c3d4 sdb 2:0:0:1 /dev/sg1 a-b_c+d@e,f=g");
	/* Truncated, always terminated. */
	uaed_sanitize("abcdef", out, 4);
	ck_assert_str_eq(out, "abc");
	uaed_sanitize(NULL, out, sizeof(out));
	ck_assert_str_eq(out, "");
}
END_TEST

static const char *write_config(const char *text)
{
	static char path[] = "/tmp/uaeventd-test-XXXXXX";
	int fd;

	strcpy(path, "/tmp/uaeventd-test-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

START_TEST(config_defaults_and_values)
{
	struct uaed_config cfg;
	const char *path;

	ck_assert_int_eq(uaed_config_load(&cfg, "/nonexistent/uaeventd.conf"), 0);
	ck_assert(cfg.rescan);
	ck_assert_uint_eq(cfg.debounce_ms, 2000);
	ck_assert_str_eq(cfg.hooks_dir, "/etc/uaevents/hooks.d");
	ck_assert_str_eq(cfg.state_file, "/var/lib/uaevents/state");
	ck_assert_uint_eq(cfg.removal_grace_s, 600);
	ck_assert_uint_eq(cfg.reconcile_s, 0);

	path = write_config("[daemon]\nstate_file = /run/x\n[rescan]\nenabled = no\n"
			    "debounce_ms = 500\nallow = 2 3:0:1\nresize_command = /bin/true\n"
			    "removal_grace_s = 30\nreconcile_s = 120\n"
			    "[hooks]\ndirectory = /tmp/h\ntimeout_s = 5\nmax_concurrent = 2\n"
			    "mail_to = storage-team@example.com, root\n");
	ck_assert_int_eq(uaed_config_load(&cfg, path), 0);
	unlink(path);
	ck_assert(!cfg.rescan);
	ck_assert_uint_eq(cfg.debounce_ms, 500);
	ck_assert_str_eq(cfg.state_file, "/run/x");
	ck_assert_str_eq(cfg.resize_command, "/bin/true");
	ck_assert_str_eq(cfg.hooks_dir, "/tmp/h");
	ck_assert_uint_eq(cfg.hook_timeout_s, 5);
	ck_assert_uint_eq(cfg.max_hooks, 2);
	ck_assert_str_eq(cfg.mail_to, "storage-team@example.com, root");
	ck_assert_uint_eq(cfg.removal_grace_s, 30);
	ck_assert_uint_eq(cfg.reconcile_s, 120);
	ck_assert(uaed_config_allows(&cfg, 2, 0, 7));
	ck_assert(uaed_config_allows(&cfg, 3, 0, 1));
	ck_assert(!uaed_config_allows(&cfg, 3, 0, 2));
	ck_assert(!uaed_config_allows(&cfg, 4, 0, 0));
}
END_TEST

START_TEST(config_errors)
{
	static const char *const bad[] = {
		"[rescan]\nenabled = maybe\n",
		"[rescan]\ndebounce_ms = -1\n",
		"[rescan]\nallow = 2:x\n",
		"[rescan]\nallow = -1\n",
		"[rescan]\nallow = +2:0:1\n",
		"[hooks]\ntimeout_s = 99999999\n",
		/* Handed to mail(1) as an argument: no option, no shell syntax. */
		"[hooks]\nmail_to = -froot\n",
		"[hooks]\nmail_to = a@b, -froot\n",
		"[hooks]\nmail_to = a@b;reboot\n",
		"[nosuch]\nkey = 1\n",
		"no section line\n",
	};
	struct uaed_config cfg;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *path = write_config(bad[i]);

		ck_assert_int_eq(uaed_config_load(&cfg, path), -EINVAL);
		unlink(path);
	}
}
END_TEST

/* What DIR holds, sorted, as one string ("" when it does not exist). */
static const char *dir_entries(const char *dir)
{
	static char out[256];
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			strcat(out, names[i]->d_name);
			strcat(out, " ");
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return out;
}

static void load(struct uaed_config *cfg, const char *text)
{
	const char *path = write_config(text);

	ck_assert_int_eq(uaed_config_load(cfg, path), 0);
	unlink(path);
}

/* The udev rules' hand-off names exactly the targets uaeventd scans, and follows reloads. */
START_TEST(handoff_follows_config)
{
	char dir[] = "/tmp/uae-handoff-XXXXXX", sub[64];
	struct uaed_config cfg;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/running", dir);

	load(&cfg, "[rescan]\nallow = 2 03:0:1\n");
	ck_assert_int_eq(uaed_handoff_apply(sub, &cfg), 0);
	ck_assert_str_eq(dir_entries(sub), "host2 target3:0:1 ");

	load(&cfg, "[rescan]\nallow = 3:0:1 4\n");
	ck_assert_int_eq(uaed_handoff_apply(sub, &cfg), 0);
	ck_assert_str_eq(dir_entries(sub), "host4 target3:0:1 ");

	load(&cfg, "[rescan]\n");
	ck_assert_int_eq(uaed_handoff_apply(sub, &cfg), 0);
	ck_assert_str_eq(dir_entries(sub), "all ");

	load(&cfg, "[rescan]\nenabled = no\n");
	ck_assert_int_eq(uaed_handoff_apply(sub, &cfg), 0);
	ck_assert_int_eq(access(sub, F_OK), -1);

	load(&cfg, "[rescan]\n");
	ck_assert_int_eq(uaed_handoff_apply(sub, &cfg), 0);
	ck_assert_int_eq(uaed_handoff_clear(sub), 0);
	ck_assert_int_eq(access(sub, F_OK), -1);
	ck_assert_int_eq(uaed_handoff_clear(sub), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* The check at start: a writable place passes and leaves nothing; others fail with errno. */
START_TEST(state_check)
{
	char dir[] = "/tmp/uae-state-XXXXXX", path[64], tmp[80];
	struct uaed_state st = { .instance = 0x1234, .seq = 42 }, back;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sub/state", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	ck_assert_int_eq(uaed_state_check(path), 0);
	ck_assert_msg(access(tmp, F_OK) < 0, "the probe %s was left behind", tmp);
	ck_assert_int_eq(uaed_state_save(path, &st, NULL), 0);
	ck_assert_int_eq(uaed_state_load(path, &back), 0);
	ck_assert_uint_eq(back.instance, 0x1234);
	ck_assert_uint_eq(back.seq, 42);
	ck_assert_int_eq(uaed_state_check(path), 0);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	rmdir(dir);
	/* /proc takes no new files, whoever runs the test. */
	ck_assert_int_lt(uaed_state_check("/proc/uaevents-test/state"), 0);
}
END_TEST

/*
 * Owed work beside the state: what a device wrote (a WWID with blanks, quotes, a newline)
 * comes back as it was, each piece on one line; a line cut short (a full disk) is counted
 * and skipped, not the end of the rest; an older daemon's file has none.
 */
START_TEST(state_keeps_owed_work)
{
	char dir[] = "/tmp/uae-owed-XXXXXX", path[64], line[4096];
	struct uaed_state st = { .instance = 0xabcd, .seq = 7 }, back;
	struct uaed_event e = { .kind = "ua", .name = "CAPACITY_DATA_HAS_CHANGED",
				.category = "capacity", .host = 2, .channel = 0, .target = 1,
				.lun = 16385, .hctl = "2:0:1:16385",
				.devname = "sdb", .wwid = "t10.QEMU  \"odd\"\nwwid  " }, e2;
	char *envp[] = { UAED_HOOK_PATH, "UAEVENTS_KIND=ua", NULL }, *env2[8];
	struct json_object *owed = json_object_new_array(), *got;
	unsigned int reports;
	const char *name;
	FILE *f;
	int lines = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state", dir);
	json_object_array_add(owed, uaed_owed_job("rescan-paths", 3, &e));
	json_object_array_add(owed, uaed_owed_hook("CAPACITY_DATA_HAS_CHANGED-x", envp));
	ck_assert_int_eq(uaed_state_save(path, &st, owed), 0);
	json_object_put(owed);

	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		lines++;
	fclose(f);
	ck_assert_int_eq(lines, 3);
	ck_assert_int_eq(uaed_state_load(path, &back), 0);
	ck_assert_uint_eq(back.seq, 7);
	ck_assert_int_eq(uaed_state_load_owed(path, &got), 0);
	ck_assert_ptr_nonnull(got);
	ck_assert_int_eq(json_object_array_length(got), 2);
	ck_assert_int_eq(uaed_owed_job_parse(json_object_array_get_idx(got, 0), &name, &reports,
					     &e2), 0);
	ck_assert_str_eq(name, "rescan-paths");
	ck_assert_uint_eq(reports, 3);
	ck_assert_str_eq(e2.wwid, e.wwid);
	ck_assert_str_eq(e2.hctl, e.hctl);
	ck_assert_uint_eq(e2.lun, e.lun);
	ck_assert_uint_eq(e2.target, 1);
	ck_assert_ptr_null(e2.ev);
	/* Not a job: a hook run. */
	ck_assert_int_eq(uaed_owed_job_parse(json_object_array_get_idx(got, 1), &name, &reports,
					     &e2), -EINVAL);
	ck_assert_int_eq(uaed_owed_hook_parse(json_object_array_get_idx(got, 1), &name, env2, 7),
			 0);
	ck_assert_str_eq(name, "CAPACITY_DATA_HAS_CHANGED-x");
	ck_assert_str_eq(env2[0], UAED_HOOK_PATH);
	ck_assert_str_eq(env2[1], "UAEVENTS_KIND=ua");
	ck_assert_ptr_null(env2[2]);
	free(env2[0]);
	free(env2[1]);
	/* More strings than the room given: refused, nothing left to free. */
	ck_assert_int_eq(uaed_owed_hook_parse(json_object_array_get_idx(got, 1), &name, env2, 1),
			 -EINVAL);
	ck_assert_ptr_null(env2[0]);
	json_object_put(got);

	/*
	 * Hostile lines: an environment string with a newline, one without '=', one that
	 * would reach the hook's loader; a negative host; an address its numbers do not give;
	 * a disk name that is a path; then a line cut short.
	 */
	f = fopen(path, "a");
	ck_assert_ptr_nonnull(f);
	fputs("{\"hook\": \"all-x\", \"env\": [\"UAEVENTS_A=1\\nB=2\"]}\n", f);
	fputs("{\"hook\": \"all-x\", \"env\": [\"UAEVENTS_A\"]}\n", f);
	fputs("{\"hook\": \"all-x\", \"env\": [\"LD_PRELOAD=/tmp/x.so\"]}\n", f);
#define JOB(host, hctl, dev) \
	"{\"job\": \"rescan-device\", \"event\": {\"kind\": \"ua\", \"name\": \"X\", " \
	"\"category\": \"c\", \"host\": " host ", \"channel\": 0, \"target\": 0, " \
	"\"lun\": 1, \"hctl\": \"" hctl "\", \"devname\": \"" dev "\", \"wwid\": \"w\"}}\n"
	fputs(JOB("-1", "-1:0:0:1", "sdb"), f);
	fputs(JOB("2", "2:0:0:1/../../x", "sdb"), f);
	fputs(JOB("2", "2:0:0:1", "../sdb"), f);
	fputs(JOB("2", "2:0:0:1", "sdb"), f);
#undef JOB
	fputs("{\"job\": \"rescan-pa", f);
	fclose(f);
	ck_assert_int_eq(uaed_state_load_owed(path, &got), 1);
	ck_assert_int_eq(json_object_array_length(got), 9);
	for (int i = 2; i < 5; i++)
		ck_assert_int_eq(uaed_owed_hook_parse(json_object_array_get_idx(got, i), &name,
						      env2, 7), -EINVAL);
	for (int i = 5; i < 8; i++)
		ck_assert_int_eq(uaed_owed_job_parse(json_object_array_get_idx(got, i), &name,
						     &reports, &e2), -EINVAL);
	/* The well-formed one, as a control. */
	ck_assert_int_eq(uaed_owed_job_parse(json_object_array_get_idx(got, 8), &name, &reports,
					     &e2), 0);
	ck_assert_str_eq(e2.hctl, "2:0:0:1");
	json_object_put(got);

	/* The first piece: this boot's, with the last event acted on; another boot's. */
	{
		struct uaed_state acted = { .instance = 0xfeed, .seq = 77 }, back2 = { 0 };
		struct json_object *meta = json_object_new_array(), *other;

		ck_assert_int_eq(uaed_owed_meta(meta, &acted), 0);
		ck_assert_int_eq(uaed_owed_meta_parse(json_object_array_get_idx(meta, 0), &back2),
				 0);
		ck_assert_uint_eq(back2.instance, 0xfeed);
		ck_assert_uint_eq(back2.seq, 77);
		other = json_tokener_parse("{\"boot\": \"00000000000000000000000000000001\", "
					   "\"acted\": {\"instance\": \"feed\", \"seq\": 1}}");
		ck_assert_int_eq(uaed_owed_meta_parse(other, &back2), -ESTALE);
		json_object_put(other);
		json_object_put(meta);
	}

	/* An older daemon's file: the state alone. */
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("000000000000abcd 9\n", f);
	fclose(f);
	ck_assert_int_eq(uaed_state_load_owed(path, &got), 0);
	ck_assert_ptr_null(got);
	ck_assert_int_eq(uaed_state_load(path, &back), 0);
	ck_assert_uint_eq(back.seq, 9);
	ck_assert_int_eq(uaed_state_load_owed("/nonexistent/uae/state", &got), -ENOENT);
	unlink(path);
	rmdir(dir);
}
END_TEST

/*
 * Hooks, run for real: a folder in /tmp (sticky, root's), sh scripts, the daemon's loop.
 * Owned by whoever runs the test: root, or (a package build) the user the daemon would
 * run as.
 */
struct hook_env {
	char dir[64];
	sd_event *loop;
	struct uaed_hooks *h;
	struct uaed_config cfg;
};

static void write_file(const char *dir, const char *name, const char *text, mode_t mode)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(chmod(path, mode), 0);
}

static void hooks_setup(struct hook_env *t, unsigned int max_hooks)
{
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	strcpy(t->dir, "/tmp/uae-hooks-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(t->dir));
	ck_assert_int_eq(sd_event_new(&t->loop), 0);
	ck_assert_int_eq(uaed_hooks_new(&t->h, t->loop), 0);
	ck_assert_int_eq(uaed_config_load(&t->cfg, "/nonexistent/uaeventd.conf"), 0);
	snprintf(t->cfg.hooks_dir, sizeof(t->cfg.hooks_dir), "%s", t->dir);
	snprintf(t->cfg.mail_to, sizeof(t->cfg.mail_to), "storage@example.com");
	t->cfg.max_hooks = max_hooks;
}

static void hooks_event(struct hook_env *t, const char *name)
{
	struct uaed_event e = { .ev = NULL };

	strcpy(e.kind, "ua");
	snprintf(e.name, sizeof(e.name), "%s", name);
	strcpy(e.category, "none");
	strcpy(e.hctl, "99:0:0:0");
	uaed_hooks_run(t->h, &e, 0);
}

static void hooks_wait(struct hook_env *t)
{
	struct uaed_hooks_stats st;

	for (int i = 0; i < 6000; i++) {
		uaed_hooks_get_stats(t->h, &st);
		if (!st.running && !st.queued)
			return;
		sd_event_run(t->loop, 10000);
	}
	ck_abort_msg("hooks still running (%u) or queued (%u) after 60 s", st.running, st.queued);
}

static void hooks_teardown(struct hook_env *t)
{
	DIR *d = opendir(t->dir);
	struct dirent *de;

	uaed_hooks_free(t->h);
	sd_event_unref(t->loop);
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
	rmdir(t->dir);
}

static char *read_out(const struct hook_env *t, const char *name)
{
	static char buf[65536];
	char path[128];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", t->dir, name);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* What runs is the file that was checked: one swapped in at its path later is not. */
START_TEST(hooks_run_the_checked_file)
{
	struct hook_env t;
	char script[256], path[128], tmp[128];

	hooks_setup(&t, 4);
	snprintf(script, sizeof(script), "#!/bin/sh\necho \"$UAEVENTS_EVENT $UAEVENTS_MAILTO\" "
		 ">>%s/out\n", t.dir);
	write_file(t.dir, "all-record", script, 0755);
	snprintf(script, sizeof(script), "#!/bin/sh\necho group >>%s/out\n", t.dir);
	write_file(t.dir, "all-group-writable", script, 0775);
	uaed_hooks_scan(t.h, &t.cfg);
	/* Replaced after the scan, as an attacker with a race would. */
	snprintf(script, sizeof(script), "#!/bin/sh\necho swapped >>%s/out\n", t.dir);
	write_file(t.dir, "swap.tmp", script, 0755);
	snprintf(tmp, sizeof(tmp), "%s/swap.tmp", t.dir);
	snprintf(path, sizeof(path), "%s/all-record", t.dir);
	ck_assert_int_eq(rename(tmp, path), 0);
	hooks_event(&t, "SOFT_THRESHOLD_REACHED");
	hooks_wait(&t);
	ck_assert_str_eq(read_out(&t, "out"), "SOFT_THRESHOLD_REACHED storage@example.com\n");
	hooks_teardown(&t);
}
END_TEST

/* UAEVENTS_FLOOD_REPEAT=1 for the hooks of the mask only; the hooks queued, a bit each. */
START_TEST(hooks_flood_repeat_per_hook)
{
	struct uaed_event e = { .ev = NULL };
	struct hook_env t;
	char script[256];
	const char *out;
	uint64_t took;

	hooks_setup(&t, 4);
	for (char c = 'a'; c <= 'b'; c++) {
		char name[8];

		snprintf(script, sizeof(script), "#!/bin/sh\necho \"%c ${UAEVENTS_FLOOD_REPEAT:-0}\" "
			 ">>%s/out\n", c, t.dir);
		snprintf(name, sizeof(name), "all-%c", c);
		write_file(t.dir, name, script, 0755);
	}
	uaed_hooks_scan(t.h, &t.cfg);
	strcpy(e.kind, "ua");
	strcpy(e.name, "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED");
	strcpy(e.category, "space");
	strcpy(e.hctl, "99:0:0:0");
	/* Whichever hook the folder's list has first took the alert already. */
	took = uaed_hooks_run(t.h, &e, 1);
	hooks_wait(&t);
	ck_assert_uint_eq(took, 3);
	out = read_out(&t, "out");
	ck_assert_msg(strlen(out) == 8 && strstr(out, " 1\n") && strstr(out, " 0\n"),
		      "hooks printed: %s", out);
	hooks_teardown(&t);
}
END_TEST

/* A folder others can write to (here: its group) runs no hooks at all. */
START_TEST(hooks_unsafe_folder)
{
	struct hook_env t;
	struct uaed_hooks_stats st;
	char script[256];

	hooks_setup(&t, 4);
	snprintf(script, sizeof(script), "#!/bin/sh\necho ran >>%s/out\n", t.dir);
	write_file(t.dir, "all-record", script, 0755);
	ck_assert_int_eq(chmod(t.dir, 0775), 0);
	uaed_hooks_scan(t.h, &t.cfg);
	hooks_event(&t, "SOFT_THRESHOLD_REACHED");
	uaed_hooks_get_stats(t.h, &st);
	ck_assert_uint_eq(st.running + st.queued, 0);
	hooks_wait(&t);
	ck_assert_str_eq(read_out(&t, "out"), "");
	hooks_teardown(&t);
}
END_TEST

/*
 * resize_command runs as root by its path: only a file root alone can change, in folders
 * root alone can change, through a link too.
 */
START_TEST(resize_command_checked)
{
	char dir[] = "/tmp/uae-trust-XXXXXX", path[512], link[512], which[512];
	const char *why;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	write_file(dir, "resize", "#!/bin/sh\n", 0755);
	snprintf(path, sizeof(path), "%s/resize", dir);
	why = uaed_unsafe_command(path, which, sizeof(which));
	ck_assert_msg(!why, "a safe command refused: %s %s", which, why ? why : "");

	ck_assert_str_eq(uaed_unsafe_command("resize", which, sizeof(which)),
			 "not an absolute path");
	ck_assert_int_eq(chmod(path, 0775), 0);
	ck_assert_str_eq(uaed_unsafe_command(path, which, sizeof(which)),
			 "writable by group or others");
	ck_assert_str_eq(which, path);
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_str_eq(uaed_unsafe_command(path, which, sizeof(which)), "not executable");
	ck_assert_int_eq(chmod(path, 0755), 0);

	/* The folder: others may swap the file. */
	ck_assert_int_eq(chmod(dir, 0777), 0);
	ck_assert_str_eq(uaed_unsafe_command(path, which, sizeof(which)),
			 "writable by group or others");
	ck_assert_str_eq(which, dir);

	/* A link in a safe folder (/tmp is sticky) to the file in that unsafe folder. */
	snprintf(link, sizeof(link), "%s-link", dir);
	ck_assert_int_eq(symlink(path, link), 0);
	ck_assert_str_eq(uaed_unsafe_command(link, which, sizeof(which)),
			 "writable by group or others");
	ck_assert_str_eq(which, dir);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	why = uaed_unsafe_command(link, which, sizeof(which));
	ck_assert_msg(!why, "a link to a safe command refused: %s %s", which, why ? why : "");

	unlink(link);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* A storm: one runs, 256 wait, the rest are counted; every run counted or made. */
START_TEST(hooks_queue_bounded)
{
	struct hook_env t;
	struct uaed_hooks_stats st;
	char script[256], *out;
	int lines = 0;

	hooks_setup(&t, 1);
	snprintf(script, sizeof(script), "#!/bin/sh\necho x >>%s/out\n", t.dir);
	write_file(t.dir, "all-record", script, 0755);
	uaed_hooks_scan(t.h, &t.cfg);
	for (int i = 0; i < 300; i++)
		hooks_event(&t, "SOFT_THRESHOLD_REACHED");
	uaed_hooks_get_stats(t.h, &st);
	ck_assert_uint_eq(st.running, 1);
	ck_assert_uint_eq(st.queued, 256);
	ck_assert_uint_eq(st.dropped, 300 - 1 - 256);
	hooks_wait(&t);
	for (out = read_out(&t, "out"); *out; out++)
		lines += *out == '\n';
	ck_assert_int_eq(lines, 257);
	/* With room again, runs are made again. */
	hooks_event(&t, "SOFT_THRESHOLD_REACHED");
	hooks_wait(&t);
	uaed_hooks_get_stats(t.h, &st);
	ck_assert_uint_eq(st.dropped, 43);
	hooks_teardown(&t);
}
END_TEST

/* A space condition's first event per LU in a target's window is an alert; repeats not. */
/* multipath's WWID of a LU against its page 83h: the check that takes a path out of a map. */
START_TEST(mpath_wwid_names_lu)
{
	/* scsi_debug's page: NAA 3 (locally assigned), then a T10 vendor ID with blanks. */
	static const uint8_t sdebug[] = {
		0x00, 0x83, 0x00, 0x2c,
		0x01, 0x03, 0x00, 0x08, 0x33, 0x33, 0x33, 0x30, 0x00, 0x00, 0x07, 0xd0,
		0x02, 0x01, 0x00, 0x1c, 'L', 'i', 'n', 'u', 'x', ' ', ' ', ' ',
		's', 'c', 's', 'i', '_', 'd', 'e', 'b', 'u', 'g', ' ', ' ', ' ', ' ', ' ', ' ',
		'2', '0', '0', '0',
	};
	/* LIO's: NAA 6, then a target port designator (association 1), which names no LU. */
	static const uint8_t lio[] = {
		0x00, 0x83, 0x00, 0x1c,
		0x01, 0x03, 0x00, 0x10, 0x60, 0x01, 0x40, 0x5a, 0xbc, 0xde, 0xf0, 0x12,
		0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x12,
		0x61, 0x94, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01,
	};

	ck_assert(uaed_wwid_names_lu(sdebug, sizeof(sdebug), "1Linux_scsi_debug_2000"));
	ck_assert(uaed_wwid_names_lu(sdebug, sizeof(sdebug), "333333330000007d0"));
	ck_assert(!uaed_wwid_names_lu(sdebug, sizeof(sdebug), "1Linux_scsi_debug_2001"));
	ck_assert(!uaed_wwid_names_lu(sdebug, sizeof(sdebug), "3Linux_scsi_debug_2000"));
	ck_assert(uaed_wwid_names_lu(lio, sizeof(lio), "36001405abcdef0123456789abcdef012"));
	ck_assert(uaed_wwid_names_lu(lio, sizeof(lio), "36001405ABCDEF0123456789ABCDEF012"));
	ck_assert(!uaed_wwid_names_lu(lio, sizeof(lio), "36001405abcdef0123456789abcdef013"));
	/* The target port's number is no LU's name; a truncated page names nothing. */
	ck_assert(!uaed_wwid_names_lu(lio, sizeof(lio), "300000001"));
	ck_assert(!uaed_wwid_names_lu(lio, 10, "36001405abcdef0123456789abcdef012"));
	ck_assert(!uaed_wwid_names_lu(lio, sizeof(lio), ""));
}
END_TEST

START_TEST(floods_first_per_lu)
{
	const char *soft = "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED";
	struct uaed_floods *f = NULL;
	sd_event *loop = NULL;

	ck_assert_int_eq(sd_event_new(&loop), 0);
	ck_assert_int_eq(uaed_floods_new(&f, loop), 0);
	ck_assert(uaed_floods_covers(soft));
	ck_assert(!uaed_floods_covers("CAPACITY_DATA_HAS_CHANGED"));
	for (int i = 0; i < 40; i++) {
		char hctl[32];

		snprintf(hctl, sizeof(hctl), "2:0:1:%d", i);
		ck_assert_msg(uaed_floods_note(f, soft, hctl, "naa.1", 4), "LU %d's first", i);
	}
	ck_assert(!uaed_floods_note(f, soft, "2:0:1:7", "naa.1", 4));
	/* Another target, another condition, another event: windows of their own. */
	ck_assert(uaed_floods_note(f, soft, "2:0:2:7", "naa.2", 4));
	ck_assert(uaed_floods_note(f, "SPACE_ALLOCATION_FAILED_WRITE_PROTECT", "2:0:1:7", "", 3));
	ck_assert(uaed_floods_note(f, "CAPACITY_DATA_HAS_CHANGED", "2:0:1:7", "", 5));
	ck_assert(uaed_floods_note(f, "CAPACITY_DATA_HAS_CHANGED", "2:0:1:7", "", 5));
	ck_assert(uaed_floods_note(NULL, soft, "2:0:1:7", "", 4));
	uaed_floods_free(f);
	sd_event_unref(loop);
}
END_TEST

/* What each hook took of a LU's space alert in its window (the soak found one flag for all). */
START_TEST(floods_hooks_per_hook)
{
	const char *soft = "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED";
	struct uaed_floods *f = NULL;
	sd_event *loop = NULL;

	ck_assert_int_eq(sd_event_new(&loop), 0);
	ck_assert_int_eq(uaed_floods_new(&f, loop), 0);
	/* Nothing followed yet, and nothing for what no window covers. */
	ck_assert_uint_eq(uaed_floods_hooked(f, soft, "2:0:1:0"), 0);
	ck_assert(uaed_floods_note(f, soft, "2:0:1:0", "naa.1", 4));
	ck_assert(uaed_floods_note(f, soft, "2:0:1:1", "naa.2", 4));
	ck_assert_uint_eq(uaed_floods_hooked(f, soft, "2:0:1:0"), 0);
	/* Hook 0 took LU 0's alert; hook 63 too, later: each its own bit, the others none. */
	uaed_floods_add_hooked(f, soft, "2:0:1:0", 1);
	uaed_floods_add_hooked(f, soft, "2:0:1:0", 1ULL << 63);
	ck_assert_uint_eq(uaed_floods_hooked(f, soft, "2:0:1:0"), 1 | 1ULL << 63);
	ck_assert_uint_eq(uaed_floods_hooked(f, soft, "2:0:1:1"), 0);
	ck_assert_uint_eq(uaed_floods_hooked(f, "SPACE_ALLOCATION_FAILED_WRITE_PROTECT",
					     "2:0:1:0"), 0);
	uaed_floods_add_hooked(f, "CAPACITY_DATA_HAS_CHANGED", "2:0:1:0", 2);
	ck_assert_uint_eq(uaed_floods_hooked(f, "CAPACITY_DATA_HAS_CHANGED", "2:0:1:0"), 0);
	/* The same volume again: a repeat, its hooks kept; another volume at the address: new. */
	ck_assert(!uaed_floods_note(f, soft, "2:0:1:0", "naa.1", 4));
	ck_assert_uint_eq(uaed_floods_hooked(f, soft, "2:0:1:0"), 1 | 1ULL << 63);
	ck_assert(uaed_floods_note(f, soft, "2:0:1:0", "naa.9", 4));
	ck_assert_uint_eq(uaed_floods_hooked(f, soft, "2:0:1:0"), 0);
	/* A reload numbers hooks anew: all forgotten. */
	uaed_floods_add_hooked(f, soft, "2:0:1:1", 4);
	uaed_floods_forget_hooks(f);
	ck_assert_uint_eq(uaed_floods_hooked(f, soft, "2:0:1:1"), 0);
	uaed_floods_free(f);
	sd_event_unref(loop);
}
END_TEST

/* A device's WWID with a quote, a backslash, a newline and a byte of invalid UTF-8. */
START_TEST(metrics_file_from_hostile_wwid)
{
	char dir[] = "/tmp/uae-metrics-XXXXXX", path[64], text[8192];
	struct uaed_event e = { .kind = "ua", .category = "space", .host = 3,
				.name = "THIN_PROVISIONING_SOFT_THRESHOLD_REACHED",
				.wwid = "naa.\"x\\y\nz\xff" };
	/* An NVMe controller's events: a series of their own, by controller, not SCSI host. */
	struct uaed_event aen = { .kind = "aen", .category = "none", .nvme_ctrl = "nvme2",
				  .name = "NVME_ANA_CHANGE" };
	struct uaed_metrics *m = NULL;
	sd_event *loop = NULL;
	size_t n;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sd_event_new(&loop), 0);
	ck_assert_int_eq(uaed_metrics_new(&m, loop, dir), 0);
	ck_assert_ptr_nonnull(m);
	uaed_metrics_event(m, &e, 5);
	uaed_metrics_event(m, &e, 1);
	uaed_metrics_event(m, &aen, 2);
	uaed_metrics_lost(m, 2);
	uaed_metrics_lost(m, 1);
	uaed_metrics_job(m, "rescan-paths", false);
	uaed_metrics_job(m, "rescan-paths", true);
	uaed_metrics_flush(m);
	snprintf(path, sizeof(path), "%s/uaevents.prom", dir);
	f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	ck_assert_msg(strstr(text, "uaevents_events_total{host=\"3\",kind=\"ua\",category=\"space\","
			     "event=\"THIN_PROVISIONING_SOFT_THRESHOLD_REACHED\"} 6\n"), "%s", text);
	ck_assert_msg(strstr(text, "wwid=\"naa.\\\"x\\\\y?z?\"} "), "%s", text);
	ck_assert_msg(strstr(text, "uaevents_nvme_events_total{controller=\"nvme2\",kind=\"aen\","
			     "event=\"NVME_ANA_CHANGE\"} 2\n"), "%s", text);
	ck_assert_msg(!strstr(text, "uaevents_events_total{host=\"0\""), "%s", text);
	ck_assert_msg(strstr(text, "uaevents_events_lost_total 3\n"), "%s", text);
	ck_assert_msg(strstr(text, "uaevents_gaps_total 2\n"), "%s", text);
	ck_assert_msg(strstr(text, "uaevents_jobs_total{job=\"rescan-paths\",result=\"ok\"} 1\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "uaevents_jobs_total{job=\"rescan-paths\",result=\"failed\"} 1\n"),
		      "%s", text);
	/* Every line a comment or "name{labels} value": no line broken by the WWID. */
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		ck_assert_msg(line[0] == '#' || !strncmp(line, "uae", 3), "line: %s", line);
	uaed_metrics_free(m);
	sd_event_unref(loop);
	unlink(path);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* Page 83h: the LU's designators and the port's, and the end of a page that lies. */
/*
 * An NVMe controller's owed log read: kept across a restart by the controller's name,
 * which has no SCSI address and becomes a path; a name that is anything else is refused.
 */
START_TEST(owed_nvme_job)
{
	struct uaed_event e = { .kind = "aen", .name = "NVME_SPARE_BELOW_THRESHOLD",
				.category = "none", .nvme_ctrl = "nvme12" }, e2;
	static const char *const hostile[] = { "nvme", "nvme1/../sda", "../nvme1", "nvme-1",
						"nvme1 ", "nvmex", "sda", "nvme+3", "nvme 3",
						"nvme03", "nvme12345678901", "NVME1" };
	struct json_object *o = uaed_owed_job("nvme-health", 2, &e), *ev;
	unsigned int reports;
	const char *name;

	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(uaed_owed_job_parse(o, &name, &reports, &e2), 0);
	ck_assert_str_eq(name, "nvme-health");
	ck_assert_uint_eq(reports, 2);
	ck_assert_str_eq(e2.nvme_ctrl, "nvme12");
	ck_assert_str_eq(e2.hctl, "");
	ck_assert(uae_nvme_controller_name_valid("nvme0"));
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		ck_assert_msg(!uae_nvme_controller_name_valid(hostile[i]), "%s", hostile[i]);
		ck_assert(json_object_object_get_ex(o, "event", &ev));
		json_object_object_add(ev, "nvme_ctrl", json_object_new_string(hostile[i]));
		ck_assert_msg(uaed_owed_job_parse(o, &name, &reports, &e2) == -EINVAL, "%s",
			      hostile[i]);
	}
	/* A controller's job of another kind: a scan of no target. */
	json_object_object_add(ev, "nvme_ctrl", json_object_new_string("nvme1"));
	json_object_object_add(o, "job", json_object_new_string("scan-target"));
	ck_assert_int_eq(uaed_owed_job_parse(o, &name, &reports, &e2), -EINVAL);
	json_object_object_add(o, "job", json_object_new_string("nvme-health"));
	ck_assert_int_eq(uaed_owed_job_parse(o, &name, &reports, &e2), 0);
	/* A controller's job with a SCSI address too. */
	json_object_object_add(ev, "nvme_ctrl", json_object_new_string("nvme1"));
	json_object_object_add(ev, "hctl", json_object_new_string("0:0:0:0"));
	ck_assert_int_eq(uaed_owed_job_parse(o, &name, &reports, &e2), -EINVAL);
	json_object_put(o);
}
END_TEST

START_TEST(vpd83_walk)
{
	uint8_t page[] = {
		0x00, 0x83, 0x00, 0x1c,
		/* NAA (type 3), the LU's (association 0), 8 bytes */
		0x01, 0x03, 0x00, 0x08, 0x50, 0x01, 0x40, 0x50, 0x00, 0x00, 0x00, 0x01,
		/* target port group (type 5), the port's (association 1): group 2 */
		0x01, 0x15, 0x00, 0x04, 0x00, 0x00, 0x00, 0x02,
		/* relative target port (type 4, association 1): port 1 */
		0x01, 0x14, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01,
	};
	const uint8_t *d = NULL;
	int len = uaed_vpd83_len(page, sizeof(page));

	ck_assert_int_eq(len, sizeof(page));
	ck_assert_int_eq(uaed_vpd83_next(page, len, &d, 0, -1), 1);
	ck_assert_int_eq(d[1] & 0xf, 3);
	ck_assert_int_eq(uaed_vpd83_next(page, len, &d, 0, -1), 0);
	d = NULL;
	ck_assert_int_eq(uaed_vpd83_next(page, len, &d, 1, 5), 1);
	ck_assert_int_eq(d[7], 2);
	ck_assert_int_eq(uaed_vpd83_next(page, len, &d, 1, 5), 0);
	/* Not page 83h; shorter than its header. */
	ck_assert_int_eq(uaed_vpd83_len(page, 3), -EBADMSG);
	page[1] = 0x80;
	ck_assert_int_eq(uaed_vpd83_len(page, sizeof(page)), -EBADMSG);
	page[1] = 0x83;
	/* Cut short: the header says more than was read; the last designator overruns. */
	len = uaed_vpd83_len(page, sizeof(page) - 2);
	ck_assert_int_eq(len, sizeof(page) - 2);
	d = NULL;
	ck_assert_int_eq(uaed_vpd83_next(page, len, &d, 1, 4), -EBADMSG);
}
END_TEST

/* A WWID read from sysfs keeps its trailing blanks (a T10 designator's), as events do. */
START_TEST(sysfs_read_keeps_blanks)
{
	char dir[] = "/tmp/uaed-sysfs-XXXXXX", path[64], buf[64];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_file(dir, "wwid", "t10.LIO-ORG \n", 0644);
	snprintf(path, sizeof(path), "%s/wwid", dir);
	ck_assert_int_eq(uaed_sysfs_readat(AT_FDCWD, path, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "t10.LIO-ORG ");
	unlink(path);
	rmdir(dir);
}
END_TEST

/*
 * A job's child's entry, sent through the daemon's socket: every field formatted as
 * sd_journal_send() would, whatever the argument types before it.
 */
START_TEST(log_forward_fields)
{
	char buf[4096], want[512];
	uint64_t big = 18446744073709551615ULL;
	size_t z = 12345;
	ssize_t n;
	int sv[2];
	size_t at = 0;
	const char *fields[16];
	int nf = 0, r;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	uaed_log_forward(sv[1]);
	errno = ENOENT;
	r = uaed_log_action(LOG_NOTICE, "test-action",
			    "MESSAGE=%s has %d path(s), %zu, %" PRIu64 ", %.2f, %c, %m",
			    "naa.1", -3, z, big, 1.5, 'x',
			    "UAEVENTS_A=%hhu %hd %ld %lld %p", (unsigned char)7, (short)-8, -9L,
			    -10LL, (void *)0x10,
			    "UAEVENTS_B=%*s|%-4.3s|", 5, "ab", "abcdef",
			    "UAEVENTS_C=%%", NULL);
	ck_assert_int_eq(r, 0);
	uaed_log_forward(-1);
	n = recv(sv[0], buf, sizeof(buf), MSG_DONTWAIT);
	ck_assert_int_gt(n, 0);
	while (at < (size_t)n && nf < 16) {
		fields[nf++] = buf + at;
		at += strlen(buf + at) + 1;
	}
	ck_assert_int_eq(nf, 7);
	ck_assert_str_eq(fields[0], "PRIORITY=5");
	ck_assert_str_eq(fields[1], "SYSLOG_IDENTIFIER=uaeventd");
	ck_assert_str_eq(fields[2], "UAEVENTS_ACTION=test-action");
	snprintf(want, sizeof(want), "MESSAGE=naa.1 has -3 path(s), 12345, "
		 "18446744073709551615, 1.50, x, %s", strerror(ENOENT));
	ck_assert_str_eq(fields[3], want);
	ck_assert_str_eq(fields[4], "UAEVENTS_A=7 -8 -9 -10 0x10");
	ck_assert_str_eq(fields[5], "UAEVENTS_B=   ab|abc |");
	ck_assert_str_eq(fields[6], "UAEVENTS_C=%");
	/* What the daemon makes of a record without its terminator: refused, not read past. */
	ck_assert_int_eq(uaed_log_forwarded("MESSAGE=x", 9), -EBADMSG);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/*
 * A job's command, started as execvp() started it: a script without "#!" through /bin/sh,
 * its first line of output kept, and whatever cannot be run as exit status 127 with the
 * reason, never a silent failure.
 */
START_TEST(run_wait_like_execvp)
{
	char dir[] = "/tmp/uaed-run-XXXXXX", path[128], out[256];
	char *argv[] = { path, "one", "two", NULL };
	int status;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_file(dir, "noshebang", "echo \"ran $1 $2\"\nexit 3\n", 0755);
	snprintf(path, sizeof(path), "%s/noshebang", dir);
	status = uaed_run_wait(path, argv, out, sizeof(out));
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 3);
	ck_assert_str_eq(out, "ran one two");

	snprintf(path, sizeof(path), "%s/missing", dir);
	status = uaed_run_wait(path, argv, out, sizeof(out));
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 127);
	ck_assert_ptr_nonnull(strstr(out, "No such file or directory"));

	snprintf(path, sizeof(path), "%s/noshebang/x", dir);	/* ENOTDIR */
	status = uaed_run_wait(path, argv, out, sizeof(out));
	ck_assert_int_eq(WEXITSTATUS(status), 127);
	ck_assert_ptr_nonnull(strstr(out, "cannot run"));

	/* By name, in the fixed PATH only. */
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = "echo \"$PATH\"";
	status = uaed_run_wait("sh", argv, out, sizeof(out));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_str_eq(out, "/usr/sbin:/usr/bin:/sbin:/bin");
	status = uaed_run_wait("uaed-no-such-program", argv, out, sizeof(out));
	ck_assert_int_eq(WEXITSTATUS(status), 127);

	snprintf(path, sizeof(path), "%s/noshebang", dir);
	unlink(path);
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("agent");
	TCase *tc = tcase_create("agent");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, sanitize_hostile_strings);
	tcase_add_test(tc, config_defaults_and_values);
	tcase_add_test(tc, config_errors);
	tcase_add_test(tc, state_check);
	tcase_add_test(tc, state_keeps_owed_work);
	tcase_add_test(tc, handoff_follows_config);
	tcase_add_test(tc, hooks_run_the_checked_file);
	tcase_add_test(tc, hooks_flood_repeat_per_hook);
	tcase_add_test(tc, hooks_unsafe_folder);
	tcase_add_test(tc, hooks_queue_bounded);
	tcase_add_test(tc, resize_command_checked);
	tcase_add_test(tc, floods_first_per_lu);
	tcase_add_test(tc, floods_hooks_per_hook);
	tcase_add_test(tc, mpath_wwid_names_lu);
	tcase_add_test(tc, metrics_file_from_hostile_wwid);
	tcase_add_test(tc, report_luns_whole_list_only);
	tcase_add_test(tc, vpd83_walk);
	tcase_add_test(tc, owed_nvme_job);
	tcase_add_test(tc, sysfs_read_keeps_blanks);
	tcase_add_test(tc, log_forward_fields);
	tcase_add_test(tc, run_wait_like_execvp);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
