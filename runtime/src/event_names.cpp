// Names for the event recorder (see ljcheck/event_recorder.h): thread and VM
// names in append-only tables whose writers publish the count with release
// ordering after writing the entry, so a reader that loads the count with
// acquire ordering sees whole entries without a lock; and the label table
// (zone names, scope labels, chunk names), interned under a mutex.
#include <atomic>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

#include "ljcheck/event_recorder.h"

namespace ljcheck {
namespace {

class NameTable {
 public:
  constexpr NameTable() = default;

  void set(std::uint32_t id, std::string_view name) {
    std::lock_guard<std::mutex> lock(writers_);
    std::size_t n = count_.load(std::memory_order_relaxed);
    if (n == kCapacity) return;  // full: later names are not kept
    Entry& e = entries_[n];
    e.id = id;
    std::size_t length = name.size() < kNameBytes - 1 ? name.size() : kNameBytes - 1;
    std::memcpy(e.name, name.data(), length);
    e.name[length] = '\0';
    count_.store(n + 1, std::memory_order_release);  // the entry first, then the count
  }

  // The newest name given to id, or "".
  std::string get(std::uint32_t id) const {
    std::size_t n = count_.load(std::memory_order_acquire);
    for (std::size_t i = n; i-- > 0;)
      if (entries_[i].id == id) return entries_[i].name;
    return {};
  }

 private:
  static constexpr std::size_t kCapacity = 4096;
  static constexpr std::size_t kNameBytes = 64;
  struct Entry {
    std::uint32_t id = 0;
    char name[kNameBytes] = {};
  };
  std::mutex writers_;
  std::atomic<std::size_t> count_{0};
  Entry entries_[kCapacity];
};

// Never destroyed, like the recorder: thread-exit code may still name things.
union NameStorage {
  constexpr NameStorage() : threads() {}
  ~NameStorage() {}
  NameTable threads;
};
union VmNameStorage {
  constexpr VmNameStorage() : vms() {}
  ~VmNameStorage() {}
  NameTable vms;
};
NameStorage gThreadNames;
VmNameStorage gVmNames;

struct LabelTable {
  std::mutex mutex;
  std::deque<std::string> texts{std::string()};  // id 0: ""
  std::unordered_map<std::string_view, LabelId> ids{{std::string_view(), 0}};
};

LabelTable& labels() {
  static LabelTable* table = new LabelTable();  // never destroyed
  return *table;
}

}  // namespace

void nameThread(std::string_view name, std::uint32_t threadId) {
  if (threadId == 0) threadId = currentThreadId();
  if (threadId != 0) gThreadNames.threads.set(threadId, name);
}

void nameVm(std::uint32_t vmId, std::string_view name) { gVmNames.vms.set(vmId, name); }

std::string threadName(std::uint32_t threadId) { return gThreadNames.threads.get(threadId); }

std::string vmName(std::uint32_t vmId) { return gVmNames.vms.get(vmId); }

LabelId internLabel(std::string_view text) {
  LabelTable& t = labels();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.ids.find(text);
  if (it != t.ids.end()) return it->second;
  const std::string& stored = t.texts.emplace_back(text);
  auto id = static_cast<LabelId>(t.texts.size() - 1);
  t.ids.emplace(std::string_view(stored), id);
  return id;
}

std::string labelText(LabelId id) {
  LabelTable& t = labels();
  std::lock_guard<std::mutex> lock(t.mutex);
  return id < t.texts.size() ? t.texts[id] : std::string();
}

}  // namespace ljcheck
