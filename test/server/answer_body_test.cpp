#include "server/answer_body.hpp"

#include <boost/beast/http.hpp>
#include <boost/test/unit_test.hpp>
#include <memory>
#include <sstream>
#include <string>

namespace {

namespace http = boost::beast::http;
using server::AnswerBody;

// The bytes Beast's serializer writes for the body (the header cut off).
std::string serializedBody(AnswerBody::value_type body) {
  http::response<AnswerBody> response{http::status::ok, 11};
  response.body() = std::move(body);
  response.prepare_payload();
  std::ostringstream out;
  out << response;
  const std::string text = out.str();
  const std::string length = std::string(response[http::field::content_length]);
  const std::string body_ = text.substr(text.find("\r\n\r\n") + 4);
  BOOST_TEST(length == std::to_string(body_.size()));
  return body_;
}

BOOST_AUTO_TEST_SUITE(AnswerBodyTest)

BOOST_AUTO_TEST_CASE(OwnBytesGoOutAsTheyAre) {
  BOOST_TEST(serializedBody(std::string(R"({"Error":""})")) == R"({"Error":""})");
  BOOST_TEST(serializedBody(std::string()).empty());
  AnswerBody::value_type appended;
  appended.append("ab");
  appended.append("cd");
  BOOST_TEST(appended.text() == "abcd");
  BOOST_TEST(serializedBody(appended) == "abcd");
}

// Own and borrowed bytes interleaved, in more pieces than one batch holds, the borrowed ones
// kept alive by the body alone.
BOOST_AUTO_TEST_CASE(BorrowedBytesGoOutInOrderAndStayAlive) {
  AnswerBody::value_type body;
  std::string want = "[";
  body.append("[");
  {
    auto request = std::make_shared<std::string>();
    for (int i = 0; i < 200; ++i) *request += "item-" + std::to_string(i) + ";";
    std::string_view rest = *request;
    for (int i = 0; i < 200; ++i) {
      const std::string_view item = rest.substr(0, rest.find(';'));
      rest.remove_prefix(item.size() + 1);
      if (i > 0) {
        body.append(",");
        want += ",";
      }
      body.appendBorrowed(item);
      want += item;
    }
    body.keep(request);
  }  // the request's last owner is the body now
  body.append("]");
  want += "]";
  BOOST_TEST(body.size() == want.size());
  BOOST_TEST(body.flat() == want);
  BOOST_TEST(body.flat(7) == want.substr(0, 7));
  BOOST_TEST(serializedBody(body) == want);
  // Moved, the pieces still find the text they cover.
  AnswerBody::value_type moved = std::move(body);
  BOOST_TEST(serializedBody(std::move(moved)) == want);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
