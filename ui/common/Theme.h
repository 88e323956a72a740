#pragma once
// Light and dark palettes. System follows the desktop's preference: VRAMSCOPE_THEME=light|dark,
// else GNOME's color-scheme setting (gsettings), else a GTK_THEME ending in ":dark"/"-dark", else
// the platform's own palette (KDE and others hand Qt their colours). Chosen in View > Theme and
// remembered.
#include <QPalette>

namespace vs::ui {

enum class Theme { System, Light, Dark };

bool desktopPrefersDark();
QPalette darkPalette();
// Sets the application's style and palette; widgets see a PaletteChange and redraw their colours.
void applyTheme(Theme theme);
Theme savedTheme(); // View > Theme's choice, System at first
void saveTheme(Theme theme);

} // namespace vs::ui
