// MainWindow's menus and the actions behind them; every menu entry has a shortcut.
#include "common/Icons.h"
#include "common/Theme.h"
#include "live/LiveController.h"
#include "session/Session.h"
#include "timeline/FragmentationOverlay.h"
#include "timeline/TimelinePlot.h"
#include "util/SshTarget.h"
#include "views/compare/CompareView.h"
#include "views/dialogs/CapturePropertiesDialog.h"
#include "views/dialogs/HelpDialogs.h"
#include "views/dialogs/OpenRangeDialog.h"
#include "views/dialogs/ShortcutsDialog.h"
#include "views/dialogs/WelcomePage.h"
#include "views/panels/EventsPane.h"
#include "views/panels/PeakPanel.h"
#include "views/panels/StackPane.h"
#include "views/panels/WhatIfPanel.h"
#include "views/ranks/RanksWindow.h"
#include "window/Exporter.h"
#include "window/MainWindow.h"
#include "window/RegionSelector.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

namespace vs::ui {

namespace {
constexpr int kMaxRecent = 10;
const char* kOpenFilter = QT_TRANSLATE_NOOP(
    "MainWindow", "Captures (*.vscap *.pickle *.pkl *.pickle.gz *.pickle.zst *.gz *.zst *.json);;vramscope "
                  "recordings (*.vscap);;"
                  "PyTorch memory snapshots (*.pickle *.pkl *.pickle.gz *.pickle.zst *.gz *.zst);;"
                  "torch.profiler traces with memory (*.json *.json.gz);;All files (*)");
// A checkable View entry for one timeline overlay; off until the user turns it on (remembered).
void overlayToggle(QMenu* menu, TimelinePlot* timeline, const QString& text, const QKeySequence& keys,
                   TimelinePlot::Overlay overlay, const QString& tip) {
    QAction* a = menu->addAction(text);
    a->setCheckable(true);
    a->setShortcut(keys);
    a->setToolTip(tip);
    a->setStatusTip(tip);
    const QString key = QStringLiteral("overlay/%1").arg(int(overlay));
    a->setChecked(QSettings().value(key, false).toBool());
    timeline->setOverlayVisible(overlay, a->isChecked());
    QObject::connect(a, &QAction::toggled, timeline, [timeline, key, overlay](bool on) {
        QSettings().setValue(key, on);
        timeline->setOverlayVisible(overlay, on);
    });
}
// View > Fold Idle Gaps: on until the user turns it off (remembered).
void foldToggle(QMenu* menu, TimelinePlot* timeline) {
    QAction* a = menu->addAction(MainWindow::tr("Fold &Idle Gaps"));
    a->setCheckable(true);
    a->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));
    const QString tip =
        MainWindow::tr("Stretches with no allocation or free on any device, longer than a tenth of "
                       "the run and a second, drawn as narrow breaks labelled with their length");
    a->setToolTip(tip);
    a->setStatusTip(tip);
    const QString key = QStringLiteral("timeline/foldIdleGaps");
    a->setChecked(QSettings().value(key, true).toBool());
    timeline->setFoldIdleGaps(a->isChecked());
    QObject::connect(a, &QAction::toggled, timeline, [timeline, key](bool on) {
        QSettings().setValue(key, on);
        timeline->setFoldIdleGaps(on);
    });
}
// View > Theme: System (the desktop's light or dark preference), Light or Dark; remembered.
void themeMenu(QMenu* menu) {
    auto* group = new QActionGroup(menu);
    const Theme saved = savedTheme();
    for (auto [theme, text] :
         {std::pair{Theme::System, QObject::tr("Follow the &Desktop")},
          std::pair{Theme::Light, QObject::tr("&Light")}, std::pair{Theme::Dark, QObject::tr("&Dark")}}) {
        QAction* a = menu->addAction(text);
        a->setCheckable(true);
        a->setChecked(theme == saved);
        group->addAction(a);
        QObject::connect(a, &QAction::triggered, menu, [theme] {
            saveTheme(theme);
            applyTheme(theme);
        });
    }
}
} // namespace

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    icons::set(
        file->addAction(tr("&Open\u2026"), QKeySequence::Open, this,
                        [this] {
                            const QString dir = QSettings().value(QStringLiteral("lastDir")).toString();
                            const QString path =
                                QFileDialog::getOpenFileName(this, tr("Open capture"), dir, tr(kOpenFilter));
                            if (path.isEmpty()) return;
                            QSettings().setValue(QStringLiteral("lastDir"), QFileInfo(path).absolutePath());
                            openFile(path);
                        }),
        QStringLiteral("open"), palette());
    file->addAction(tr("Open Re&mote\u2026"), live_, &LiveController::askOpenRemote)
        ->setToolTip(
            tr("Read a capture on another machine through your ssh; one still being written is followed"));
    file->addAction(tr("Open Ran&ge\u2026"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_O), this,
                    [this] {
                        const auto asked = OpenRangeDialog::ask(this, session_->path(), tr(kOpenFilter));
                        if (asked) openFileWith(asked->first, {asked->second, false});
                    })
        ->setToolTip(tr("Load only a window of a big capture, with the allocator state at its start"));
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    icons::set(file->addAction(tr("Re&load"), QKeySequence(Qt::Key_F5), this,
                               [this] {
                                   if (!session_->path().isEmpty()) openFileWith(session_->path(), shown_);
                               }),
               QStringLiteral("reload"), palette());
    cudaLevelAct_ = file->addAction(tr("Open C&UDA Level"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_L),
                                    this, &MainWindow::openCudaLevel);
    cudaLevelAct_->setToolTip(
        tr("A recording with both levels (python -m vramscope record --native): open what the "
           "CUPTI agent saw, every driver allocation with native stacks (cuBLAS, cuDNN, NCCL, "
           "extensions). Reload (F5) returns to PyTorch's level."));
    cudaLevelAct_->setEnabled(false); // onOpened: while the capture has a CUDA level
    file->addAction(tr("Compare &With\u2026"), QKeySequence(Qt::CTRL | Qt::Key_D), this,
                    [this] { CompareView::askAndCompare(this, session_->analysis(), session_->path()); });
    file->addAction(
        tr("Compare Two Ran&ges\u2026"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D), this,
        [this] { CompareView::askRanges(this, session_->analysis(), session_->path(), session_->range()); });
    file->addAction(tr("Open R&anks\u2026"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this,
                    [this] { openRanks(false); });
    file->addAction(tr("Open Ranks &Folder…"), this, [this] { openRanks(true); })
        ->setToolTip(
            tr("A folder with one capture per rank (rank0.pickle, rank_1.vscap, …), as distributed jobs "
               "dump them: every capture file in it, ordered by the rank in its name."));
    file->addSeparator();
    icons::set(file->addAction(tr("&Export Timeline\u2026"), QKeySequence(Qt::CTRL | Qt::Key_E), this,
                               &MainWindow::exportTimeline),
               QStringLiteral("export"), palette());
    file->addAction(tr("Export &Window\u2026"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E), this,
                    &MainWindow::exportWindow);
    file->addAction(tr("Export &Bug Report\u2026"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_E), this,
                    &MainWindow::exportBugReport)
        ->setToolTip(tr("A Markdown report and the timeline image beside it, for an issue"));
    icons::set(file->addAction(tr("Copy &Image"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), this,
                               &MainWindow::copyImage),
               QStringLiteral("copy-image"), palette());
    icons::set(file->addAction(tr("Copy &Summary (Markdown)"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_C),
                               this, &MainWindow::copySummary),
               QStringLiteral("copy-summary"), palette());
    file->addSeparator();
    propertiesAct_ =
        icons::set(file->addAction(tr("Capture &Properties\u2026"), QKeySequence(Qt::CTRL | Qt::Key_I), this,
                                   &MainWindow::showProperties),
                   QStringLiteral("properties"), palette());
    propertiesAct_->setToolTip(
        tr("The file, devices, allocator settings, recorder and modules of this capture"));
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(tr("Copy &Stack"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_S), this,
                    [this] { QApplication::clipboard()->setText(stack_->stackText()); });
    icons::set(
        edit->addAction(tr("&Find in Events\u2026"), QKeySequence::Find, events_, &EventsPane::openFind),
        QStringLiteral("find"), palette());
    edit->addAction(tr("&Editor Command\u2026"), QKeySequence(Qt::CTRL | Qt::Key_Comma), this,
                    &MainWindow::chooseEditor);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->setToolTipsVisible(true);
    icons::set(view->addAction(tr("&Fit All"), QKeySequence(Qt::Key_Home), timeline_, &TimelinePlot::fitAll),
               QStringLiteral("fit"), palette());
    icons::set(view->addAction(tr("Zoom &Back"), QKeySequence(Qt::ALT | Qt::Key_Left), timeline_,
                               &TimelinePlot::zoomBack),
               QStringLiteral("zoom-back"), palette());
    icons::set(view->addAction(tr("Zoom &Forward"), QKeySequence(Qt::ALT | Qt::Key_Right), timeline_,
                               &TimelinePlot::zoomForward),
               QStringLiteral("zoom-forward"), palette());
    icons::set(view->addAction(tr("Zoom to &Selection"), QKeySequence(Qt::Key_Z), this,
                               [this] {
                                   if (auto s = timeline_->selection()) timeline_->setVisibleRange(*s);
                               }),
               QStringLiteral("zoom-selection"), palette());
    view->addAction(tr("&Clear Selection / Cancel"), QKeySequence(Qt::Key_Escape), this, [this] {
        if (loader_->busy())
            loader_->cancel();
        else
            timeline_->setSelection(std::nullopt);
    });
    view->addSeparator();
    overlayToggle(view, timeline_, tr("Show &Active (Pending Free)"),
                  QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A), TimelinePlot::Overlay::Active,
                  tr("Blocks still active after free: a dashed line above allocated while frees wait on "
                     "another stream (record_stream)"));
    overlayToggle(view, timeline_, tr("Show F&ragmentation"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F),
                  TimelinePlot::Overlay::Fragmentation,
                  tr("Largest free block (dotted), free fragments (dash-dot, right axis) and red ticks where "
                     "a request of the chosen size would need a new segment"));
    overlayToggle(view, timeline_, tr("Show A&nnotations"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N),
                  TimelinePlot::Overlay::Annotations,
                  tr("record_function regions: labelled lines when few, grey ticks along the top when many"));
    foldToggle(view, timeline_);
    view->addAction(tr("Fragmentation &Request Size\u2026"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_F),
                    this, &MainWindow::chooseFragmentationRequest);
    view->addAction(tr("Allocator &What-if\u2026"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_W), this,
                    [this] {
                        if (auto* w = findChild<WhatIfPanel*>()) details_->setCurrentWidget(w);
                    });
    view->addAction(tr("Allocation &Bands"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_B), this,
                    &MainWindow::showAllocationBandsTab)
        ->setToolTip(
            tr("Each large live allocation as a band stacked over time, as in PyTorch's memory_viz"));
    view->addSeparator();
    themeMenu(view->addMenu(tr("&Theme")));
    view->addAction(stack_->showInternalAction());

    buildGoMenu();
    QMenu* capture = menuBar()->addMenu(tr("&Capture"));
    live_->addActions(capture);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    icons::set(
        help->addAction(tr("vramscope &Help"), QKeySequence::HelpContents, this, [this] { showHelp(this); }),
        QStringLiteral("help"), palette());
    help->addAction(tr("&Keyboard Shortcuts"), QKeySequence(Qt::CTRL | Qt::Key_Slash), this, [this] {
        auto* d = new ShortcutsDialog(menuBar(), this);
        d->setAttribute(Qt::WA_DeleteOnClose);
        d->show();
    });
    help->addSeparator();
    help->addAction(tr("&About vramscope"), QKeySequence(Qt::SHIFT | Qt::Key_F1), this,
                    [this] { showAbout(this); });
}

