#include "server/answer_body.hpp"

#include <algorithm>

namespace server {

void AnswerBody::value_type::append(std::string_view own) {
  if (own.empty()) return;
  // The first piece covers the text written before any borrowed bytes.
  if (pieces_.empty() && !text_.empty()) pieces_.push_back({nullptr, 0, text_.size()});
  const std::size_t at = text_.size();
  text_.append(own);
  if (!pieces_.empty() && pieces_.back().borrowed == nullptr) {
    pieces_.back().size += own.size();
  } else {
    pieces_.push_back({nullptr, at, own.size()});
  }
}

void AnswerBody::value_type::appendBorrowed(std::string_view bytes) {
  if (bytes.empty()) return;
  if (pieces_.empty() && !text_.empty()) pieces_.push_back({nullptr, 0, text_.size()});
  pieces_.push_back({bytes.data(), 0, bytes.size()});
}

std::string AnswerBody::value_type::flat(std::size_t limit) const {
  if (pieces_.empty()) return text_.substr(0, limit);
  std::string out;
  for (const Piece& piece : pieces_) {
    if (out.size() >= limit) break;
    const auto buffer = bufferOf(piece);
    out.append(static_cast<const char*>(buffer.data()),
               std::min(buffer.size(), limit - out.size()));
  }
  return out;
}

std::uint64_t AnswerBody::value_type::size() const {
  if (pieces_.empty()) return text_.size();
  std::uint64_t total = 0;
  for (const Piece& piece : pieces_) total += piece.size;
  return total;
}

boost::optional<std::pair<AnswerBody::writer::const_buffers_type, bool>> AnswerBody::writer::get(
    boost::beast::error_code& ec) {
  ec = {};
  if (body_.pieces_.empty()) {
    if (next_ > 0 || body_.text_.empty()) return boost::none;
    next_ = 1;
    batch_[0] = boost::asio::buffer(body_.text_);
    return {{const_buffers_type(batch_.data(), 1), false}};
  }
  const std::size_t total = body_.pieces_.size();
  if (next_ == total) return boost::none;
  const std::size_t n = std::min(kBatch, total - next_);
  for (std::size_t i = 0; i < n; ++i) batch_[i] = body_.bufferOf(body_.pieces_[next_ + i]);
  next_ += n;
  return {{const_buffers_type(batch_.data(), n), next_ < total}};
}

}  // namespace server
