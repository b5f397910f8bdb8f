// Names of a prediction's context and confidence, and of directive problems,
// as reports spell them.
#include "ljcheck/prediction.h"

namespace ljcheck {

std::string_view toString(Context c) {
  switch (c) {
    case Context::Loop: return "loop";
    case Context::Function: return "function";
    case Context::Main: return "main";
  }
  return "function";
}

std::string_view toString(Confidence c) {
  switch (c) {
    case Confidence::Certain: return "certain";
    case Confidence::Likely: return "likely";
    case Confidence::Possible: return "possible";
  }
  return "likely";
}

std::optional<Confidence> parseConfidence(std::string_view text) {
  for (Confidence c : {Confidence::Certain, Confidence::Likely, Confidence::Possible})
    if (text == toString(c)) return c;
  return std::nullopt;
}

std::string_view directiveId(DirectiveProblem::Kind kind) {
  switch (kind) {
    case DirectiveProblem::Kind::UnpairedPush: return "unpaired-push";
    case DirectiveProblem::Kind::UnpairedPop: return "unpaired-pop";
    case DirectiveProblem::Kind::UnusedAllow: return "unused-allow";
    case DirectiveProblem::Kind::UnknownReason: return "unknown-reason";
  }
  return "unused-allow";
}

}  // namespace ljcheck
