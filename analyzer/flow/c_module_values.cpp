// Values of C modules as objects, for the value tracker (values.h). What a
// C module's function returns is a userdata of the module (an lpeg pattern,
// a directory object of lfs), C data the code cannot tell from a number or
// a string (socket.gettime(), lfs.currentdir()). The file shows which when
// it treats the module's values as objects:
//   - an operator with an operand no number has (p / "", p * {}, p + f):
//     only a metamethod makes that work;
//   - a method call (`p:match(s)`), unless it may be a string method on a
//     string (`d:match("^%a+")`: a string library name with a string
//     argument).
// An operator on an object calls its metamethod, C code of the module
// (rules/c_metamethods.cpp). A running sum of such values (n = n + t) is
// taken for arithmetic on numbers and not noted.
#include <cstdlib>
#include <string>

#include "flow/instruction_effects.h"
#include "flow/values.h"

namespace ljcheck::flow {

using bytecode::Instruction;
using bytecode::Op;
using bytecode::Prototype;
using Kind = Value::Kind;

namespace {

// A string Lua's arithmetic coerces to a number (" 12 ", "0x1f", "1e3").
bool isNumeral(std::string_view text) {
  std::string s(text);
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return false;
  while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r') ++end;
  return *end == '\0';
}

// An operand that makes arithmetic raise an error unless a metamethod handles it.
bool cannotBeNumber(const Value& v) {
  if (v.reassignable) return false;
  switch (v.kind) {
    case Kind::Table: case Kind::LuaFunction: case Kind::LibFunction: case Kind::CFunction: case Kind::LibTable:
    case Kind::Boolean: case Kind::Nil: case Kind::CModule: case Kind::CModuleFunction: case Kind::Instance:
      return true;
    case Kind::String:
      return v.constant && !isNumeral(v.text());
    default:
      return false;
  }
}

// "lpeg.P():match" -> "match".
std::string_view methodName(const Value& method) {
  std::size_t colon = method.name.rfind(':');
  return colon == std::string_view::npos ? std::string_view() : method.name.substr(colon + 1);
}

}  // namespace

std::string_view metamethodOf(Op op) {
  switch (op) {
    case Op::ADDVV: case Op::ADDVN: case Op::ADDNV: return "__add";
    case Op::SUBVV: case Op::SUBVN: case Op::SUBNV: return "__sub";
    case Op::MULVV: case Op::MULVN: case Op::MULNV: return "__mul";
    case Op::DIVVV: case Op::DIVVN: case Op::DIVNV: return "__div";
    case Op::MODVV: case Op::MODVN: case Op::MODNV: return "__mod";
    case Op::POW: return "__pow";
    case Op::UNM: return "__unm";
    case Op::LEN: return "__len";
    default: return {};
  }
}

std::string_view operatorOf(Op op) {
  switch (op) {
    case Op::ADDVV: case Op::ADDVN: case Op::ADDNV: return "+";
    case Op::SUBVV: case Op::SUBVN: case Op::SUBNV: case Op::UNM: return "-";
    case Op::MULVV: case Op::MULVN: case Op::MULNV: return "*";
    case Op::DIVVV: case Op::DIVVN: case Op::DIVNV: return "/";
    case Op::MODVV: case Op::MODVN: case Op::MODNV: return "%";
    case Op::POW: return "^";
    case Op::LEN: return "#";
    default: return {};
  }
}

bool ValueMap::operandsOf(const Instruction& ins, const Registers& regs, Value& left, Value& right) {
  auto reg = [&](int s) -> Value {
    if (s < 0 || static_cast<std::size_t>(s) >= regs.size()) return {};
    const Value& v = regs[static_cast<std::size_t>(s)];
    return v.reassignable ? Value{} : v;
  };
  if (isBinaryArithmetic(ins.op)) {
    left = reg(ins.b);
    right = reg(ins.c);
  } else if (ins.op == Op::UNM || ins.op == Op::LEN) {
    left = reg(ins.d);
  } else if (isArithmeticWithConstant(ins.op)) {
    left = reg(ins.b);  // the other operand is a number constant, which has no metamethod
  } else {
    return false;
  }
  return true;
}

void ValueMap::noteCModuleOperation(const Prototype&, const Instruction& ins, int pc, const Registers& regs,
                                    TableUses& uses) {
  Value a, b;
  if (!operandsOf(ins, regs, a, b)) return;
  bool first = a.is(Kind::CModuleResult);
  if (!first && !b.is(Kind::CModuleResult)) return;
  // A running total (sum = sum + socket.gettime(): the result goes back
  // into the slot of the operand that is no value of the module) is taken
  // for arithmetic on numbers.
  const Value& other = first ? b : a;
  int otherSlot = first ? ins.c : ins.b;
  if (isBinaryArithmetic(ins.op) && ins.a == otherSlot && !other.is(Kind::CModuleResult) && !other.constant) return;
  CModuleOperation op;
  op.pc = pc;
  op.object = first ? a : b;
  op.needsMetamethod = isBinaryArithmetic(ins.op) && cannotBeNumber(other);
  uses.cModuleOperations.push_back(op);
}

Value ValueMap::cModuleResult(const Value& function) {
  if (!function.is(Kind::CModuleFunction) || function.pc == 1) return {};
  return Value::ofCModule(Kind::CModuleResult, function.cModuleName(), intern(std::string(function.name) + "()"));
}

std::string ValueMap::cModuleObjectEvidence(std::string_view module) const {
  if (!cModuleObjects_) findCModuleObjects();
  auto it = cModuleObjects_->find(module);
  return it == cModuleObjects_->end() ? std::string() : it->second;
}

// The first use (by line) per module that shows its values are objects.
void ValueMap::findCModuleObjects() const {
  cModuleObjects_ = std::make_unique<std::map<std::string, std::string, std::less<>>>();
  std::map<std::string, int, std::less<>> firstLine;
  auto note = [&](std::string_view module, int line, std::string clause) {
    auto [it, inserted] = firstLine.emplace(std::string(module), line);
    if (!inserted && it->second <= line) return;
    it->second = line;
    (*cModuleObjects_)[std::string(module)] = std::move(clause) + " at line " + std::to_string(line);
  };
  for (std::size_t i = 0; i < protos_.size(); ++i) {
    const Prototype& p = chunk_.prototypes[i];
    for (const auto& op : protos_[i].cModuleOperations) {
      if (!op.needsMetamethod) continue;
      const Instruction& ins = p.at(op.pc);
      note(op.object.cModuleName(), ins.line,
           "`" + std::string(operatorOf(ins.op)) + "` on one takes an operand no number has");
    }
    const Snapshots& kept = protos_[i].before;
    for (std::size_t k = 0; k < kept.pcs.size(); ++k) {
      const Instruction& ins = p.at(kept.pcs[k]);
      RegisterView regs = kept.state(k);
      if (!isCall(ins.op) || ins.a >= regs.size()) continue;
      const Value& callee = regs[ins.a];
      if (!callee.is(Kind::CModuleFunction) || callee.pc != 1) continue;
      std::string_view method = methodName(callee);
      // d:match("^%a+") may be the string library's match on a string.
      if (profile_.fastFunction("string." + std::string(method))) {
        int arg = argumentSlot(chunk_, ins, 1);
        bool stringArgument = fixedArgs(ins) >= 2 && static_cast<std::size_t>(arg) < regs.size() &&
                              regs[static_cast<std::size_t>(arg)].kind == Kind::String;
        if (stringArgument || fixedArgs(ins) < 2) continue;
      }
      note(callee.cModuleName(), ins.line, "`:" + std::string(method) + "` is called on one");
    }
  }
}

}  // namespace ljcheck::flow
