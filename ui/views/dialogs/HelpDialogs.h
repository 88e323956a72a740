#pragma once
// Help > vramscope Help (F1): how to hunt a leak and what each view shows, from resources/help.html;
// Help > About: the version, the icon, and the libraries vramscope uses with their licences.
#include <QString>

class QWidget;

namespace vs::ui {

void showHelp(QWidget* parent);
void showAbout(QWidget* parent);
QString aboutText(); // the About dialog's HTML (tests)

} // namespace vs::ui