// Stepping through what the analyses found: growth regions in time order, marked events.
void MainWindow::buildGoMenu() {
    QMenu* go = menuBar()->addMenu(tr("&Go"));
    go->setToolTipsVisible(true);
    QAction* next =
        icons::set(go->addAction(tr("&Next Growth Region"), QKeySequence(Qt::CTRL | Qt::Key_BracketRight),
                                 regions_, &RegionSelector::selectNext),
                   QStringLiteral("next-region"), palette());
    next->setToolTip(tr("Select the next growth region in time: shaded, explained in the Leaks tab, its "
                        "blocks marked in the block map"));
    QAction* previous =
        icons::set(go->addAction(tr("&Previous Growth Region"), QKeySequence(Qt::CTRL | Qt::Key_BracketLeft),
                                 regions_, &RegionSelector::selectPrevious),
                   QStringLiteral("previous-region"), palette());
    previous->setToolTip(tr("Select the previous growth region in time"));
    go->addSeparator();
    go->addAction(tr("Pea&k"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P), this,
                  [this] {
                      peak_->goToPeak(); // first: selecting an event shows its stack
                      showPeakTab();
                  })
        ->setToolTip(
            tr("Select the moment allocated memory is highest and explain it in the Peak tab: what is "
               "alive by category and line, its phase against a typical step"));
    icons::set(go->addAction(tr("Go to &Time\u2026"), QKeySequence(Qt::CTRL | Qt::Key_G), this,
                             [this] {
                                 if (!session_->isOpen()) return;
                                 bool ok = false;
                                 const double s = QInputDialog::getDouble(
                                     this, tr("Go to time"), tr("Seconds since the first event:"),
                                     timeline_->visibleRange().center(), 0, 1e9, 6, &ok);
                                 if (ok) goToTime(s);
                             }),
               QStringLiteral("go-to-time"), palette())
        ->setToolTip(tr("Select the last event at or before a moment and show it on the timeline"));
    QAction* nextMark = go->addAction(tr("Next &Marked Event"), QKeySequence(Qt::Key_F3), this,
                                      [this] { stepMarkedEvent(true); });
    nextMark->setToolTip(
        tr("The next allocation of the group shown with \"Show Allocations in the Event List\""));
    QAction* prevMark = go->addAction(tr("Previous Marked &Event"), QKeySequence(Qt::SHIFT | Qt::Key_F3),
                                      this, [this] { stepMarkedEvent(false); });
    prevMark->setToolTip(tr("The previous marked allocation in the event list"));
}

