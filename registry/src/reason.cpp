// Reason identities and the reason catalog loaded from registry/catalog/.
#include "ljcheck/reason.h"

#include <nlohmann/json.hpp>
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

ReasonId ReasonId::parse(std::string_view text) {
  auto colon = text.find(':');
  if (colon == std::string_view::npos) return {std::string(text), {}};
  return {std::string(text.substr(0, colon)), std::string(text.substr(colon + 1))};
}

std::string ReasonId::str() const { return subject.empty() ? code : code + ":" + subject; }

namespace {

template <typename T>
T required(const nlohmann::json& j, const char* key, const char* what) {
  if (!j.contains(key)) throw std::runtime_error(std::string(what) + ": missing field '" + key + "'");
  return j.at(key).get<T>();
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
