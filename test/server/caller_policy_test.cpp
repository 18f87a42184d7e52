#include "server/caller_policy.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <optional>
#include <ostream>

namespace {

using server::RouteGroup;

struct PolicyCase {
  std::string name;
  bool requireClientCertificate;
  std::vector<std::string> allowedNames;
  RouteGroup group;
  std::optional<server::ClientCertificate> certificate;  // nullopt: none presented
  unsigned wantStatus;                                   // 0: allowed
  std::string wantMessage;
};
std::ostream& operator<<(std::ostream& out, const PolicyCase& c) { return out << c.name; }

const server::ClientCertificate kScheduler{"kube-scheduler", {}};
const server::ClientCertificate kBySan{"robot", {"a.example", "kube-scheduler.scheduling.svc"}};
const server::ClientCertificate kOther{"other-workload", {"other.example"}};
const std::vector<std::string> kAllowed = {"kube-scheduler", "kube-scheduler.scheduling.svc"};
const std::string kNeedsCertificate = "a client certificate signed by --client-ca-file is required";

const std::vector<PolicyCase> kCases = {
    {"plain HTTP lets anyone schedule", false, {}, RouteGroup::Scheduling, std::nullopt, 0, ""},
    {"mutual TLS: any signed certificate schedules",
     true,
     {},
     RouteGroup::Scheduling,
     kOther,
     0,
     ""},
    {"mutual TLS: no certificate may not schedule",
     true,
     {},
     RouteGroup::Scheduling,
     std::nullopt,
     401,
     kNeedsCertificate},
    {"mutual TLS: no certificate may not scrape",
     true,
     {},
     RouteGroup::Metrics,
     std::nullopt,
     401,
     kNeedsCertificate},
    {"mutual TLS: no certificate may probe", true, {}, RouteGroup::Probe, std::nullopt, 0, ""},
    {"allowed by CN", true, kAllowed, RouteGroup::Scheduling, kScheduler, 0, ""},
    {"allowed by a DNS SAN", true, kAllowed, RouteGroup::Scheduling, kBySan, 0, ""},
    {"another name may not schedule", true, kAllowed, RouteGroup::Scheduling, kOther, 403,
     "client certificate CN=other-workload, DNS:other.example is not in "
     "--allowed-client-names"},
    {"another name may scrape", true, kAllowed, RouteGroup::Metrics, kOther, 0, ""},
    {"another name may probe", true, kAllowed, RouteGroup::Probe, kOther, 0, ""},
    {"names are compared whole",
     true,
     {"kube"},
     RouteGroup::Scheduling,
     kScheduler,
     403,
     "client certificate CN=kube-scheduler is not in --allowed-client-names"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(caller_policy)

BOOST_DATA_TEST_CASE(refuses_callers_by_certificate_and_name, boost::unit_test::data::make(kCases),
                     c) {
  const server::CallerPolicy policy(c.requireClientCertificate, c.allowedNames);
  server::Caller caller;
  if (c.certificate)
    caller.certificate = std::make_shared<server::ClientCertificate>(*c.certificate);
  const auto refusal = policy.refusal(c.group, caller);
  BOOST_TEST(static_cast<unsigned>(refusal ? refusal->status : boost::beast::http::status{}) ==
             c.wantStatus);
  if (refusal) BOOST_TEST(refusal->message == c.wantMessage);
}

BOOST_AUTO_TEST_CASE(the_default_policy_refuses_nobody) {
  const server::CallerPolicy anyone;
  for (auto group : {RouteGroup::Scheduling, RouteGroup::Probe, RouteGroup::Metrics}) {
    BOOST_TEST(!anyone.refusal(group, {}).has_value());
  }
}

BOOST_AUTO_TEST_SUITE_END()
