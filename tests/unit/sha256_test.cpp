// SHA-256 against the NIST test vectors (FIPS 180-4 examples, and the
// one-million-'a' and empty-message vectors of the NIST CAVS/SHAVS sets).
#include "sha256.hpp"

#include <gtest/gtest.h>

#include <string>

namespace switchyard {
namespace {

std::string digest_of(const std::string& message) {
  return hex(sha256(message.data(), message.size()));
}

TEST(Sha256, Abc) {
  EXPECT_EQ(digest_of("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, EmptyMessage) {
  EXPECT_EQ(digest_of(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

// 448 bits: the padding's length field no longer fits the block, so the
// digest takes two blocks.
TEST(Sha256, TwoBlockMessage) {
  EXPECT_EQ(digest_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, MillionA) {
  EXPECT_EQ(digest_of(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Fed in pieces that straddle the 64-byte blocks, the digest is the same.
TEST(Sha256, PiecesGiveTheWholeDigest) {
  const std::string message(1000000, 'a');
  Sha256 h;
  std::size_t at = 0;
  for (std::size_t piece = 1; at < message.size(); piece = piece * 3 % 997 + 1) {
    const std::size_t take = std::min(piece, message.size() - at);
    h.update(message.data() + at, take);
    at += take;
  }
  EXPECT_EQ(hex(h.finish()), digest_of(message));
}

TEST(Sha256, FieldsAreSeparated) {
  EXPECT_NE(Sha256().field("ab").field("c").finish(), Sha256().field("a").field("bc").finish());
  EXPECT_NE(Sha256().field("").field("x").finish(), Sha256().field("x").field("").finish());
}

}  // namespace
}  // namespace switchyard
