#include "scheduling/api/json/input.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>

namespace scheduling::api::json {

namespace {

constexpr std::size_t kFileWindow = 64 * 1024;
// The file is read ahead in steps of this many bytes, one step before the decoder needs them:
// loading a cluster-state file that is not in the page cache then costs the longer of reading
// and decoding it, not about their sum (the kernel's own read-ahead is a few hundred KiB,
// which a decoder at a few hundred MB/s outruns, so it waits on the disk at every window).
constexpr std::int64_t kReadAheadStep = 32 << 20;
constexpr char kEndOfInput[1] = {'\0'};

}  // namespace

Input::Input(std::string_view body) : body_(body) {
  if (body.empty()) {
    setEndOfInput(0);
  } else {
    begin_ = cur_ = body.data();
    end_ = body.data() + body.size();
  }
}

Input::Input(std::FILE* file) : file_(file), buffer_(new char[kFileWindow]) {
  begin_ = cur_ = end_ = buffer_.get();
  const int fd = fileno(file);
  struct stat status {};
  // nextWindow() gives the first advice, for the file's start.
  if (fd >= 0 && fstat(fd, &status) == 0 && S_ISREG(status.st_mode)) advisedUntil_ = 0;
  nextWindow();
}

void Input::adviseReadAhead(std::size_t offset) {
  // Keep between one and two steps ahead of the read position. Advice only: a failure
  // leaves reading as it was.
  while (advisedUntil_ >= 0 && advisedUntil_ < static_cast<std::int64_t>(offset) + kReadAheadStep) {
    posix_fadvise(fileno(file_), advisedUntil_, kReadAheadStep, POSIX_FADV_WILLNEED);
    advisedUntil_ += kReadAheadStep;
  }
}

void Input::setEndOfInput(std::size_t offset) {
  atEnd_ = true;
  begin_ = cur_ = kEndOfInput;
  end_ = kEndOfInput + 1;
  base_ = offset;
}

void Input::substitute(std::string_view text) {
  resume_ = Window{begin_, cur_, end_, base_};
  substituting_ = true;
  begin_ = cur_ = text.data();
  end_ = text.data() + text.size();
  // Offsets inside the stand-in report where the input resumes.
  base_ = resume_.base + static_cast<std::size_t>(resume_.cur - resume_.begin);
}

void Input::nextWindow() {
  if (substituting_) {
    substituting_ = false;
    begin_ = resume_.begin;
    cur_ = resume_.cur;
    end_ = resume_.end;
    base_ = resume_.base;
    return;
  }
  if (atEnd_) {
    // Reading past the end keeps returning '\0' at the same offset.
    cur_ = begin_;
    return;
  }
  const std::size_t offset = base_ + static_cast<std::size_t>(end_ - begin_);
  if (file_ == nullptr) {
    setEndOfInput(offset);
    return;
  }
  adviseReadAhead(offset);
  const std::size_t n = std::fread(buffer_.get(), 1, kFileWindow, file_);
  if (n == 0) {
    if (std::ferror(file_)) readError_ = errno != 0 ? errno : EIO;
    setEndOfInput(offset);
    return;
  }
  begin_ = cur_ = buffer_.get();
  end_ = buffer_.get() + n;
  base_ = offset;
}

}  // namespace scheduling::api::json