// A ranks window (capture files, or a folder of them); a rank chosen in it opens here.
void MainWindow::openRanks(bool folder) {
    if (auto* w =
            RanksWindow::askAndOpen(this, folder ? RanksWindow::Pick::Folder : RanksWindow::Pick::Files))
        connect(w, &RanksWindow::openRank, this, &MainWindow::openFile);
}

void MainWindow::updateRecentMenu() {
    recentMenu_->clear();
    const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    for (int i = 0; i < recent.size(); ++i) {
        QAction* a =
            recentMenu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(recent[i]).fileName()));
        a->setToolTip(recent[i]);
        if (i < 9) a->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)));
        const QString path = recent[i];
        connect(a, &QAction::triggered, this, [this, path] { openFile(path); });
    }
    recentMenu_->setEnabled(!recent.isEmpty());
    if (welcome_) welcome_->setRecent(recent);
}

void MainWindow::addRecent(const QString& path) {
    QSettings s;
    QStringList recent = s.value(QStringLiteral("recentFiles")).toStringList();
    const QString abs = isSshUrl(path.toStdString()) ? path : QFileInfo(path).absoluteFilePath();
    recent.removeAll(abs);
    recent.prepend(abs);
    while (recent.size() > kMaxRecent) recent.removeLast();
    s.setValue(QStringLiteral("recentFiles"), recent);
    updateRecentMenu();
}

