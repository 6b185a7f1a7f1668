#include "CGioShim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static PlumbGio table;
static const PlumbGio *loaded;
static char failure[512];

static void load(void) {
  // RTLD_GLOBAL: as if linked, so a GStreamer plugin that links libgio finds the same copy.
  void *gio = dlopen("libgio-2.0.so.0", RTLD_NOW | RTLD_GLOBAL);
  if (!gio) {
    snprintf(failure, sizeof failure, "cannot load GIO for D-Bus: %s", dlerror());
    return;
  }
#define PLUMB_GIO_RESOLVE(name)                                                             \
  if (!(*(void **)&table.name = dlsym(gio, "g_" #name))) {                                  \
    snprintf(failure, sizeof failure, "libgio-2.0.so.0 has no g_%s: %s", #name, dlerror()); \
    return;                                                                                 \
  }
  PLUMB_GIO_FUNCTIONS(PLUMB_GIO_RESOLVE)
#undef PLUMB_GIO_RESOLVE
  // Published only when whole.
  __atomic_store_n(&loaded, &table, __ATOMIC_RELEASE);
}

const PlumbGio *plumb_gio_load(const char **error) {
  pthread_once(&once, load);
  const PlumbGio *gio = __atomic_load_n(&loaded, __ATOMIC_ACQUIRE);
  if (!gio) *error = failure;
  return gio;
}

const PlumbGio *plumb_gio_loaded(void) {
  // Without loading: a caller that finds nothing has no D-Bus object to ask about.
  return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE);
}
