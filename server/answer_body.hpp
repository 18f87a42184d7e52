#pragma once

#include <array>
#include <boost/asio/buffer.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/optional.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace server {

// The body of every response (a Beast Body): the answer's own bytes, or, for an answer that
// echoes much of its request, those bytes interleaved with slices of the request, which the
// body keeps alive until it is written. /filter with full Nodes echoes the feasible Node
// objects as they were sent: 48 MB of S3's 52 MB request. Copied into the answer, they cost
// a second buffer of that size per request in flight and the time to fill it; sent from the
// request's own bytes, neither.
struct AnswerBody {
  class value_type {
   public:
    value_type() = default;
    // An answer that is all its own bytes (implicit: most answers are just a string, or a
    // literal such as "ok").
    value_type(std::string text) : text_(std::move(text)) {}  // NOLINT(google-explicit-constructor)
    value_type(const char* text) : text_(text) {}             // NOLINT(google-explicit-constructor)

    // Appends bytes of its own / bytes that `keep` holds, which must outlive the body.
    void append(std::string_view own);
    void appendBorrowed(std::string_view bytes);
    // What the borrowed bytes point into.
    void keep(std::shared_ptr<const void> owner) { owner_ = std::move(owner); }

    // The first `limit` bytes in order (tests, logs).
    std::string flat(std::size_t limit = std::string::npos) const;
    std::uint64_t size() const;
    // The bytes of its own only: the whole answer unless some are borrowed.
    const std::string& text() const { return text_; }

   private:
    friend struct AnswerBody;
    // A range of text_ (borrowed == nullptr) or of borrowed bytes; offsets into text_ rather
    // than pointers, since text_ moves with the body and short strings move their bytes.
    struct Piece {
      const char* borrowed = nullptr;
      std::size_t offset = 0;
      std::size_t size = 0;
    };
    boost::asio::const_buffer bufferOf(const Piece& piece) const {
      return {piece.borrowed != nullptr ? piece.borrowed : text_.data() + piece.offset, piece.size};
    }

    std::string text_;
    std::vector<Piece> pieces_;  // empty: text_ is the answer
    std::shared_ptr<const void> owner_;
  };

  static std::uint64_t size(const value_type& body) { return body.size(); }

  // Hands Beast's serializer the pieces a batch at a time (a writev takes 64 buffers at most).
  class writer {
   public:
    static constexpr std::size_t kBatch = 64;
    using const_buffers_type = std::span<const boost::asio::const_buffer>;

    template <bool isRequest, class Fields>
    writer(const boost::beast::http::header<isRequest, Fields>&, const value_type& body)
        : body_(body) {}

    void init(boost::beast::error_code& ec) { ec = {}; }
    boost::optional<std::pair<const_buffers_type, bool>> get(boost::beast::error_code& ec);

   private:
    const value_type& body_;
    std::size_t next_ = 0;  // the next piece to hand out
    std::array<boost::asio::const_buffer, kBatch> batch_;
  };
};

}  // namespace server
