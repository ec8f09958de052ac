// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modload.c - module loading with libkmod, opened only when it is needed.
 *
 * The driver's presence is judged by SYS/class/capi, which exists whether
 * kernelcapi is a module or built in.  Module names are tried in order:
 * kernelcapi holds the control device since 5.x, "capi" before that.
 *
 * libkmod is dlopen()ed here and closed again: linked in, it and what it
 * links (zstd, lzma, libcrypto) would stay mapped, with their relocated
 * data dirty, for the whole life of a daemon that never loads a module
 * (capi-devd.service runs --load-driver as a separate job).  Its header
 * still gives every pointer its type, so a changed signature fails the
 * build.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <libkmod.h>
#include "log.h"
#include "modload.h"
#include "modsig.h"

#define KMOD_SONAME "libkmod.so.2"

static const char *const candidates[] = { "kernelcapi", "capi" };

struct kmod_api {
	void *dl;
	__typeof__(kmod_new) *new_ctx;
	__typeof__(kmod_unref) *unref;
	__typeof__(kmod_module_new_from_name) *module_new_from_name;
	__typeof__(kmod_module_get_path) *module_get_path;
	__typeof__(kmod_module_get_initstate) *module_get_initstate;
	__typeof__(kmod_module_probe_insert_module) *probe_insert_module;
	__typeof__(kmod_module_unref) *module_unref;
};

static bool driver_present(const char *sysdir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/class/capi", sysdir);
	return access(path, F_OK) == 0;
}

#define KMOD_SYM(k, field, name) \
	((k)->field = (__typeof__((k)->field))dlsym((k)->dl, name))

static int kmod_api_open(struct kmod_api *k)
{
	k->dl = dlopen(KMOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!k->dl) {
		log_err("cannot load the CAPI driver: %s is missing "
			"(install libkmod2): %s", KMOD_SONAME, dlerror());
		return -1;
	}
	if (!KMOD_SYM(k, new_ctx, "kmod_new") ||
	    !KMOD_SYM(k, unref, "kmod_unref") ||
	    !KMOD_SYM(k, module_new_from_name, "kmod_module_new_from_name") ||
	    !KMOD_SYM(k, module_get_path, "kmod_module_get_path") ||
	    !KMOD_SYM(k, module_get_initstate, "kmod_module_get_initstate") ||
	    !KMOD_SYM(k, probe_insert_module,
		      "kmod_module_probe_insert_module") ||
	    !KMOD_SYM(k, module_unref, "kmod_module_unref")) {
		log_err("cannot load the CAPI driver: %s lacks a function: %s",
			KMOD_SONAME, dlerror());
		dlclose(k->dl);
		return -1;
	}
	return 0;
}

static int load(struct kmod_api *k, struct kmod_ctx *ctx, const char *sysdir,
		bool dry_run)
{
	struct kmod_module *mod = NULL;
	const char *name = NULL, *why;
	size_t i;
	int r;

	for (i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		if (k->module_new_from_name(ctx, candidates[i], &mod) < 0)
			continue;
		/* Known to modules.dep (a path) or built in? */
		if (k->module_get_path(mod) ||
		    k->module_get_initstate(mod) == KMOD_MODULE_BUILTIN) {
			name = candidates[i];
			break;
		}
		k->module_unref(mod);
		mod = NULL;
	}
	if (!mod) {
		log_err("no CAPI driver: neither kernelcapi nor capi is known "
			"to this kernel's modules.dep (is CONFIG_ISDN_CAPI set?)");
		return -1;
	}
	if (dry_run) {
		printf("modprobe %s\n", name);
		r = 0;
	} else {
		r = k->probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST,
					   NULL, NULL, NULL, NULL);
		if (r == KMOD_PROBE_APPLY_BLACKLIST) {
			log_err("not loading %s: it is blacklisted", name);
			r = -1;
		} else if (r < 0) {
			why = modsig_advice(-r, modsig_locked_down(sysdir));
			log_err("cannot load %s: %s%s%s", name, strerror(-r),
				why ? ": " : "", why ? why : "");
			r = -1;
		} else {
			log_info("loaded the CAPI driver %s", name);
		}
	}
	k->module_unref(mod);
	return r;
}

int modload_capi(const char *sysdir, bool dry_run)
{
	struct kmod_api k;
	struct kmod_ctx *ctx;
	int r = -1;

	if (driver_present(sysdir))
		return 0;
	if (kmod_api_open(&k) < 0)
		return -1;
	ctx = k.new_ctx(NULL, NULL);
	if (!ctx) {
		log_err("cannot load the CAPI driver: libkmod failed to start");
	} else {
		r = load(&k, ctx, sysdir, dry_run);
		k.unref(ctx);
	}
	dlclose(k.dl);
	return r;
}
