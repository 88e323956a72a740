#pragma once
// Opens any capture vramscope reads, choosing the reader by the file's first bytes, not its name:
// .vscap recordings, torch.profiler traces (JSON: the content opens with '{' or '['; plain or gzip)
// and PyTorch snapshot pickles (plain, gzip or zstd).
#include "LoadOptions.h"
#include "model/Capture.h"

#include <memory>
#include <span>
#include <string>

namespace vs {

std::unique_ptr<Capture> loadCaptureFile(const std::string& path, const LoadOptions& options);
std::unique_ptr<Capture> loadCaptureBytes(std::span<const uint8_t> bytes, const LoadOptions& options);

} // namespace vs
