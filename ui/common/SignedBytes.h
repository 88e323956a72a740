#pragma once
// A difference of byte counts in the comparison views: its text ("+1.5 MiB", "−512 B", "0 B") and
// its colour (red: B holds more, blue: less).
#include "common/ByteAxisTicker.h"

#include <QColor>
#include <QString>

#include <cstdint>
#include <cstdlib>

namespace vs::ui {

inline QString formatSignedBytes(int64_t d) {
    return (d > 0   ? QStringLiteral("+")
            : d < 0 ? QStringLiteral("\u2212")
                    : QString()) +
           formatBytes(double(std::llabs(d)));
}

inline QColor deltaColour(int64_t d) {
    return d > 0 ? QColor(200, 50, 40) : QColor(40, 110, 200);
}

} // namespace vs::ui
