#include "scheduling/binding/binding_client.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <boost/system/system_error.hpp>

namespace scheduling::binding {

namespace net = boost::asio;

namespace {

std::string podPath(const std::string& ns, const std::string& name) {
  return "/api/v1/namespaces/" + ns + "/pods/" + name;
}

std::string bindingJson(const std::string& ns, const std::string& name, const std::string& uid,
                        const std::string& node) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("apiVersion");
  w.String("v1");
  w.Key("kind");
  w.String("Binding");
  w.Key("metadata");
  w.StartObject();
  w.Key("name");
  w.String(name.c_str(), static_cast<rapidjson::SizeType>(name.size()));
  w.Key("namespace");
  w.String(ns.c_str(), static_cast<rapidjson::SizeType>(ns.size()));
  w.Key("uid");
  w.String(uid.c_str(), static_cast<rapidjson::SizeType>(uid.size()));
  w.EndObject();
  w.Key("target");
  w.StartObject();
  w.Key("apiVersion");
  w.String("v1");
  w.Key("kind");
  w.String("Node");
  w.Key("name");
  w.String(node.c_str(), static_cast<rapidjson::SizeType>(node.size()));
  w.EndObject();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

struct Post {
  std::string target;
  std::string body;
};
struct Get {
  std::string target;
};

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

template <typename Request>
net::awaitable<ApiAnswer> BindingClient::exchange(Request request) {
  std::unique_ptr<informers::ApiConnection> connection;
  if (idle_.empty()) {
    connection = std::make_unique<informers::ApiConnection>(executor_, config_, tls_, tokens_);
  } else {
    connection = std::move(idle_.back());
    idle_.pop_back();
  }
  ApiAnswer answer;
  try {
    informers::http::status status;
    if constexpr (std::is_same_v<Request, Post>) {
      status =
          co_await connection->post(std::move(request.target), std::move(request.body), timeout_);
    } else {
      status = co_await connection->get(std::move(request.target), timeout_);
    }
    answer.status = static_cast<unsigned>(status);
    std::string body;
    while (co_await connection->readSome(body, timeout_)) {
      if (body.size() > ApiAnswer::kMaxAnswerBytes) {
        connection->close();
        break;
      }
    }
    body.resize(std::min(body.size(), ApiAnswer::kMaxAnswerBytes));
    answer.body = std::move(body);
  } catch (const boost::system::system_error& e) {
    answer.failure = e.code().message();
    co_return answer;  // the connection is closed: dropped
  }
  idle_.push_back(std::move(connection));
  co_return answer;
}

net::awaitable<ApiAnswer> BindingClient::createBinding(const std::string& ns,
                                                       const std::string& name,
                                                       const std::string& uid,
                                                       const std::string& node) {
  co_return co_await exchange(
      Post{podPath(ns, name) + "/binding", bindingJson(ns, name, uid, node)});
}

net::awaitable<ApiAnswer> BindingClient::getPod(const std::string& ns, const std::string& name) {
  co_return co_await exchange(Get{podPath(ns, name)});
}

void BindingClient::close() {
  for (auto& connection : idle_) connection->close();
  idle_.clear();
}

}  // namespace scheduling::binding
