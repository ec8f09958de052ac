// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modload.c - module loading with libkmod.
 *
 * The driver's presence is judged by SYS/class/capi, which exists whether
 * kernelcapi is a module or built in.  Module names are tried in order:
 * kernelcapi holds the control device since 5.x, "capi" before that.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <libkmod.h>
#include "log.h"
#include "modload.h"

static const char *const candidates[] = { "kernelcapi", "capi" };

static bool driver_present(const char *sysdir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/class/capi", sysdir);
	return access(path, F_OK) == 0;
}

int modload_capi(const char *sysdir, bool dry_run)
{
	struct kmod_ctx *ctx;
	struct kmod_module *mod = NULL;
	const char *name = NULL;
	size_t i;
	int r;

	if (driver_present(sysdir))
		return 0;
	ctx = kmod_new(NULL, NULL);
	if (!ctx) {
		log_err("cannot load the CAPI driver: libkmod failed to start");
		return -1;
	}
	for (i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		if (kmod_module_new_from_name(ctx, candidates[i], &mod) < 0)
			continue;
		/* Known to modules.dep (a path) or built in? */
		if (kmod_module_get_path(mod) ||
		    kmod_module_get_initstate(mod) == KMOD_MODULE_BUILTIN) {
			name = candidates[i];
			break;
		}
		kmod_module_unref(mod);
		mod = NULL;
	}
	if (!mod) {
		log_err("no CAPI driver: neither kernelcapi nor capi is known "
			"to this kernel's modules.dep (is CONFIG_ISDN_CAPI set?)");
		kmod_unref(ctx);
		return -1;
	}
	if (dry_run) {
		printf("modprobe %s\n", name);
		r = 0;
	} else {
		r = kmod_module_probe_insert_module(mod,
				KMOD_PROBE_APPLY_BLACKLIST, NULL, NULL, NULL,
				NULL);
		if (r == KMOD_PROBE_APPLY_BLACKLIST) {
			log_err("not loading %s: it is blacklisted", name);
			r = -1;
		} else if (r < 0) {
			log_err("cannot load %s: %s", name, strerror(-r));
			r = -1;
		} else {
			log_info("loaded the CAPI driver %s", name);
		}
	}
	kmod_module_unref(mod);
	kmod_unref(ctx);
	return r;
}
