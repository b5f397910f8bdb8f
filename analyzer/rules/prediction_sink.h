// Turns rule findings into Predictions: class and severity from the catalog,
// raised by context (a blocker in a loop body predicts blacklisting), line
// from the bytecode, enclosing function name from the parent's bytecode.
#pragma once

#include "rules/rule.h"

namespace ljcheck::rules {

class CollectingSink final : public PredictionSink {
 public:
  explicit CollectingSink(std::string path) : path_(std::move(path)) {}
  void report(const FunctionView& fn, Finding finding) override;
  std::vector<Prediction> take() { return std::move(predictions_); }

 private:
  std::string path_;
  std::vector<Prediction> predictions_;
};

// "name" for a named function, "<main>" for the chunk, "<anonymous:LINE>".
std::string functionName(const bytecode::Chunk& chunk, std::size_t index);

}  // namespace ljcheck::rules
