#include "views/dialogs/WelcomePage.h"

#include "common/Icons.h"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QListWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace vs::ui {

namespace {
QLabel* heading(const QString& text, QWidget* parent) {
    auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(text.toHtmlEscaped()), parent);
    return label;
}
} // namespace

WelcomePage::WelcomePage(const QList<QAction*>& actions, QWidget* parent) : QWidget(parent) {
    auto* logo = new QLabel(this);
    logo->setPixmap(icons::application().pixmap(96, 96));
    auto* title =
        new QLabel(tr("<h1>vramscope</h1><p>Find GPU memory leaks in PyTorch and CUDA programs.</p>"), this);
    auto* how = new QLabel(
        tr("<p><b>How to hunt a leak.</b> Open a memory snapshot or a recording, or watch a running program. "
           "A staircase of <span style='color:#1f66c4'><b>allocated</b></span> memory that never comes back "
           "down is a leak; <span style='color:#d66e00'><b>reserved</b></span> far above it is the "
           "allocator's cache. Click the ramp: the Leaks tab names the line of your code whose memory "
           "survived it, and what to do next.</p>"),
        this);
    how->setWordWrap(true);
    auto* buttons = new QVBoxLayout;
    for (QAction* a : actions) {
        auto* b = new QToolButton(this);
        b->setDefaultAction(a);
        b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        b->setIconSize(QSize(22, 22));
        b->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        b->setAutoRaise(true);
        buttons->addWidget(b);
    }
    buttons->addStretch(1);
    recent_ = makeList(tr("No recent files"));
    samples_ = makeList(tr("No samples found"));
    for (const QString& path : sampleFiles()) {
        auto* item = new QListWidgetItem(QFileInfo(path).fileName(), samples_);
        item->setData(Qt::UserRole, path);
        item->setToolTip(path);
    }
    auto* grid = new QGridLayout;
    grid->addWidget(heading(tr("Start"), this), 0, 0);
    grid->addLayout(buttons, 1, 0);
    grid->addWidget(heading(tr("Recent files"), this), 0, 1);
    grid->addWidget(recent_, 1, 1);
    grid->addWidget(heading(tr("Sample captures"), this), 0, 2);
    grid->addWidget(samples_, 1, 2);
    grid->setColumnStretch(0, 2), grid->setColumnStretch(1, 3), grid->setColumnStretch(2, 2);
    auto* header = new QHBoxLayout;
    header->addWidget(logo);
    header->addWidget(title, 1);
    auto* column = new QVBoxLayout;
    column->addLayout(header);
    column->addWidget(how);
    column->addSpacing(12);
    column->addLayout(grid, 1);
    auto* centred = new QHBoxLayout(this); // a readable column in the middle of a wide window
    centred->addStretch(1);
    centred->addLayout(column, 8);
    centred->addStretch(1);
    centred->setContentsMargins(24, 24, 24, 24);
}

QListWidget* WelcomePage::makeList(const QString& placeholder) {
    auto* list = new QListWidget(this);
    list->setToolTip(placeholder);
    list->setMinimumHeight(120);
    connect(list, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        const QString path = item->data(Qt::UserRole).toString();
        if (!path.isEmpty()) emit openRequested(path);
    });
    connect(list, &QListWidget::itemClicked, list, &QListWidget::itemActivated); // one click opens
    return list;
}

void WelcomePage::setRecent(const QStringList& paths) {
    recent_->clear();
    for (const QString& path : paths) {
        auto* item = new QListWidgetItem(QFileInfo(path).fileName(), recent_);
        item->setData(Qt::UserRole, path);
        item->setToolTip(path);
        if (!QFileInfo::exists(path)) item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
    }
    if (paths.isEmpty()) new QListWidgetItem(tr("(none yet)"), recent_);
}

QStringList WelcomePage::sampleFiles() {
    const QStringList dirs = {
        QCoreApplication::applicationDirPath() + QStringLiteral("/../share/vramscope/samples"),
        QStringLiteral(VRAMSCOPE_SOURCE_SAMPLES),
    };
    for (const QString& d : dirs) {
        const QStringList names =
            QDir(d).entryList({QStringLiteral("*.pickle"), QStringLiteral("*.pickle.gz"),
                               QStringLiteral("*.pickle.zst"), QStringLiteral("*.vscap")},
                              QDir::Files, QDir::Name);
        QStringList paths;
        for (const QString& n : names) paths << QDir(d).absoluteFilePath(n);
        if (!paths.isEmpty()) return paths;
    }
    return {};
}

} // namespace vs::ui
