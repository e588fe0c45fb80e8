// SHA-256 (FIPS 180-4), for the names and content checks of the on-disk cache.
//
// Written here rather than taken from libcrypto: the library is preloaded into
// programs that may link their own OpenSSL, and linking or dlopen'ing another
// copy there risks clashes of symbols and versions. The digest is short and
// is checked against the NIST test vectors (tests/unit/sha256_test.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace switchyard {

class Sha256 {
 public:
  using Digest = std::array<std::uint8_t, 32>;

  Sha256();

  // Appends bytes to the message.
  Sha256& update(const void* data, std::size_t size);
  Sha256& update(const std::string& bytes) { return update(bytes.data(), bytes.size()); }

  // Appends a field as its length (8 bytes, little-endian) and its bytes, so
  // that a sequence of fields hashes unambiguously: ("ab", "c") != ("a", "bc").
  Sha256& field(const std::string& bytes);

  // Pads the message and returns its digest; the object is spent afterwards.
  Digest finish();

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> block_{};
  std::size_t block_used_ = 0;
  std::uint64_t message_bytes_ = 0;
};

// The digest of one message.
Sha256::Digest sha256(const void* data, std::size_t size);

// Lower-case hexadecimal, two digits a byte.
std::string hex(const Sha256::Digest& digest);

}  // namespace switchyard
