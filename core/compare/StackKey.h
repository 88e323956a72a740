#pragma once
// Names a call stack so that the same code path gets the same name in two captures (their frame and
// stack ids differ): the text of its Python and user frames, internal frames (PyTorch, CPython, the
// C++ runtime, whose addresses vary between runs) left out. Cached per stack id of one capture.
#include "model/Capture.h"

#include <string>
#include <vector>

namespace vs {

class StackKeys {
  public:
    explicit StackKeys(const Capture& c) : c_(c), keys_(c.stacks.size()), done_(c.stacks.size(), false) {}
    // "fn\tfile\tline\n" per shown frame, innermost first.
    const std::string& key(StackId s);
    // The frames the key names, outermost first ("fn (file.py:12)"), for trees and flame graphs.
    std::vector<std::string> frames(StackId s) const;

  private:
    const Capture& c_;
    std::vector<std::string> keys_;
    std::vector<bool> done_;
};

} // namespace vs
