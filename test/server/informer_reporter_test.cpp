// What /readyz says while the informers have not listed: the last failure of each.
#include "server/informer_reporter.hpp"

#include <boost/test/unit_test.hpp>

namespace server {
namespace {

BOOST_AUTO_TEST_SUITE(informer_reporter)

const std::string kForbidden =
    R"(LIST 403 Forbidden: pods is forbidden: User "system:serviceaccount:s:x" cannot list resource "pods" in API group "" at the cluster scope)";

BOOST_AUTO_TEST_CASE(a_failed_first_list_is_the_reason_until_it_lists) {
  Metrics metrics;
  InformerReporter reporter(metrics);
  BOOST_TEST(reporter.unsyncedReason() == "");
  reporter.watchRestart("pods", "list_error", true, "LIST 500 Internal Server Error");
  reporter.watchRestart("pods", "list_error", true, kForbidden);
  reporter.watchRestart("nodes", "list_error", true, "connection refused");
  // The latest failure of each, in a stable order.
  BOOST_TEST(reporter.unsyncedReason() == "nodes: connection refused; pods: " + kForbidden);
  reporter.listed("pods", {.first = true});
  BOOST_TEST(reporter.unsyncedReason() == "nodes: connection refused");
}

BOOST_AUTO_TEST_CASE(failures_after_the_first_list_are_the_watchs_not_readinesss) {
  Metrics metrics;
  InformerReporter reporter(metrics);
  reporter.listed("pods", {.first = true});
  reporter.watchRestart("pods", "expired", true, "WATCH 410 Gone: too old resource version");
  BOOST_TEST(reporter.unsyncedReason() == "");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace server
