#include "scheduling/sources/api_source.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <random>

namespace scheduling::sources {

namespace net = boost::asio;

namespace {

// How long a change may wait to be published (see PublishThrottle).
constexpr std::chrono::milliseconds kPublishInterval{10};

}  // namespace

template <typename T>
struct ApiSource::Informer {
  Informer(informers::Resource resource, ApiSource& source, cache::Cache& cache,
           informers::InformerObserver& observer, const informers::ReflectorOptions& options)
      : connection(source.io_.get_executor(), source.config_, source.tls_, *source.tokens_),
        store(cache, source.publisher_),
        reflector(std::move(resource), connection, store, observer, options,
                  std::random_device{}()) {}

  informers::ApiConnection connection;
  informers::CacheStore<T> store;
  informers::Reflector<T> reflector;
};

class ApiSource::SyncNotifier final : public informers::InformerObserver {
 public:
  SyncNotifier(const ApiSource& source, informers::InformerObserver& next,
               std::function<void()> onSynced)
      : source_(source), next_(next), onSynced_(std::move(onSynced)) {}

  void watchEvent(std::string_view resource, std::string_view type) override {
    next_.watchEvent(resource, type);
  }
  void watchRestart(std::string_view resource, std::string_view reason, bool relist,
                    const std::string& detail) override {
    next_.watchRestart(resource, reason, relist, detail);
  }
  void listed(std::string_view resource, const informers::ListSummary& summary) override {
    next_.listed(resource, summary);
    if (summary.first && !notified_ && source_.synced()) {
      notified_ = true;
      if (onSynced_) onSynced_();
    }
  }

 private:
  const ApiSource& source_;
  informers::InformerObserver& next_;
  std::function<void()> onSynced_;
  bool notified_ = false;
};

ApiSource::ApiSource(informers::ClientConfig config, cache::Cache& cache,
                     informers::InformerObserver& observer, informers::ReflectorOptions options,
                     std::function<void()> onSynced)
    : config_(std::move(config)),
      notifier_(std::make_unique<SyncNotifier>(*this, observer, std::move(onSynced))),
      publisher_(io_.get_executor(), cache, kPublishInterval),
      tokens_(std::make_unique<informers::TokenSource>(config_)),
      tls_(config_.https ? informers::makeClientTlsContext(config_) : nullptr),
      namespaces_(std::make_unique<Informer<api::Namespace>>(informers::namespacesResource(), *this,
                                                             cache, *notifier_, options)),
      nodes_(std::make_unique<Informer<api::Node>>(informers::nodesResource(), *this, cache,
                                                   *notifier_, options)),
      pods_(std::make_unique<Informer<api::Pod>>(informers::podsResource(), *this, cache,
                                                 *notifier_, options)),
      podDisruptionBudgets_(std::make_unique<Informer<api::PodDisruptionBudget>>(
          informers::podDisruptionBudgetsResource(), *this, cache, *notifier_, options)) {}

ApiSource::~ApiSource() { stop(); }

void ApiSource::start() {
  net::co_spawn(io_, namespaces_->reflector.run(), net::detached);
  net::co_spawn(io_, nodes_->reflector.run(), net::detached);
  net::co_spawn(io_, pods_->reflector.run(), net::detached);
  net::co_spawn(io_, podDisruptionBudgets_->reflector.run(), net::detached);
  thread_ = std::thread([this] { io_.run(); });
}

void ApiSource::stop() {
  if (!thread_.joinable()) return;
  // On the informers' thread: each reflector cancels what it waits for and returns, and
  // run() ends when nothing is left.
  net::post(io_, [this] {
    namespaces_->reflector.stop();
    nodes_->reflector.stop();
    pods_->reflector.stop();
    podDisruptionBudgets_->reflector.stop();
  });
  thread_.join();
}

bool ApiSource::synced() const {
  return namespaces_->reflector.synced() && nodes_->reflector.synced() &&
         pods_->reflector.synced() && podDisruptionBudgets_->reflector.synced();
}

std::array<ApiSource::WatchStatus, 4> ApiSource::watchStatus() const {
  const auto of = [](const auto& reflector) {
    return WatchStatus{reflector.resource().name, reflector.lastHeard(), reflector.backlogBytes()};
  };
  return {of(namespaces_->reflector), of(nodes_->reflector), of(pods_->reflector),
          of(podDisruptionBudgets_->reflector)};
}

}  // namespace scheduling::sources
