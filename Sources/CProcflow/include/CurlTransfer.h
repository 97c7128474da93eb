#ifndef CPROCFLOW_CURL_TRANSFER_H
#define CPROCFLOW_CURL_TRANSFER_H

#include <stddef.h>

/// libcurl's entry points, resolved with dlsym from the library dlopen found. Immutable once
/// returned and never freed: the library stays loaded for the life of the process.
typedef struct procflow_curl procflow_curl;

/// One HTTP exchange that another thread may cancel while it runs.
typedef struct procflow_http_transfer procflow_http_transfer;

/// What an HTTP request failed on, sorted from libcurl's many result codes.
typedef enum procflow_http_failure {
    PROCFLOW_HTTP_SUCCEEDED = 0,
    /// The host refused the connection.
    PROCFLOW_HTTP_REFUSED,
    /// The host could not be reached (no route, no network, no answer to connect).
    PROCFLOW_HTTP_UNREACHABLE,
    /// The host name (or the proxy's) could not be resolved.
    PROCFLOW_HTTP_UNRESOLVED,
    /// No whole answer within the request's timeout.
    PROCFLOW_HTTP_TIMED_OUT,
    /// The TLS handshake or the certificate check failed.
    PROCFLOW_HTTP_TLS,
    /// procflow_http_transfer_cancel stopped it.
    PROCFLOW_HTTP_CANCELLED,
    /// The connection broke, or the server hung up without answering.
    PROCFLOW_HTTP_LOST,
    /// The URL is malformed or its scheme is not http or https.
    PROCFLOW_HTTP_UNSUPPORTED_URL,
    /// The answer's body was larger than the request's `output_limit`.
    PROCFLOW_HTTP_TOO_LARGE,
    /// Reading the body to send, or writing the answer's, failed.
    PROCFLOW_HTTP_LOCAL_IO,
    /// Anything else; the detail says what.
    PROCFLOW_HTTP_OTHER,
} procflow_http_failure;

/// A request. Every pointer must stay valid until procflow_http_transfer_perform returns.
typedef struct procflow_http_request {
    const char *method;
    const char *url;
    /// "Name: value" lines.
    const char *const *headers;
    size_t header_count;
    /// Whether there is a body: `body` may be NULL when it is empty.
    int has_body;
    const unsigned char *body;
    size_t body_length;
    /// The whole exchange's limit, in milliseconds (at least 1).
    long timeout_ms;
    /// When not negative: the body is read from this descriptor, `body_fd_length` bytes
    /// (`body` is ignored), as a streamed upload.
    int body_fd;
    long long body_fd_length;
    /// When not negative: the response body is written to this descriptor as it comes, not kept
    /// in memory; more than `output_limit` bytes fail the transfer.
    int output_fd;
    long long output_limit;
    /// How long connecting may take, in milliseconds; 0 for libcurl's default.
    long connect_timeout_ms;
    /// Give up when fewer than `low_speed_bytes` a second pass for `low_speed_seconds`
    /// seconds (0: never): a stalled server, whatever the size.
    long low_speed_bytes;
    long low_speed_seconds;
    /// Whether to take credentials from ~/.netrc for a host the URL gives none for.
    int use_netrc;
    /// Whether to follow redirects.
    int follow_redirects;
} procflow_http_request;

/// An answer, or why there is none. Free it with procflow_http_response_release.
typedef struct procflow_http_response {
    procflow_http_failure failure;
    /// libcurl's description of the failure, one line; empty on success.
    char detail[256];
    long status;
    unsigned char *body;
    size_t body_length;
    /// The header lines of the final response (after redirects), as received.
    char *headers;
    size_t headers_length;
    /// Bytes sent and received in bodies.
    long long uploaded;
    long long downloaded;
} procflow_http_response;

/// Loads the first of `names` that dlopen can open and resolves the libcurl functions
/// procflow uses. Returns NULL, with a one-line reason in `error`, if none loads or the one
/// that loads lacks a function. Thread-safe; a library found once is reused.
const procflow_curl *procflow_curl_open(
    const char *const *names, size_t count, char *error, size_t error_size);

/// A transfer ready to perform one request; NULL if libcurl cannot allocate one.
procflow_http_transfer *procflow_http_transfer_create(const procflow_curl *curl);

/// Sends `request` and waits for the whole answer, or until the timeout or a cancellation.
void procflow_http_transfer_perform(
    procflow_http_transfer *transfer, const procflow_http_request *request,
    procflow_http_response *response);

/// Makes a running or later perform end promptly with PROCFLOW_HTTP_CANCELLED. Safe to call
/// from any thread, any number of times, until procflow_http_transfer_destroy.
void procflow_http_transfer_cancel(procflow_http_transfer *transfer);

/// Frees a transfer that no thread performs or cancels any more.
void procflow_http_transfer_destroy(procflow_http_transfer *transfer);

/// Frees the buffers of a response.
void procflow_http_response_release(procflow_http_response *response);

#endif
