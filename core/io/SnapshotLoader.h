#pragma once
// Reads a PyTorch memory snapshot (`torch.cuda.memory._dump_snapshot`: a pickle, optionally gzip or
// zstd compressed) into a Capture. Tolerant of keys missing or added across PyTorch versions;
// anything that is not a snapshot is rejected with a LoadError naming the byte offset.
#include "LoadOptions.h"
#include "model/Capture.h"

#include <memory>
#include <string>

namespace vs {

std::unique_ptr<Capture> loadSnapshotFile(const std::string& path, const LoadOptions& options);
std::unique_ptr<Capture> loadSnapshotFile(const std::string& path);
std::unique_ptr<Capture> loadSnapshotBytes(std::span<const uint8_t> bytes, const LoadOptions& options);
std::unique_ptr<Capture> loadSnapshotBytes(std::span<const uint8_t> bytes);

} // namespace vs
