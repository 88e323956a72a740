#include "views/panels/WarningsBanner.h"

#include "session/Session.h"

#include <QMessageBox>

namespace vs::ui {

WarningsBanner::WarningsBanner(Session* session, QWidget* parent) : QLabel(parent), session_(session) {
    setObjectName(QStringLiteral("warnings"));
    setWordWrap(true);
    setVisible(false);
    setStyleSheet(QStringLiteral("QLabel { background: #fff3cd; color: #664d03; padding: 4px 8px; "
                                 "border-bottom: 1px solid #e0c060; }"));
    connect(this, &QLabel::linkActivated, this, &WarningsBanner::showAll);
    connect(session, &Session::opened, this, &WarningsBanner::fill);
}

void WarningsBanner::fill() {
    constexpr size_t kShown = 3;
    const auto& all = session_->analysis()->warnings();
    QStringList warnings;
    for (size_t i = 0; i < all.size() && i < kShown; ++i)
        warnings << QString::fromStdString(all[i]).toHtmlEscaped();
    QString text = QStringLiteral("\u26a0 ") + warnings.join(QStringLiteral("<br>\u26a0 "));
    if (all.size() > kShown)
        text += tr("<br>\u2026 and %1 more: <a href=\"#warnings\">show all %2 warnings</a>")
                    .arg(all.size() - kShown)
                    .arg(all.size());
    setText(text);
    setVisible(!warnings.isEmpty());
}

void WarningsBanner::showAll() {
    if (!session_->analysis()) return;
    QString all;
    for (const auto& w : session_->analysis()->warnings())
        all += QString::fromStdString(w) + QLatin1Char('\n');
    QMessageBox box(QMessageBox::Warning, tr("Warnings \u2014 vramscope"),
                    tr("The capture was read with %n warning(s); they are listed below.", nullptr,
                       int(session_->analysis()->warnings().size())),
                    QMessageBox::Close, window());
    box.setDetailedText(all);
    box.exec();
}

} // namespace vs::ui
