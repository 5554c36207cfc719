// The precompiled header of every test executable (CMakeLists.txt): GoogleTest's and GoogleMock's
// headers, which cost a third of a test file's compile time here, and the test helpers most
// tests include. Test files still include what they use themselves.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"
