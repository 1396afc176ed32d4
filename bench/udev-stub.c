// SPDX-License-Identifier: MIT
/*
 * Only for the static mbbench that runs inside the test VM: Debian ships
 * libhwloc.a but no libudev.a. hwloc uses udev solely to name block and
 * network devices, and copes with udev_new() failing, so these stubs make
 * it skip that and keep everything CPU-related.
 */
#include <stddef.h>

struct udev;
struct udev_device;

struct udev *udev_new(void);
struct udev *udev_unref(struct udev *u);
struct udev_device *udev_device_new_from_subsystem_sysname(struct udev *u,
							     const char *s,
							     const char *n);
const char *udev_device_get_property_value(struct udev_device *d, const char *k);
struct udev_device *udev_device_unref(struct udev_device *d);

struct udev *udev_new(void) { return NULL; }
struct udev *udev_unref(struct udev *u) { (void)u; return NULL; }
struct udev_device *udev_device_new_from_subsystem_sysname(struct udev *u,
							     const char *s,
							     const char *n)
{
	(void)u;
	(void)s;
	(void)n;
	return NULL;
}
const char *udev_device_get_property_value(struct udev_device *d, const char *k)
{
	(void)d;
	(void)k;
	return NULL;
}
struct udev_device *udev_device_unref(struct udev_device *d) { (void)d; return NULL; }