void MainWindow::chooseFragmentationRequest() {
    bool ok = false;
    const double mib = QInputDialog::getDouble(
        this, tr("Fragmentation request size"),
        tr("Mark the moments where a request of this many MiB would have needed a new segment\n"
           "although at least that much memory sat free in the cache:"),
        QSettings().value(QStringLiteral("fragmentationRequestMiB"), 20).toDouble(), 0.001, 1e7, 3, &ok);
    if (!ok) return;
    QSettings().setValue(QStringLiteral("fragmentationRequestMiB"), mib);
    fragmentation_->recompute(); // the marks follow the new request size
}

void MainWindow::chooseEditor() {
    bool ok = false;
    const QString current = QSettings().value(QStringLiteral("editorCommand")).toString();
    const QString command =
        QInputDialog::getText(this, tr("Editor command"),
                              tr("Command to open a source file; {file} and {line} are replaced.\n"
                                 "Examples: code -g {file}:{line}   \u2022   kate --line {line} {file}\n"
                                 "Leave empty to use the desktop's default application."),
                              QLineEdit::Normal, current, &ok);
    if (ok) QSettings().setValue(QStringLiteral("editorCommand"), command);
}

void MainWindow::showProperties() {
    if (!session_->isOpen()) return;
    auto* d = new CapturePropertiesDialog(
        captureFacts(*session_->analysis(), uint64_t(QFileInfo(session_->path()).size())), this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    d->show();
    properties_ = d;
}

} // namespace vs::ui
