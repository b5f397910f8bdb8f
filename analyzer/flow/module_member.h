// How values name what another module of the project holds (Value::Kind
// ModuleMember and ModuleResult): "a.b:f" (member f of require("a.b")),
// "a.b:T.f" (f of a table the module table holds), "a.b:f()" (what f
// returns), "a.b:f():m" (method m of the object f returns). The module name
// has no ':'; everything after the first one is the member, the key other
// files' exports are found under (FileLinks).
#pragma once

#include <string>
#include <string_view>

namespace ljcheck::flow {

// The member a module that returns a function itself exports it under:
// `local split = require("a.b")` then `split(s)` calls "a.b:@".
inline constexpr std::string_view kModuleItself = "@";

// A member "f():m" or "T.f():m" split: the function whose result has the
// method ("f", "T.f") and the method ("m"). `held` is the table of the
// module table the function sits in, as a member prefix ("T." or "").
struct ResultMethod {
  std::string_view maker, method;
  std::string held() const {
    const std::size_t dot = maker.rfind('.');
    return dot == std::string_view::npos ? std::string() : std::string(maker.substr(0, dot + 1));
  }
  // Empty maker and method for a member that names no method of a result.
  static ResultMethod of(std::string_view member) {
    const std::size_t object = member.rfind("():");
    if (object == std::string_view::npos) return {};
    return {member.substr(0, object), member.substr(object + 3)};
  }
  bool valid() const { return !method.empty(); }
};

struct ModuleMemberName {
  std::string_view module;  // "a.b"
  std::string_view member;  // "f", "T.f", "f()", "f():m", or kModuleItself

  // Empty module and member when `name` has no ':'.
  static ModuleMemberName parse(std::string_view name) {
    std::size_t colon = name.find(':');
    if (colon == std::string_view::npos) return {};
    return {name.substr(0, colon), name.substr(colon + 1)};
  }
  bool valid() const { return !module.empty() && !member.empty(); }
  // What a function returns, or a method of it ("f()", "f():m").
  bool namesResult() const { return member.find("()") != std::string_view::npos; }
  // A method of an object a function returns ("f():m").
  bool isMethodOfResult() const { return member.find("():") != std::string_view::npos; }
  // As the code spells it: "a.b.f", "a.b.f():m"; require("a.b") for the
  // function the module returns.
  std::string asWritten() const {
    if (member == kModuleItself) return "require(\"" + std::string(module) + "\")";
    return std::string(module) + "." + std::string(member);
  }
  // For a sentence: "m, a method of the object a.b.f() returns", "the
  // function a.b.f() returns", "a.b.f".
  std::string described() const {
    if (member == kModuleItself) return "the function require(\"" + std::string(module) + "\") returns";
    if (std::size_t object = member.find("():"); object != std::string_view::npos)
      return std::string(member.substr(object + 3)) + ", a method of the object " + std::string(module) + "." +
             std::string(member.substr(0, object)) + "() returns";
    if (member.size() > 2 && member.substr(member.size() - 2) == "()")
      return "the function " + asWritten() + " returns";
    return asWritten();
  }
};

}  // namespace ljcheck::flow
