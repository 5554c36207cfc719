// Settings read from the environment: a variable that names one of a few choices.
#ifndef DFC_BASE_ENV_H_
#define DFC_BASE_ENV_H_

#include <cstdlib>
#include <initializer_list>
#include <iostream>
#include <mutex>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

namespace dfc {

// The choice $`name` names among `choices` (its spelling, its value). The first choice is the
// default: where the variable is unset or empty, and where it names none of them, which is
// warned of on stderr once for each type of choice.
template <typename T>
T EnvChoice(const char* name, std::initializer_list<std::pair<absl::string_view, T>> choices) {
  const char* set = std::getenv(name);
  const absl::string_view value = set != nullptr ? set : "";
  for (const auto& [spelling, choice] : choices) {
    if (value == spelling) return choice;
  }
  const std::pair<absl::string_view, T>& fallback = *choices.begin();
  if (!value.empty()) {
    static std::once_flag warned;
    std::call_once(warned, [&] {
      std::cerr << "dfc: " << name << "=" << value << " is none of "
                << absl::StrJoin(
                       choices, ", ",
                       [](std::string* out, const auto& c) { absl::StrAppend(out, c.first); })
                << "; using " << fallback.first << "\n";
    });
  }
  return fallback.second;
}

}  // namespace dfc

#endif  // DFC_BASE_ENV_H_
