#include "scheduling/binding/binding_client.hpp"

#include <boost/system/system_error.hpp>

#include "scheduling/api/json/api_server_codec.hpp"

namespace scheduling::binding {

namespace net = boost::asio;

namespace {

std::string podPath(const std::string& ns, const std::string& name) {
  return "/api/v1/namespaces/" + ns + "/pods/" + name;
}

}  // namespace

BindingClient::BindingClient(net::any_io_executor executor, const informers::ClientConfig& config,
                             std::shared_ptr<net::ssl::context> tls, informers::TokenSource& tokens,
                             std::chrono::seconds timeout)
    : executor_(std::move(executor)),
      config_(config),
      tls_(std::move(tls)),
      tokens_(tokens),
      timeout_(timeout) {}

BindingClient::~BindingClient() = default;

net::awaitable<ApiAnswer> BindingClient::exchange(const std::string& target,
                                                  const std::string* body) {
  std::unique_ptr<informers::ApiConnection> connection;
  if (idle_.empty()) {
    connection = std::make_unique<informers::ApiConnection>(executor_, config_, tls_, tokens_);
  } else {
    connection = std::move(idle_.back());
    idle_.pop_back();
  }
  ApiAnswer answer;
  bool failed = false;
  try {
    informers::http::status status;
    if (body != nullptr) {
      status = co_await connection->post(target, *body, timeout_);
    } else {
      status = co_await connection->get(target, timeout_);
    }
    answer.status = static_cast<unsigned>(status);
    while (co_await connection->readSome(answer.body, timeout_)) {
      if (answer.body.size() > ApiAnswer::kMaxAnswerBytes) {
        connection->close();
        break;
      }
    }
    answer.body.resize(std::min(answer.body.size(), ApiAnswer::kMaxAnswerBytes));
  } catch (const boost::system::system_error& e) {
    answer.failure = e.code().message();
    failed = true;
  }
  if (!failed) idle_.push_back(std::move(connection));  // a failed one is closed: dropped
  co_return answer;
}

net::awaitable<ApiAnswer> BindingClient::createBinding(const std::string& ns,
                                                       const std::string& name,
                                                       const std::string& uid,
                                                       const std::string& node) {
  // Named, and passed by reference: GCC 12 destroys a temporary in a co_await operand, or a
  // class argument moved into a coroutine, twice.
  const std::string target = podPath(ns, name) + "/binding";
  const std::string body = api::json::encodeBinding(ns, name, uid, node);
  ApiAnswer answer = co_await exchange(target, &body);
  co_return answer;
}

net::awaitable<ApiAnswer> BindingClient::getPod(const std::string& ns, const std::string& name) {
  const std::string target = podPath(ns, name);
  ApiAnswer answer = co_await exchange(target, nullptr);
  co_return answer;
}

void BindingClient::close() {
  for (auto& connection : idle_) connection->close();
  idle_.clear();
}

}  // namespace scheduling::binding
