// One HTTP exchange through libcurl's multi interface, so that another thread can cancel it:
// the performing thread sleeps in curl_multi_poll, which curl_multi_wakeup interrupts at once.
// With a libcurl older than 7.68 (no wakeup) it sleeps in curl_multi_wait for at most 100 ms
// between checks of the cancellation flag.

#define _GNU_SOURCE
#include "CurlLibrary.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

struct procflow_http_transfer {
    const procflow_curl *curl;
    CURLM *multi;
    atomic_bool cancelled;
};

/// A growing byte buffer that libcurl's write callbacks append to.
typedef struct {
    unsigned char *bytes;
    size_t length;
    size_t capacity;
} buffer;

static size_t append(const void *data, size_t size, size_t count, buffer *into) {
    size_t length = size * count;
    if (into->length + length + 1 > into->capacity) {
        size_t capacity = into->capacity ? into->capacity : 4096;
        while (capacity < into->length + length + 1) capacity *= 2;
        unsigned char *grown = realloc(into->bytes, capacity);
        if (grown == NULL) return 0;  // libcurl then fails with CURLE_WRITE_ERROR
        into->bytes = grown;
        into->capacity = capacity;
    }
    memcpy(into->bytes + into->length, data, length);
    into->length += length;
    into->bytes[into->length] = 0;
    return length;
}

/// Where an answer's body goes: memory, or a descriptor (with a limit).
typedef struct {
    buffer memory;
    int fd;
    long long limit;
    long long written;
    int exceeded;
    int failed;
} body_sink;

static size_t write_body(char *data, size_t size, size_t count, void *context) {
    body_sink *sink = context;
    size_t length = size * count;
    if (sink->fd < 0) return append(data, size, count, &sink->memory);
    if (sink->written + (long long)length > sink->limit) {
        sink->exceeded = 1;
        return 0;
    }
    size_t done = 0;
    while (done < length) {
        ssize_t wrote = write(sink->fd, data + done, length - done);
        if (wrote < 0) {
            if (errno == EINTR) continue;
            sink->failed = 1;
            return 0;
        }
        done += (size_t)wrote;
    }
    sink->written += (long long)length;
    return length;
}

/// A streamed upload's source.
typedef struct {
    int fd;
    int failed;
} body_source;

static size_t read_body(char *data, size_t size, size_t count, void *context) {
    body_source *source = context;
    for (;;) {
        ssize_t got = read(source->fd, data, size * count);
        if (got >= 0) return (size_t)got;
        if (errno == EINTR) continue;
        source->failed = 1;
        return CURL_READFUNC_ABORT;
    }
}

/// Keeps only the last response's header lines: each status line ("HTTP/1.1 301 …", a
/// "100 Continue", a proxy's CONNECT answer) starts the block again.
static size_t write_header(char *data, size_t size, size_t count, void *headers) {
    if (size * count >= 5 && strncmp(data, "HTTP/", 5) == 0) ((buffer *)headers)->length = 0;
    return append(data, size, count, headers);
}

procflow_http_transfer *procflow_http_transfer_create(const procflow_curl *curl) {
    procflow_http_transfer *transfer = calloc(1, sizeof *transfer);
    if (transfer == NULL) return NULL;
    transfer->curl = curl;
    transfer->multi = curl->multi_init();
    if (transfer->multi == NULL) {
        free(transfer);
        return NULL;
    }
    atomic_init(&transfer->cancelled, false);
    return transfer;
}

void procflow_http_transfer_cancel(procflow_http_transfer *transfer) {
    atomic_store(&transfer->cancelled, true);
    if (transfer->curl->multi_wakeup != NULL) transfer->curl->multi_wakeup(transfer->multi);
}

void procflow_http_transfer_destroy(procflow_http_transfer *transfer) {
    transfer->curl->multi_cleanup(transfer->multi);
    free(transfer);
}

void procflow_http_response_release(procflow_http_response *response) {
    free(response->body);
    free(response->headers);
    response->body = NULL;
    response->headers = NULL;
}

static int has_header(const procflow_http_request *request, const char *name) {
    size_t length = strlen(name);
    for (size_t index = 0; index < request->header_count; index++) {
        const char *line = request->headers[index];
        if (strncasecmp(line, name, length) == 0 && line[length] == ':') return 1;
    }
    return 0;
}

