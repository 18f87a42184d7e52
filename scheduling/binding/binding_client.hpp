#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "scheduling/informers/api_connection.hpp"
#include "scheduling/informers/client_config.hpp"
#include "scheduling/informers/token_source.hpp"

namespace scheduling::binding {

// One API server answer, or why there was none.
struct ApiAnswer {
  unsigned status = 0;  // 0: no answer (see `failure`)
  std::string body;     // at most kMaxAnswerBytes of it
  std::string failure;  // the transport error when there was no answer
  static constexpr std::size_t kMaxAnswerBytes = 1 << 20;
};

// The API server requests of a binding, as DefaultBinder's client makes them: create a pod's
// Binding subresource, and read a pod. Requests run concurrently, each on a kept-alive
// connection of its own that is reused once idle. Runs on one executor; not thread-safe.
class BindingClient {
 public:
  BindingClient(boost::asio::any_io_executor executor, const informers::ClientConfig& config,
                std::shared_ptr<boost::asio::ssl::context> tls, informers::TokenSource& tokens,
                std::chrono::seconds timeout);
  ~BindingClient();

  // POST /api/v1/namespaces/{ns}/pods/{name}/binding: a v1 Binding whose metadata.uid, unless
  // empty, is a precondition (the API server refuses a pod recreated under the same name) and
  // whose target is the node.
  boost::asio::awaitable<ApiAnswer> createBinding(const std::string& ns, const std::string& name,
                                                  const std::string& uid, const std::string& node);
  // GET /api/v1/namespaces/{ns}/pods/{name}.
  boost::asio::awaitable<ApiAnswer> getPod(const std::string& ns, const std::string& name);

  // Closes the idle connections (the binder stops).
  void close();

 private:
  // A POST of `body`, or a GET when it is null.
  boost::asio::awaitable<ApiAnswer> exchange(const std::string& target, const std::string* body);

  boost::asio::any_io_executor executor_;
  const informers::ClientConfig& config_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
  informers::TokenSource& tokens_;
  std::chrono::seconds timeout_;
  std::vector<std::unique_ptr<informers::ApiConnection>> idle_;
};

}  // namespace scheduling::binding
