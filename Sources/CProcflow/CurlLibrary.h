// The part of libcurl's C interface procflow uses, declared here rather than taken from
// <curl/curl.h> so that building needs no libcurl development package. The values are
// libcurl's ABI (SONAME libcurl.so.4, unchanged since 2006): option and info numbers and
// result codes are never renumbered.

#ifndef CPROCFLOW_CURL_LIBRARY_H
#define CPROCFLOW_CURL_LIBRARY_H

#include "include/CurlTransfer.h"

typedef void CURL;
typedef void CURLM;
typedef int CURLcode;
typedef int CURLMcode;

/// struct CURLMsg.
typedef struct {
    int msg;
    CURL *easy_handle;
    union {
        void *whatever;
        CURLcode result;
    } data;
} curl_message;

enum {
    CURLMSG_DONE = 1,
    CURLM_OK = 0,
    CURLM_CALL_MULTI_PERFORM = -1,
};

/// CURLoption values: a type base (long 0, pointer 10000, function 20000, curl_off_t 30000)
/// plus the option's number.
enum {
    CURLOPT_WRITEDATA = 10001,
    CURLOPT_URL = 10002,
    CURLOPT_ERRORBUFFER = 10010,
    CURLOPT_WRITEFUNCTION = 20011,
    CURLOPT_POSTFIELDS = 10015,
    CURLOPT_USERAGENT = 10018,
    CURLOPT_HTTPHEADER = 10023,
    CURLOPT_HEADERDATA = 10029,
    CURLOPT_CUSTOMREQUEST = 10036,
    CURLOPT_NOBODY = 44,
    CURLOPT_FOLLOWLOCATION = 52,
    CURLOPT_MAXREDIRS = 68,
    CURLOPT_HEADERFUNCTION = 20079,
    CURLOPT_NOSIGNAL = 99,
    CURLOPT_ACCEPT_ENCODING = 10102,
    CURLOPT_POSTFIELDSIZE_LARGE = 30120,
    CURLOPT_TIMEOUT_MS = 155,
    CURLOPT_CONNECTTIMEOUT_MS = 156,
    CURLOPT_LOW_SPEED_LIMIT = 19,
    CURLOPT_LOW_SPEED_TIME = 20,
    CURLOPT_NETRC = 51,
    CURLOPT_UPLOAD = 46,
    CURLOPT_READFUNCTION = 20012,
    CURLOPT_READDATA = 10009,
    CURLOPT_INFILESIZE_LARGE = 30115,
    CURLOPT_PROTOCOLS = 181,
    CURLOPT_REDIR_PROTOCOLS = 182,
    CURLOPT_PROTOCOLS_STR = 10318,
    CURLOPT_REDIR_PROTOCOLS_STR = 10319,
};

enum {
    CURLINFO_RESPONSE_CODE = 0x200000 + 2,
    CURLINFO_OS_ERRNO = 0x200000 + 25,
    CURLPROTO_HTTP = 1 << 0,
    CURLPROTO_HTTPS = 1 << 1,
    CURL_ERROR_SIZE = 256,
    CURL_NETRC_OPTIONAL = 1,
    CURL_READFUNC_ABORT = 0x10000000,
};

/// CURLcode values procflow tells apart.
enum {
    CURLE_OK = 0,
    CURLE_UNSUPPORTED_PROTOCOL = 1,
    CURLE_URL_MALFORMAT = 3,
    CURLE_COULDNT_RESOLVE_PROXY = 5,
    CURLE_COULDNT_RESOLVE_HOST = 6,
    CURLE_COULDNT_CONNECT = 7,
    CURLE_WRITE_ERROR = 23,
    CURLE_READ_ERROR = 26,
    CURLE_OUT_OF_MEMORY = 27,
    CURLE_OPERATION_TIMEDOUT = 28,
    CURLE_SSL_CONNECT_ERROR = 35,
    CURLE_GOT_NOTHING = 52,
    CURLE_SSL_ENGINE_NOTFOUND = 53,
    CURLE_SSL_ENGINE_SETFAILED = 54,
    CURLE_SEND_ERROR = 55,
    CURLE_RECV_ERROR = 56,
    CURLE_SSL_CERTPROBLEM = 58,
    CURLE_SSL_CIPHER = 59,
    CURLE_PEER_FAILED_VERIFICATION = 60,
    CURLE_SSL_ENGINE_INITFAILED = 66,
    CURLE_SSL_CACERT_BADFILE = 77,
    CURLE_SSL_SHUTDOWN_FAILED = 80,
    CURLE_SSL_CRL_BADFILE = 82,
    CURLE_SSL_ISSUER_ERROR = 83,
    CURLE_SSL_PINNEDPUBKEYNOTMATCH = 90,
    CURLE_SSL_INVALIDCERTSTATUS = 91,
    CURLE_SSL_CLIENTCERT = 98,
};

struct procflow_curl {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *easy, int option, ...);
    CURLcode (*easy_getinfo)(CURL *easy, int info, ...);
    const char *(*easy_strerror)(CURLcode code);
    void (*easy_cleanup)(CURL *easy);
    void *(*slist_append)(void *list, const char *text);
    void (*slist_free_all)(void *list);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(CURLM *multi, CURL *easy);
    CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *easy);
    CURLMcode (*multi_perform)(CURLM *multi, int *running);
    CURLMcode (*multi_wait)(CURLM *multi, void *extra, unsigned count, int timeout_ms, int *ready);
    /// curl_multi_poll and curl_multi_wakeup (libcurl 7.68+), or NULL for both.
    CURLMcode (*multi_poll)(CURLM *multi, void *extra, unsigned count, int timeout_ms, int *ready);
    CURLMcode (*multi_wakeup)(CURLM *multi);
    curl_message *(*multi_info_read)(CURLM *multi, int *queued);
    CURLMcode (*multi_cleanup)(CURLM *multi);
};

#endif
