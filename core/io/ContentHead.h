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
std::vector<uint8_t> contentHead(std::span<const uint8_t> bytes, size_t n = 256); // a file in memory
// The first byte that is not JSON whitespace opens an object or an array (after a UTF-8 byte-order
// mark, which Windows tools write), or the text is UTF-16 (a BOM, or a NUL byte beside the first
// ASCII character): the JSON reader then refuses it by name rather than a pickle reader by opcode.
bool looksLikeJson(std::span<const uint8_t> head);
// The bytes of a UTF-8 byte-order mark at the start (3) or 0.
size_t utf8BomLength(std::span<const uint8_t> head);
bool looksLikeUtf16(std::span<const uint8_t> head);

} // namespace vs