/// The request's header list; NULL when it is empty or memory ran out.
static void *header_list(const procflow_curl *curl, const procflow_http_request *request) {
    void *list = NULL;
    for (size_t index = 0; index < request->header_count; index++) {
        list = curl->slist_append(list, request->headers[index]);
    }
    // libcurl would send "Expect: 100-continue" with a large body and wait up to a second
    // for a server that may never answer it; an empty value removes the header.
    if (request->has_body && !has_header(request, "Expect")) {
        list = curl->slist_append(list, "Expect:");
    }
    return list;
}

/// The method and body: HEAD reads no body; a body is sent as given (or streamed from a
/// descriptor), under any method.
static void set_method(const procflow_curl *curl, CURL *easy, const procflow_http_request *request,
                       body_source *source) {
    const char *method = request->method;
    int is_post = strcmp(method, "POST") == 0, is_head = strcmp(method, "HEAD") == 0;
    if (is_head) {
        curl->easy_setopt(easy, CURLOPT_NOBODY, 1L);
    } else if (request->body_fd >= 0) {
        curl->easy_setopt(easy, CURLOPT_UPLOAD, 1L);
        curl->easy_setopt(easy, CURLOPT_READFUNCTION, read_body);
        curl->easy_setopt(easy, CURLOPT_READDATA, source);
        curl->easy_setopt(easy, CURLOPT_INFILESIZE_LARGE, (int64_t)request->body_fd_length);
    } else if (request->has_body || is_post) {
        const char *body = request->body != NULL ? (const char *)request->body : "";
        curl->easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (int64_t)request->body_length);
        curl->easy_setopt(easy, CURLOPT_POSTFIELDS, body);
    }
    int is_plain_get = strcmp(method, "GET") == 0 && !request->has_body;
    int is_streamed_put = strcmp(method, "PUT") == 0 && request->body_fd >= 0;
    if (!is_post && !is_head && !is_plain_get && !is_streamed_put) {
        curl->easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method);
    }
}

/// Only http and https, also after redirects (libcurl speaks many more protocols).
static void limit_protocols(const procflow_curl *curl, CURL *easy) {
    if (curl->easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK) {
        long protocols = CURLPROTO_HTTP | CURLPROTO_HTTPS;  // libcurl before 7.85
        curl->easy_setopt(easy, CURLOPT_PROTOCOLS, protocols);
        curl->easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS, protocols);
    } else {
        curl->easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    }
}

/// Limits of time and speed, credentials from ~/.netrc, redirects.
static void set_limits(const procflow_curl *curl, CURL *easy, const procflow_http_request *request) {
    if (request->timeout_ms > 0) curl->easy_setopt(easy, CURLOPT_TIMEOUT_MS, request->timeout_ms);
    if (request->connect_timeout_ms > 0) {
        curl->easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, request->connect_timeout_ms);
    }
    if (request->low_speed_seconds > 0) {
        curl->easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, request->low_speed_bytes);
        curl->easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, request->low_speed_seconds);
    }
    if (request->use_netrc) curl->easy_setopt(easy, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
    curl->easy_setopt(easy, CURLOPT_FOLLOWLOCATION, request->follow_redirects ? 1L : 0L);
    curl->easy_setopt(easy, CURLOPT_MAXREDIRS, 20L);
}

static void configure(const procflow_curl *curl, CURL *easy, const procflow_http_request *request,
                      void *headers, body_sink *body, body_source *source, buffer *header_lines,
                      char *error) {
    curl->easy_setopt(easy, CURLOPT_URL, request->url);
    curl->easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl->easy_setopt(easy, CURLOPT_ERRORBUFFER, error);
    set_limits(curl, easy, request);
    curl->easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
    curl->easy_setopt(easy, CURLOPT_USERAGENT, "procflow");
    curl->easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl->easy_setopt(easy, CURLOPT_WRITEFUNCTION, write_body);
    curl->easy_setopt(easy, CURLOPT_WRITEDATA, body);
    curl->easy_setopt(easy, CURLOPT_HEADERFUNCTION, write_header);
    curl->easy_setopt(easy, CURLOPT_HEADERDATA, header_lines);
    limit_protocols(curl, easy);
    set_method(curl, easy, request, source);
}

