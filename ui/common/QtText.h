#pragma once
// A capture's interned text as a QString (UTF-8 from the file).
#include "model/Capture.h"

#include <QString>

namespace vs::ui {

inline QString qtext(const Capture& c, StringId id) {
    const auto s = c.strings.text(id);
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

} // namespace vs::ui
