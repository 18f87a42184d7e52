#include "scheduling/informers/token_source.hpp"

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>

BOOST_AUTO_TEST_SUITE(token_source)

// A projected service-account token is rewritten by the kubelet; the next read after the
// refresh interval sends the new one.
BOOST_AUTO_TEST_CASE(a_token_file_is_read_again_after_the_refresh_interval) {
  const auto path =
      std::filesystem::temp_directory_path() / ("sx-token-" + std::to_string(::getpid()));
  std::ofstream(path) << "first\n";
  scheduling::informers::ClientConfig config;
  config.tokenFile = path.string();
  scheduling::informers::TokenSource everyTime(config, std::chrono::seconds(0));
  scheduling::informers::TokenSource hourly(config, std::chrono::hours(1));
  BOOST_TEST(everyTime.token() == "first");
  BOOST_TEST(hourly.token() == "first");
  std::ofstream(path) << "second";
  BOOST_TEST(everyTime.token() == "second");
  BOOST_TEST(hourly.token() == "first");
  // A vanished file keeps the last good token rather than sending none.
  std::filesystem::remove(path);
  BOOST_TEST(everyTime.token() == "second");
}

BOOST_AUTO_TEST_CASE(a_kubeconfig_token_wins_over_its_file) {
  scheduling::informers::ClientConfig config;
  config.bearerToken = "inline";
  config.tokenFile = "/nonexistent";
  BOOST_TEST(scheduling::informers::TokenSource(config).token() == "inline");
}

BOOST_AUTO_TEST_SUITE_END()
