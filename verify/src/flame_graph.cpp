// The sampled stacks as an inline SVG flame graph: frames merged into a tree
// from the root, widths by weight, root at the bottom, each frame coloured
// by the VM state most of its samples were taken in.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

#include "html_text.h"
#include "ljcheck/verification_report.h"

namespace ljcheck {
namespace {

constexpr int kRowHeight = 17;
constexpr double kMinWidth = 0.4;  // narrower frames are not drawn (their weight still counts in the parent)

struct Node {
  std::string name;
  double weight = 0;
  std::map<std::string, double> byState;
  std::vector<std::unique_ptr<Node>> children;
  std::map<std::string, std::size_t> index;

  Node& child(const std::string& frame) {
    auto [it, added] = index.emplace(frame, children.size());
    if (added) {
      children.push_back(std::make_unique<Node>());
      children.back()->name = frame;
    }
    return *children[it->second];
  }
  std::string dominantState() const {
    auto best = std::max_element(byState.begin(), byState.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    return best == byState.end() ? "" : best->first;
  }
};

int depthOf(const Node& n) {
  int deepest = 0;
  for (const auto& c : n.children) deepest = std::max(deepest, depthOf(*c));
  return deepest + 1;
}

struct Layout {
  std::string& svg;
  double scale;  // pixels per unit of weight
  int height;
  const std::string& unit;
  double total;
};

void draw(const Layout& l, const Node& n, double x, int depth) {
  double width = n.weight * l.scale;
  if (width < kMinWidth) return;
  if (depth >= 0) {
    std::string state = n.dominantState();
    std::string tip = fmt::format("{}\n{:g} {} ({:.1f}%)", n.name, n.weight, l.unit, 100.0 * n.weight / l.total);
    for (const auto& [s, w] : n.byState)
      tip += fmt::format("\n{}: {:.0f}%", stateLabel(s), 100.0 * w / n.weight);
    int y = l.height - (depth + 1) * kRowHeight;
    l.svg += fmt::format(R"(<g class="frame" data-state="{}"><title>{}</title><rect class="s-{}" x="{:.2f}" y="{}" width="{:.2f}" height="{}" rx="2"/>)",
                         state.empty() ? "unknown" : state, htmlEscape(tip), state.empty() ? "unknown" : state, x, y,
                         width, kRowHeight - 1);
    std::size_t fits = width > 24 ? static_cast<std::size_t>((width - 6) / 7) : 0;
    if (fits > 0) {
      std::string label = n.name.size() <= fits ? n.name : n.name.substr(0, fits > 2 ? fits - 2 : fits) + "..";
      l.svg += fmt::format(R"(<text x="{:.2f}" y="{}">{}</text>)", x + 3, y + kRowHeight - 5, htmlEscape(label));
    }
    l.svg += "</g>";
  }
  for (const auto& c : n.children) {
    draw(l, *c, x, depth + 1);
    x += c->weight * l.scale;
  }
}

}  // namespace

std::string flameGraphSvg(const SampledStacks& stacks, int width) {
  Node root;
  for (const auto& s : stacks.stacks) {
    if (s.weight <= 0) continue;
    Node* n = &root;
    n->weight += s.weight;
    for (const auto& frame : s.frames) {
      n = &n->child(frame);
      n->weight += s.weight;
      n->byState[s.state] += s.weight;
    }
  }
  if (root.weight <= 0) return "";
  int depth = depthOf(root) - 1;
  int height = depth * kRowHeight;
  std::string svg = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" class="flame" width="{}" height="{}" viewBox="0 0 {} {}" role="img" aria-label="flame graph of {:g} {}">)",
      width, height, width, height, root.weight, htmlEscape(stacks.unit));
  Layout layout{svg, static_cast<double>(width) / root.weight, height, stacks.unit, root.weight};
  draw(layout, root, 0, -1);
  svg += "</svg>";
  return svg;
}

}  // namespace ljcheck
