#ifndef PROCFLOW_SHA256_BLOCKS_H
#define PROCFLOW_SHA256_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

/// Runs SHA-256's compression function over `blocks` 64-byte blocks at `data`, updating the
/// eight words of `state` (FIPS 180-4's H0...H7). Uses the CPU's SHA extensions where it has
/// them (x86-64 `sha_ni`), portable C otherwise.
void procflow_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);

/// 1 when procflow_sha256_blocks runs on the CPU's SHA extensions, 0 when on portable C.
int procflow_sha256_uses_extensions(void);

/// The portable C compression, whatever the CPU has (for tests that compare the two).
void procflow_sha256_blocks_portable(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
