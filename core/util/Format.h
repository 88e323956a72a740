#pragma once
// Small text helpers shared by the CLI, the summary and the UI: byte sizes and hex addresses.
#include <cstdint>
#include <string>

namespace vs {

std::string hexAddress(uint64_t v);           // 0x7f3a00000000
std::string humanBytes(int64_t bytes);        // 1.50 GiB, 512 B
std::string humanBytesPrecise(int64_t bytes); // 1.50 GiB (1610612736 B)
// A size as a file gave it, up to 2^64 - 1 (error messages: a size past 2^63 is not negative).
std::string humanSize(uint64_t bytes);     // 2.00 TiB (2199023255552 B), 16.00 EiB (18446744073709551615 B)
std::string fixed(double v, int decimals); // fixed(1.23456, 3) == "1.235"

} // namespace vs
