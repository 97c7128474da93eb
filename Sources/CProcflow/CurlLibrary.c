// Loads libcurl at run time. procflow has no link-time dependency on it, so that building
// needs no libcurl headers, the binary runs where libcurl is missing (HTTP steps then fail
// with a clear error), and commands that make no request never pay for loading it and the
// ~35 libraries it pulls in.

#define _GNU_SOURCE
#include "CurlLibrary.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { CURL_GLOBAL_DEFAULT = 3 };

static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

/// Resolves `name` in `library` into `*slot`; on failure writes why into `error`.
static int resolve(void *library, const char *file, const char *name, void **slot,
                   int required, char *error, size_t error_size) {
    *slot = dlsym(library, name);
    if (*slot == NULL && required) {
        snprintf(error, error_size, "%s has no function %s", file, name);
        return -1;
    }
    return 0;
}

#define RESOLVE(field, symbol, required)                                                   \
    if (resolve(library, file, symbol, (void **)&curl->field, required, error, error_size)) \
        goto failed;

static procflow_curl *resolve_all(void *library, const char *file, char *error,
                                  size_t error_size) {
    procflow_curl *curl = calloc(1, sizeof *curl);
    if (curl == NULL) {
        snprintf(error, error_size, "out of memory while loading %s", file);
        return NULL;
    }
    RESOLVE(global_init, "curl_global_init", 1)
    RESOLVE(easy_init, "curl_easy_init", 1)
    RESOLVE(easy_setopt, "curl_easy_setopt", 1)
    RESOLVE(easy_getinfo, "curl_easy_getinfo", 1)
    RESOLVE(easy_strerror, "curl_easy_strerror", 1)
    RESOLVE(easy_cleanup, "curl_easy_cleanup", 1)
    RESOLVE(slist_append, "curl_slist_append", 1)
    RESOLVE(slist_free_all, "curl_slist_free_all", 1)
    RESOLVE(multi_init, "curl_multi_init", 1)
    RESOLVE(multi_add_handle, "curl_multi_add_handle", 1)
    RESOLVE(multi_remove_handle, "curl_multi_remove_handle", 1)
    RESOLVE(multi_perform, "curl_multi_perform", 1)
    RESOLVE(multi_wait, "curl_multi_wait", 1)
    RESOLVE(multi_poll, "curl_multi_poll", 0)
    RESOLVE(multi_wakeup, "curl_multi_wakeup", 0)
    RESOLVE(multi_info_read, "curl_multi_info_read", 1)
    RESOLVE(multi_cleanup, "curl_multi_cleanup", 1)
    if (curl->global_init(CURL_GLOBAL_DEFAULT) != 0) {
        snprintf(error, error_size, "%s failed to initialise", file);
        goto failed;
    }
    // Waking a poll needs both; without them a transfer polls for cancellation instead.
    if (curl->multi_poll == NULL || curl->multi_wakeup == NULL) {
        curl->multi_poll = NULL;
        curl->multi_wakeup = NULL;
    }
    return curl;
failed:
    free(curl);
    return NULL;
}

const procflow_curl *procflow_curl_open(const char *const *names, size_t count, char *error,
                                        size_t error_size) {
    snprintf(error, error_size, "no library name given");
    pthread_mutex_lock(&open_lock);
    procflow_curl *curl = NULL;
    for (size_t index = 0; index < count; index++) {
        void *library = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) {
            // The first name's reason is the one worth reading: it is the usual library.
            if (index == 0) snprintf(error, error_size, "%s", dlerror());
            continue;
        }
        curl = resolve_all(library, names[index], error, error_size);
        if (curl != NULL) break;
        dlclose(library);
    }
    pthread_mutex_unlock(&open_lock);
    return curl;
}
