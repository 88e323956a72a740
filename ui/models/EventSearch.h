#pragma once
// Find in the event list: the events whose action, allocation site (function, file or line of the
// innermost user frame) or exact address ("0x7f..") matches a text, or event "#N". Sites are
// matched once per stack, not per event, so a search over millions of events is one pass over the
// stack column.
#include "analysis/CaptureAnalysis.h"

#include <QString>

#include <optional>
#include <vector>

namespace vs::ui {

class EventSearch {
  public:
    EventSearch(const CaptureAnalysis& a, size_t device, const QString& text);
    bool matches(size_t event) const;
    // The next matching event after `from` (before it when !forward), wrapping around; -1: none.
    int next(int from, bool forward) const;

  private:
    bool siteMatches(StackId s) const;

    const CaptureAnalysis& a_;
    size_t device_;
    QString text_;
    std::optional<uint64_t> address_, event_;
    std::vector<bool> actionMatch_;
    mutable std::vector<int8_t> stackMatch_; // -1 not known yet, else 0/1
};

} // namespace vs::ui
