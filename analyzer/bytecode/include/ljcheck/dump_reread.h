// Reading the dumps of one document again after each edit (the language
// server): a prototype whose bytes equal those at the same index of the last
// read is taken over from that read instead of being decoded again. LuaJIT
// writes a prototype from that prototype alone (lj_bcwrite.c), so equal bytes
// decode to an equal Prototype; only which prototypes are its children (and
// so its children's parent) depends on what came before it, and that is
// worked out again.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ljcheck/bytecode.h"

namespace ljcheck::bytecode {

class DumpRereader {
 public:
  // Reads `bytes` as readDump does: the same Chunk, the same DumpErrors.
  Chunk read(std::string_view bytes, const OpcodeTable& opcodes, std::string_view inputName,
             const ReadOptions& options = {});
  // Hands back the chunk the last read() returned, once its user is done
  // with it: the next read takes its unchanged prototypes over. Without it
  // the next read decodes everything.
  void keep(Chunk chunk);

  // What the last read took over and decoded (for tests and benchmarks).
  std::size_t reused() const { return reused_; }
  std::size_t decoded() const { return decoded_; }
  // By prototype index, of the last read: 1 when the prototype's bytes are
  // those at the same index of the read before (it was taken over), else 0.
  const std::vector<char>& takenOver() const { return takenOver_; }

  // The bytes of the last read and where each prototype lies in them.
  struct LastRead {
    std::string dump;
    std::size_t headerLength = 0;
    std::vector<std::pair<std::size_t, std::size_t>> spans;  // start, length, by prototype index
    const OpcodeTable* opcodes = nullptr;
    bool expectFr2 = true;
    Chunk chunk;        // handed back by keep()
    bool kept = false;  // chunk holds the prototypes of dump
  };
  const LastRead& last() const { return last_; }

 private:
  LastRead last_;
  std::size_t reused_ = 0, decoded_ = 0;
  std::vector<char> takenOver_;
};

}  // namespace ljcheck::bytecode
