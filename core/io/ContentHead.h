#pragma once
// The first bytes of a file's content, decompressed when the file is gzip or zstd: enough to tell
// the formats apart by what they hold (a pickle, a JSON trace) without reading the whole file.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vs {

// Up to `n` bytes; fewer when the content is shorter, empty when the file cannot be read.
std::vector<uint8_t> contentHead(const std::string& path, size_t n = 256);
// The first byte that is not JSON whitespace opens an object or an array.
bool looksLikeJson(std::span<const uint8_t> head);

} // namespace vs
