// The target that builds tests/test_pch.h once for every test executable (CMakeLists.txt).
#include "gtest/gtest.h"

TEST(PrecompiledHeader, Builds) { SUCCEED(); }
