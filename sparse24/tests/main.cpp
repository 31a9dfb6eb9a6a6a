// The one Catch2 main of the 2:4 CPU tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
