#pragma once
// Timeline colours chosen for the current palette, readable in light and dark themes.
#include <QColor>
#include <QPalette>

namespace vs::ui {

struct TimelineColours {
    QColor background, text, axis, grid, allocated, reserved, cached, active, cursor, selection, highlight,
        oom, annotation, legendBackground;

    static TimelineColours forPalette(const QPalette& p) {
        const bool dark = p.color(QPalette::Window).lightness() < 128;
        TimelineColours c;
        c.background = p.color(QPalette::Base);
        c.text = p.color(QPalette::WindowText);
        c.axis = dark ? QColor(150, 150, 150) : QColor(90, 90, 90);
        c.grid = dark ? QColor(70, 70, 70) : QColor(215, 215, 215);
        c.allocated = dark ? QColor(94, 168, 255) : QColor(31, 102, 196);
        c.reserved = dark ? QColor(255, 170, 70) : QColor(214, 110, 0);
        c.cached = c.reserved;
        c.cached.setAlpha(dark ? 60 : 45);
        c.active = dark ? QColor(120, 210, 120) : QColor(40, 140, 60);
        c.cursor = dark ? QColor(220, 220, 220) : QColor(60, 60, 60);
        c.selection = dark ? QColor(200, 120, 255) : QColor(130, 60, 200);
        c.highlight = dark ? QColor(255, 230, 80) : QColor(200, 160, 0);
        c.oom = QColor(220, 40, 40);
        c.annotation = dark ? QColor(160, 160, 160) : QColor(120, 120, 120);
        c.legendBackground = c.background;
        c.legendBackground.setAlpha(220);
        return c;
    }
};

} // namespace vs::ui
