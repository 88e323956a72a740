#pragma once
// The CUPTI agent's connection to a listening vramscope (Capture > Listen): the same bytes as the
// file, sent without ever blocking. What the socket cannot take now waits in a bounded buffer; when
// that fills (viewer slow or gone) the connection is dropped with one message, the file goes on.
// Nothing is sent to a listener that runs as another user (a socket someone else put at the path).
#include <memory>
#include <string>
#include <string_view>

namespace vs::cupti {

class LiveSocket {
  public:
    // Connects to the Unix socket at `path`; nullptr (and `error`) when nobody listens there or
    // the listener's uid (SO_PEERCRED) is not `expectedUid` (default: our effective uid).
    static std::unique_ptr<LiveSocket> connect(const std::string& path, std::string& error,
                                               size_t maxPending = 64u << 20, long expectedUid = -1);
    ~LiveSocket();
    LiveSocket(const LiveSocket&) = delete;
    LiveSocket& operator=(const LiveSocket&) = delete;

    void send(std::string_view bytes);
    bool open() const { return fd_ >= 0; }

  private:
    LiveSocket(int fd, size_t maxPending) : fd_(fd), max_(maxPending) {}
    void drop(const char* why);
    int fd_;
    size_t max_;
    std::string pending_;
};

} // namespace vs::cupti
