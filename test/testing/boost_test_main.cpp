// The single definition of Boost.Test's entry point, shared by every test executable.
#define BOOST_TEST_MODULE scheduler-extender
#include <boost/test/unit_test.hpp>
