#pragma once
// Frees a large value on a pool thread. A leak's report at 100M events holds ~1M allocations in
// several vectors; returning their pages to the system on the GUI thread (munmap) cost it tens of
// milliseconds per click. The value must not touch widgets when destroyed.
#include <QThreadPool>

#include <memory>
#include <type_traits>

namespace vs::ui {

template <class T> void disposeInBackground(T&& value) {
    static_assert(!std::is_lvalue_reference_v<T>, "give the value away: disposeInBackground(std::move(x))");
    auto doomed = std::make_shared<T>(std::move(value));
    QThreadPool::globalInstance()->start([doomed]() mutable { doomed.reset(); });
}

} // namespace vs::ui