/// Drives the transfer until it is done or cancelled; returns its CURLcode, or -1 when
/// cancelled.
static CURLcode run(procflow_http_transfer *transfer, CURL *easy) {
    const procflow_curl *curl = transfer->curl;
    int running = 1;
    while (!atomic_load(&transfer->cancelled)) {
        CURLMcode code = curl->multi_perform(transfer->multi, &running);
        if (code != CURLM_OK && code != CURLM_CALL_MULTI_PERFORM) break;
        if (running == 0) break;
        if (curl->multi_poll != NULL) {
            curl->multi_poll(transfer->multi, NULL, 0, 1000, NULL);
        } else {
            curl->multi_wait(transfer->multi, NULL, 0, 100, NULL);
        }
    }
    if (atomic_load(&transfer->cancelled)) return -1;
    int queued = 0;
    curl_message *message;
    while ((message = curl->multi_info_read(transfer->multi, &queued)) != NULL) {
        if (message->msg == CURLMSG_DONE && message->easy_handle == easy) return message->data.result;
    }
    return CURLE_RECV_ERROR;
}

/// `os_error` is the errno of the last failed system call, which tells a refusal apart.
static procflow_http_failure classify(CURLcode code, long os_error) {
    switch (code) {
    case CURLE_OK: return PROCFLOW_HTTP_SUCCEEDED;
    case -1: return PROCFLOW_HTTP_CANCELLED;
    case CURLE_COULDNT_CONNECT:
        return os_error == ECONNREFUSED ? PROCFLOW_HTTP_REFUSED : PROCFLOW_HTTP_UNREACHABLE;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return PROCFLOW_HTTP_UNRESOLVED;
    case CURLE_OPERATION_TIMEDOUT: return PROCFLOW_HTTP_TIMED_OUT;
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR: return PROCFLOW_HTTP_LOST;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT: return PROCFLOW_HTTP_UNSUPPORTED_URL;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT: return PROCFLOW_HTTP_TLS;
    default: return PROCFLOW_HTTP_OTHER;
    }
}

static void describe(const procflow_curl *curl, CURL *easy, CURLcode code, const char *error,
                     procflow_http_response *response) {
    long os_error = 0;
    curl->easy_getinfo(easy, CURLINFO_OS_ERRNO, &os_error);
    response->failure = classify(code, os_error);
    if (response->failure == PROCFLOW_HTTP_SUCCEEDED || response->failure == PROCFLOW_HTTP_CANCELLED) {
        return;
    }
    const char *text = error[0] ? error : curl->easy_strerror(code);
    snprintf(response->detail, sizeof response->detail, "%s", text);
    for (char *c = response->detail; *c; c++) {
        if (*c == '\n' || *c == '\r') *c = ' ';
    }
}

void procflow_http_transfer_perform(procflow_http_transfer *transfer,
                                    const procflow_http_request *request,
                                    procflow_http_response *response) {
    const procflow_curl *curl = transfer->curl;
    memset(response, 0, sizeof *response);
    CURL *easy = curl->easy_init();
    if (easy == NULL) {
        response->failure = PROCFLOW_HTTP_OTHER;
        snprintf(response->detail, sizeof response->detail, "libcurl could not start a transfer");
        return;
    }
    char error[CURL_ERROR_SIZE] = "";
    body_sink body = {.fd = request->output_fd, .limit = request->output_limit};
    body_source source = {.fd = request->body_fd};
    buffer header_lines = {0};
    void *headers = header_list(curl, request);
    configure(curl, easy, request, headers, &body, &source, &header_lines, error);
    CURLcode code = CURLE_OUT_OF_MEMORY;
    if (curl->multi_add_handle(transfer->multi, easy) == CURLM_OK) code = run(transfer, easy);
    curl->easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &response->status);
    describe(curl, easy, code, error, response);
    if (body.exceeded) {
        response->failure = PROCFLOW_HTTP_TOO_LARGE;
        snprintf(response->detail, sizeof response->detail, "the answer was larger than expected");
    } else if (body.failed || source.failed) {
        response->failure = PROCFLOW_HTTP_LOCAL_IO;
        snprintf(response->detail, sizeof response->detail, "%s", strerror(errno));
    }
    response->uploaded = request->body_fd >= 0 ? request->body_fd_length : (long long)request->body_length;
    response->downloaded = request->output_fd >= 0 ? body.written : (long long)body.memory.length;
    curl->multi_remove_handle(transfer->multi, easy);
    curl->easy_cleanup(easy);
    curl->slist_free_all(headers);
    response->body = body.memory.bytes;
    response->body_length = body.memory.length;
    response->headers = (char *)header_lines.bytes;
    response->headers_length = header_lines.length;
}
