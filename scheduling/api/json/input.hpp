#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string_view>

namespace scheduling::api::json {

// The bytes a decode reads: a whole request body, or a file read in 64 KiB windows so a
// cluster-state file of any size is never held. It is RapidJSON's input stream (Peek, Take,
// Tell) and also gives the decoder's own value scanner direct access to the buffered bytes,
// so skipped values are stepped over at memory speed instead of event by event.
//
// The current window is never empty: past the last byte it is a one-byte window holding
// '\0', which RapidJSON (and the scanner) read as the end of input. So Peek needs no bounds
// check and Take checks only for the window's end.
class Input {
 public:
  using Ch = char;

  explicit Input(std::string_view body);
  explicit Input(std::FILE* file);
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;

  // RapidJSON's Stream concept (read side; the write side is only used for in-situ parsing).
  Ch Peek() const { return *cur_; }
  Ch Take() {
    const Ch c = *cur_;
    if (++cur_ == end_) [[unlikely]]
      nextWindow();
    return c;
  }
  std::size_t Tell() const { return offsetOf(cur_); }
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  std::size_t PutEnd(Ch*) { return 0; }

  // The buffered bytes from the read position: [cur(), end()), never empty.
  const char* cur() const { return cur_; }
  const char* end() const { return end_; }
  // Moves the read position to p in [cur(), end()]; at end() the next window is loaded.
  void seek(const char* p) {
    cur_ = p;
    if (cur_ == end_) nextWindow();
  }
  // The input offset of p, a position in the current window.
  std::size_t offsetOf(const char* p) const { return base_ + static_cast<std::size_t>(p - begin_); }

  // Makes the next reads return `text` (which must outlive them), then resume here. The
  // decoder skips a member value itself and hands RapidJSON a stand-in for it.
  void substitute(std::string_view text);

  // The request body, for byte ranges of decoded objects; empty for a file.
  std::string_view body() const { return body_; }
  // The request body from the read position on, while reading it (not a stand-in, not past its
  // end), so that views of it live as long as the body; empty otherwise, and for a file.
  std::string_view restOfBody() const {
    return body_.empty() ? std::string_view() : bufferedAhead();
  }

  // The bytes read and not yet decoded, from the read position to the end of what is held
  // (the body's end, or the file's read window): empty in a stand-in and at the end. Unlike
  // restOfBody, a file's bytes here are gone at the next window: what is decoded from them
  // must copy them.
  std::string_view bufferedAhead() const {
    if (substituting_ || atEnd_) return {};
    return {cur_, static_cast<std::size_t>(end_ - cur_)};
  }

  // Whether reading has reached the end of the input: a decode that failed there may only
  // have run out of bytes.
  bool exhausted() const { return atEnd_; }

  // A failed file read ends the input early (the decode then fails on the truncated JSON);
  // this tells why: errno of the failure, 0 when none.
  int readError() const { return readError_; }

 private:
  struct Window {
    const char* begin;
    const char* cur;
    const char* end;
    std::size_t base;
  };

  void nextWindow();
  void setEndOfInput(std::size_t offset);
  void adviseReadAhead(std::size_t offset);

  const char* begin_ = nullptr;
  const char* cur_ = nullptr;
  const char* end_ = nullptr;
  std::size_t base_ = 0;  // input offset of begin_

  std::string_view body_;
  std::FILE* file_ = nullptr;
  std::unique_ptr<char[]> buffer_;
  // How far the kernel has been asked to read the file ahead of the decoder; -1 for a stream
  // that is not a file on disk (a pipe, memory).
  std::int64_t advisedUntil_ = -1;
  bool atEnd_ = false;
  int readError_ = 0;

  bool substituting_ = false;
  Window resume_{};
};

}  // namespace scheduling::api::json
