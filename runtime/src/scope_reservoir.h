// A fixed-size uniform sample of a stream (Vitter's Algorithm R) and the
// seeded generator that drives it, so a seed makes every reservoir of a run
// reproducible. Scope statistics take their percentiles from it.
#pragma once

#include <array>
#include <cstdint>

namespace ljcheck {

// splitmix64: small, fast, and every seed (0 included) gives a full-period stream.
class SeededRandom {
 public:
  explicit SeededRandom(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound), bound > 0 (Lemire's multiply-shift; bias < bound / 2^64).
  std::uint64_t below(std::uint64_t bound) {
    __extension__ using Wide = unsigned __int128;  // GCC and Clang on 64-bit targets
    return static_cast<std::uint64_t>((static_cast<Wide>(next()) * bound) >> 64);
  }

 private:
  std::uint64_t state_;
};

class Reservoir {
 public:
  static constexpr int kSize = 128;

  // Offers the stream's next value: kept outright while the reservoir fills,
  // then with probability kSize / seen, replacing a uniformly chosen entry.
  // Inline: it runs on every done().
  void offer(std::int64_t value, SeededRandom& random) {
    ++seen_;
    if (seen_ <= kSize) {
      values_[seen_ - 1] = value;
      return;
    }
    std::uint64_t slot = random.below(seen_);  // Algorithm R: keep with probability kSize/seen
    if (slot < kSize) values_[slot] = value;
  }
  // Values offered so far (the stream's length, not the reservoir's).
  std::uint64_t seen() const { return seen_; }
  int size() const { return seen_ < kSize ? static_cast<int>(seen_) : kSize; }
  std::int64_t at(int i) const { return values_[static_cast<std::size_t>(i)]; }
  // Nearest-rank percentile (0 < p <= 100) of the kept values; 0 when empty.
  std::int64_t percentile(double p) const;
  void clear() { seen_ = 0; }

 private:
  std::uint64_t seen_ = 0;
  std::array<std::int64_t, kSize> values_{};
};

}  // namespace ljcheck
