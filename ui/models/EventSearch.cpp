#include "models/EventSearch.h"

#include "analysis/stacks/FrameFilter.h"

namespace vs::ui {

EventSearch::EventSearch(const CaptureAnalysis& a, size_t device, const QString& text)
    : a_(a), device_(device), text_(text.trimmed()) {
    bool ok = false;
    if (text_.startsWith(QLatin1String("0x"), Qt::CaseInsensitive)) {
        const uint64_t v = text_.mid(2).toULongLong(&ok, 16);
        if (ok) address_ = v;
    } else if (text_.startsWith(QLatin1Char('#'))) {
        const uint64_t v = text_.mid(1).toULongLong(&ok);
        if (ok) event_ = v;
    }
    for (int i = 0; i <= int(Action::Unknown); ++i) {
        const auto name = actionName(static_cast<Action>(i));
        actionMatch_.push_back(
            !text_.isEmpty() &&
            QString::fromLatin1(name.data(), qsizetype(name.size())).contains(text_, Qt::CaseInsensitive));
    }
    stackMatch_.assign(a.capture().stacks.size(), -1);
}

bool EventSearch::siteMatches(StackId s) const {
    int8_t& known = stackMatch_[s.value];
    if (known >= 0) return known;
    const Capture& c = a_.capture();
    const uint32_t at = firstUserFrame(c, s);
    known = 0;
    if (at != kNoFrame) {
        const Frame& f = c.frames[c.stacks.frames(s)[at]];
        const auto name = c.strings.text(f.name), file = c.strings.text(f.filename);
        const QString site = QString::fromUtf8(name.data(), qsizetype(name.size())) + QLatin1Char(' ') +
                             QString::fromUtf8(file.data(), qsizetype(file.size())) + QLatin1Char(':') +
                             QString::number(f.line);
        known = site.contains(text_, Qt::CaseInsensitive);
    }
    return known;
}

bool EventSearch::matches(size_t e) const {
    const DeviceTrace& t = a_.trace(device_);
    if (event_) return e == *event_;
    if (address_) return t.addr[e] == *address_;
    if (text_.isEmpty()) return false;
    const size_t action = size_t(t.action[e]);
    return (action < actionMatch_.size() && actionMatch_[action]) || siteMatches(t.stack[e]);
}

int EventSearch::next(int from, bool forward) const {
    const int n = int(a_.trace(device_).eventCount());
    if (n == 0) return -1;
    for (int k = 1; k <= n; ++k) {
        const int e = ((from + (forward ? k : -k)) % n + n) % n;
        if (matches(size_t(e))) return e;
    }
    return -1;
}

} // namespace vs::ui
