#include "common/Theme.h"

#include <QApplication>
#include <QProcess>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace vs::ui {

namespace {
QPalette& platformPalette() { // the palette Qt started with, for System and Light on a light desktop
    static QPalette initial = QApplication::palette();
    return initial;
}

// GNOME 42+: org.gnome.desktop.interface color-scheme 'prefer-dark'. Bounded: a missing or hung
// gsettings must not delay the start by more than a moment.
bool gnomePrefersDark() {
    QProcess p;
    p.start(QStringLiteral("gsettings"),
            {QStringLiteral("get"), QStringLiteral("org.gnome.desktop.interface"),
             QStringLiteral("color-scheme")});
    if (!p.waitForFinished(300)) {
        p.kill();
        p.waitForFinished(100);
        return false;
    }
    return p.exitCode() == 0 && p.readAllStandardOutput().contains("prefer-dark");
}
} // namespace

bool desktopPrefersDark() {
    const QString forced = qEnvironmentVariable("VRAMSCOPE_THEME").toLower();
    if (forced == QLatin1String("dark")) return true;
    if (forced == QLatin1String("light")) return false;
    const QString gtk = qEnvironmentVariable("GTK_THEME").toLower();
    if (gtk.endsWith(QLatin1String(":dark")) || gtk.endsWith(QLatin1String("-dark"))) return true;
    if (platformPalette().color(QPalette::Window).lightness() < 128)
        return true; // the platform is dark already
    return gnomePrefersDark();
}

QPalette darkPalette() {
    QPalette p;
    const QColor window(45, 45, 48), base(30, 30, 32), text(225, 225, 225), disabled(125, 125, 125);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(38, 38, 41));
    p.setColor(QPalette::ToolTipBase, QColor(55, 55, 58));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(140, 140, 140));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(255, 90, 90));
    p.setColor(QPalette::Light, QColor(70, 70, 74));
    p.setColor(QPalette::Midlight, QColor(60, 60, 64));
    p.setColor(QPalette::Mid, QColor(80, 80, 84));
    p.setColor(QPalette::Dark, QColor(20, 20, 22));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, QColor(50, 110, 190));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(110, 170, 255));
    p.setColor(QPalette::LinkVisited, QColor(170, 140, 255));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

void applyTheme(Theme theme) {
    platformPalette(); // remember the platform's palette before the first change
    const bool dark = theme == Theme::Dark || (theme == Theme::System && desktopPrefersDark());
    const bool platformDark = platformPalette().color(QPalette::Window).lightness() < 128;
    if (dark && !platformDark) {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion"))); // draws with the palette
        QApplication::setPalette(darkPalette());
    } else if (!dark && platformDark) {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(QApplication::style()->standardPalette());
    } else {
        QApplication::setPalette(platformPalette());
    }
}

Theme savedTheme() {
    return static_cast<Theme>(std::clamp(QSettings().value(QStringLiteral("theme"), 0).toInt(), 0, 2));
}

void saveTheme(Theme theme) {
    QSettings().setValue(QStringLiteral("theme"), int(theme));
}

} // namespace vs::ui
