#pragma once
// Writes a whole Capture (typically read from a snapshot) as a .vscap file.
#include "VscapWriter.h"
#include "model/Capture.h"

#include <string>

namespace vs {

// Throws std::runtime_error when the file cannot be written.
void writeVscapFile(const Capture& capture, const std::string& path,
                    const vscap::Writer::Options& options = {});
// Encodes into memory (tests, fuzz seeds).
std::string encodeVscap(const Capture& capture, const vscap::Writer::Options& options = {});

} // namespace vs
