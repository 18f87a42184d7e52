#include "scheduling/api/boxed_optional.hpp"

#include <boost/test/unit_test.hpp>
#include <optional>
#include <string>

namespace scheduling::api {
namespace {

BOOST_AUTO_TEST_SUITE(BoxedOptionalTest)

// Reads and compares like std::optional: absent by default, equal when both are absent or
// both hold equal values.
BOOST_AUTO_TEST_CASE(ComparesLikeAnOptional) {
  const BoxedOptional<std::string> absent;
  const BoxedOptional<std::string> alsoAbsent = std::nullopt;
  const BoxedOptional<std::string> a = std::string("2024-05-01T10:00:00Z");
  BOOST_TEST(!absent.has_value());
  BOOST_TEST(!static_cast<bool>(alsoAbsent));
  BOOST_TEST(a.has_value());
  BOOST_TEST(*a == "2024-05-01T10:00:00Z");
  BOOST_TEST(a->size() == 20U);
  BOOST_TEST((absent == alsoAbsent));
  BOOST_TEST(!(absent == a));
  BOOST_TEST((a == BoxedOptional<std::string>(std::string("2024-05-01T10:00:00Z"))));
  BOOST_TEST(!(a == BoxedOptional<std::string>(std::string("2024-05-01T10:00:01Z"))));
}

// A copy owns its own value: changing either leaves the other as it was.
BOOST_AUTO_TEST_CASE(CopiesCopyTheValue) {
  BoxedOptional<std::string> original = std::string("a");
  BoxedOptional<std::string> copy = original;
  copy->append("b");
  BOOST_TEST(*original == "a");
  BOOST_TEST(*copy == "ab");
  BoxedOptional<std::string> assigned;
  assigned = original;
  original.reset();
  BOOST_TEST(!original.has_value());
  BOOST_TEST(*assigned == "a");
  const BoxedOptional<std::string>& same = assigned;
  assigned = same;  // assigning itself keeps the value
  BOOST_TEST(*assigned == "a");
  BOOST_TEST(assigned.emplace("c") == "c");
  BOOST_TEST(*assigned == "c");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::api
