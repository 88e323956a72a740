#pragma once
// The CUPTI agent's stack table (writer thread): symbolizes each new return address once (deferred:
// never in the CUDA call), leaves out frames of CUDA, CUPTI, the agent and sanitizers, interns
// frames and stacks, and writes their String/Frame/Stack records (and one "module" Meta record per
// module: load address, build id, path) before the events that use them.
#include "NativeOp.h"
#include "Symbolizer.h"
#include "io/VscapWriter.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace vs::cupti {

class NativeStacks {
  public:
    explicit NativeStacks(vscap::Writer& writer) : writer_(writer) {}
    uint64_t stackOf(const NativeOp& op); // the stack id, its records written if new
    uint64_t string(const std::string& s);
    void meta(const std::string& key, const std::string& value);

  private:
    const std::vector<uint64_t>& framesOf(void* pc);
    uint64_t frameId(const NativeFrame& f);
    void describeModule(const NativeFrame& f);

    vscap::Writer& writer_;
    Symbolizer symbolizer_;
    std::unordered_map<std::string, uint64_t> strings_{{"", 0}};
    std::unordered_map<void*, std::vector<uint64_t>> frames_; // empty: inside CUDA or the agent, left out
    std::map<std::vector<uint64_t>, uint64_t> stacks_{{{}, 0}};
    std::set<std::string> modules_; // already described
    std::set<uint64_t> unnamed_;    // frames the symbolizer could not name
    uint64_t nextFrame_ = 0;
};

} // namespace vs::cupti
