#include "InputBuffer.h"

#include "Decompress.h"
#include "LoadError.h"
#include "RegularFile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace vs {
namespace {

struct Fd {
    int fd;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

} // namespace

Compression sniffCompression(std::span<const uint8_t> b) {
    if (b.size() >= 2 && b[0] == 0x1f && b[1] == 0x8b) return Compression::Gzip;
    if (b.size() >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd)
        return Compression::Zstd;
    return Compression::None;
}

InputBuffer InputBuffer::open(const std::string& path, uint64_t budget) {
    InputBuffer in = openAsStored(path);
    if (in.compression_ == Compression::None) return in;
    InputBuffer out = fromMemory(in.bytes(), budget);
    out.fileSize_ = in.fileSize_;
    return out;
}

InputBuffer InputBuffer::openAsStored(const std::string& path) {
    Fd f{openRegularFile(path)}; // a FIFO named like a capture must not hang the open
    struct stat st {};
    if (::fstat(f.fd, &st) != 0) throw LoadError("cannot stat " + path + ": " + std::strerror(errno));
    if (st.st_size == 0) throw LoadError(path + " is empty");
    InputBuffer in;
    in.fileSize_ = static_cast<uint64_t>(st.st_size);
    void* m = ::mmap(nullptr, in.fileSize_, PROT_READ, MAP_PRIVATE, f.fd, 0);
    if (m == MAP_FAILED) throw LoadError("cannot map " + path + ": " + std::strerror(errno));
    ::madvise(m, in.fileSize_, MADV_SEQUENTIAL);
    in.mapping_ = m;
    in.fd_ = std::exchange(f.fd, -1);
    in.data_ = static_cast<const uint8_t*>(m);
    in.size_ = in.fileSize_;
    in.compression_ = sniffCompression(in.bytes());
    return in;
}

InputBuffer InputBuffer::fromMemory(std::span<const uint8_t> bytes, uint64_t budget) {
    InputBuffer in;
    in.fileSize_ = bytes.size();
    in.compression_ = sniffCompression(bytes);
    if (in.compression_ == Compression::None) {
        in.data_ = bytes.data();
        in.size_ = bytes.size();
        return in;
    }
    auto out = in.compression_ == Compression::Gzip ? gunzip(bytes, budget) : unzstd(bytes, budget);
    in.size_ = out.size;
    in.owned_ = std::move(out.data);
    in.data_ = in.owned_.get();
    return in;
}

void InputBuffer::releaseBefore(uint64_t offset) {
    if (!mapping_) return;
    const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t end = offset / page * page;
    if (end <= released_) return;
    ::madvise(static_cast<uint8_t*>(mapping_) + released_, end - released_, MADV_DONTNEED);
    released_ = end;
}

void InputBuffer::readWindows(const std::function<uint64_t(std::span<const uint8_t>, uint64_t)>& f) const {
    if (fd_ < 0) { // in memory already: windows of 8 MiB, so that `f` can report progress
        for (uint64_t at = 0, step = 1; at < size_ && step; at += step)
            step = f({data_ + at, std::min<uint64_t>(size_ - at, 8 << 20)}, at);
        return;
    }
    std::unique_ptr<uint8_t[]> buffer(new uint8_t[1 << 20]);
    for (uint64_t at = 0, step = 1; at < size_ && step; at += step) {
        const auto n =
            ::pread(fd_, buffer.get(), std::min<uint64_t>(size_ - at, 1 << 20), static_cast<off_t>(at));
        if (n <= 0) return; // the mapped reading will report it
        step = f({buffer.get(), static_cast<size_t>(n)}, at);
    }
}

InputBuffer::InputBuffer(InputBuffer&& o) noexcept {
    *this = std::move(o);
}

InputBuffer& InputBuffer::operator=(InputBuffer&& o) noexcept {
    if (this == &o) return *this;
    if (mapping_) ::munmap(mapping_, fileSize_);
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    fileSize_ = std::exchange(o.fileSize_, 0);
    released_ = std::exchange(o.released_, 0);
    mapping_ = std::exchange(o.mapping_, nullptr);
    owned_ = std::move(o.owned_);
    compression_ = o.compression_;
    return *this;
}

InputBuffer::~InputBuffer() {
    if (mapping_) ::munmap(mapping_, fileSize_);
    if (fd_ >= 0) ::close(fd_);
}

} // namespace vs
