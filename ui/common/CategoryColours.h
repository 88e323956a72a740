#pragma once
// One colour per memory category (docs/categories.md), the same in the Composition tab and the block
// map: what lasts (parameters, optimizer state) in cool colours, what comes and goes in warm ones.
#include "analysis/categories/Categories.h"

#include <QColor>

namespace vs::ui {

inline QColor categoryColour(Category c) {
    static const QColor colours[kCategoryCount] = {QColor(0x4e79a7), QColor(0xe15759), QColor(0xf28e2b),
                                                   QColor(0x76b7b2), QColor(0x59a14f), QColor(0xedc948),
                                                   QColor(0xbab0ac)};
    return colours[static_cast<size_t>(c)];
}

} // namespace vs::ui
