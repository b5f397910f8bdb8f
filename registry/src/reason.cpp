// Reason identities and the reason catalog loaded from registry/catalog/.
#include "ljcheck/reason.h"

#include <nlohmann/json.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <stdexcept>

#include "builtin_data.h"

namespace ljcheck {

std::string_view toString(ReasonClass c) {
  switch (c) {
    case ReasonClass::Blocker: return "blocker";
    case ReasonClass::Risk: return "risk";
    case ReasonClass::Stop: return "stop";
  }
  return "risk";
}

std::string_view toString(Severity s) {
  switch (s) {
    case Severity::Info: return "info";
    case Severity::Warn: return "warn";
    case Severity::Blacklist: return "blacklist";
  }
  return "warn";
}

std::optional<ReasonClass> parseReasonClass(std::string_view text) {
  if (text == "blocker") return ReasonClass::Blocker;
  if (text == "risk") return ReasonClass::Risk;
  if (text == "stop") return ReasonClass::Stop;
  return std::nullopt;
}

std::optional<Severity> parseSeverity(std::string_view text) {
  if (text == "info") return Severity::Info;
  if (text == "warn" || text == "warning") return Severity::Warn;
  if (text == "blacklist") return Severity::Blacklist;
  return std::nullopt;
}

ReasonId ReasonId::traceError(std::string_view code, std::string_view subject) {
  return {std::string(code), traceErrorHasSubject(code) ? std::string(subject) : std::string()};
}

ReasonId ReasonId::refusedBytecode(std::string_view bytecode) { return traceError("NYIBC", bytecode); }

ReasonId ReasonId::refusedFastFunction(std::string_view ffname) { return traceError("NYIFFU", ffname); }

ReasonId ReasonId::split(SplitKind kind, std::string_view builtin) {
  return {kind == SplitKind::Stitch ? "STITCH" : "RETURN", std::string(builtin)};
}

ReasonId ReasonId::parse(std::string_view text) {
  auto colon = text.find(':');
  if (colon == std::string_view::npos) return {std::string(text), {}};
  return {std::string(text.substr(0, colon)), std::string(text.substr(colon + 1))};
}

std::string ReasonId::str() const { return subject_.empty() ? code_ : code_ + ":" + subject_; }

bool ReasonId::operator<(const ReasonId& o) const {
  // Compares the "CODE:SUBJECT" strings: the codes, then what follows the
  // shorter code (':' and the subject, or the rest of the longer code).
  std::size_t common = std::min(code_.size(), o.code_.size());
  if (int c = code_.compare(0, common, o.code_, 0, common); c != 0) return c < 0;
  if (code_.size() == o.code_.size()) return subject_ < o.subject_;
  auto rest = [common](const ReasonId& r) {
    std::string tail = r.code_.substr(common);
    return r.subject_.empty() ? tail : tail + ":" + r.subject_;
  };
  return rest(*this) < rest(o);
}

bool traceErrorHasSubject(std::string_view code) { return code == "NYIBC" || code == "NYIFFU" || code == "NYIIR"; }

namespace {

template <typename T>
T required(const nlohmann::json& j, const char* key, const char* what) {
  if (!j.contains(key)) throw std::runtime_error(std::string(what) + ": missing field '" + key + "'");
  if constexpr (std::is_same_v<T, int>) {
    // A float out of int's range (1e92) would convert with undefined
    // behaviour inside get<int>() (found by the fuzz campaign under UBSan).
    const auto& v = j.at(key);
    if (!v.is_number_integer() || v.get<std::int64_t>() < std::numeric_limits<int>::min() ||
        v.get<std::int64_t>() > std::numeric_limits<int>::max())
      throw std::runtime_error(std::string(what) + ": field '" + key + "' must be a whole number, not " + v.dump());
    return static_cast<int>(v.get<std::int64_t>());
  } else {
    return j.at(key).get<T>();
  }
}

}  // namespace

ReasonCatalog ReasonCatalog::fromJson(std::string_view text) {
  ReasonCatalog c;
  try {
    auto j = nlohmann::json::parse(text);
    c.id_ = required<std::string>(j, "catalogId", "reason catalog");
    c.version_ = required<int>(j, "catalogVersion", "reason catalog");
    for (const auto& r : j.at("reasons")) {
      Reason reason;
      reason.code = required<std::string>(r, "code", "reason");
      reason.kind = r.value("kind", "traceError");
      auto cls = parseReasonClass(required<std::string>(r, "class", "reason"));
      auto sev = parseSeverity(required<std::string>(r, "severity", "reason"));
      if (!cls || !sev) throw std::runtime_error("reason " + reason.code + ": bad class or severity");
      reason.reasonClass = *cls;
      reason.severity = *sev;
      reason.benign = r.value("benign", false);
      reason.processWide = r.value("processWide", false);
      reason.title = r.value("title", "");
      reason.explanation = r.value("explanation", "");
      reason.advice = r.value("advice", "");
      c.reasons_.push_back(std::move(reason));
    }
    for (const auto& a : j.value("aliases", nlohmann::json::array())) {
      c.aliases_.push_back({required<int>(a, "sinceVersion", "alias"),
                            required<std::string>(a, "from", "alias"),
                            required<std::string>(a, "to", "alias"), a.value("why", "")});
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("reason catalog: ") + e.what());
  }
  return c;
}

const ReasonCatalog& ReasonCatalog::builtin() {
  static const ReasonCatalog catalog = [] {
    for (const EmbeddedFile* f = kCatalogFiles; f->name; ++f) return fromJson(f->contents);
    throw std::runtime_error("no reason catalog compiled in");
  }();
  return catalog;
}

const Reason* ReasonCatalog::find(std::string_view code) const {
  for (const auto& r : reasons_)
    if (r.code == code) return &r;
  return nullptr;
}

std::string ReasonCatalog::upgrade(std::string_view reasonId, int writtenUnder) const {
  std::string id(reasonId);
  for (const auto& a : aliases_) {
    if (writtenUnder >= a.sinceVersion) continue;
    if (id == a.from) {
      id = a.to;
    } else if (id.rfind(a.from + ":", 0) == 0 && a.from.find(':') == std::string::npos) {
      id = a.to + id.substr(a.from.size());
    }
  }
  return id;
}

}  // namespace ljcheck
