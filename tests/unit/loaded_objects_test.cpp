// Which loaded object holds an address: the answers the fallback's resolution relies on, against
// dladdr's, which it replaced.
#include "loaded_objects.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

namespace switchyard {
namespace {

int in_the_program() { return 1; }
int also_in_the_program() { return 2; }

// A definition in the C library itself (a function's address taken in a program not built
// position-independent would be its stub in the program).
const void* in_libc() { return dlsym(RTLD_DEFAULT, "abort"); }

std::string dladdr_name(const void* p) {
  Dl_info where{};
  return dladdr(p, &where) && where.dli_fname ? where.dli_fname : "";
}

TEST(LoadedObjects, NamesTheObjectAsDladdrDoes) {
  const void* program = reinterpret_cast<const void*>(&in_the_program);
  const void* libc = in_libc();
  ASSERT_NE(libc, nullptr);
  for (const void* p : {program, libc}) {
    LoadedObject o;
    ASSERT_TRUE(object_containing(p, o));
    EXPECT_FALSE(o.name.empty());
    EXPECT_EQ(o.name, dladdr_name(p));
    EXPECT_NE(o.base, nullptr);
  }
}

TEST(LoadedObjects, OneBasePerObjectAndEachItsOwn) {
  LoadedObject first, second, libc;
  ASSERT_TRUE(object_containing(reinterpret_cast<const void*>(&in_the_program), first));
  ASSERT_TRUE(object_containing(reinterpret_cast<const void*>(&also_in_the_program), second));
  ASSERT_TRUE(object_containing(in_libc(), libc));
  EXPECT_EQ(first.base, second.base);
  EXPECT_NE(first.base, libc.base);
}

// Here the library's objects are linked into the test program, which is therefore its own.
TEST(LoadedObjects, OwnIsTheObjectThisCodeLoadedWith) {
  EXPECT_TRUE(is_own(reinterpret_cast<const void*>(&in_the_program)));
  EXPECT_FALSE(is_own(in_libc()));
  int on_the_stack = 0;
  EXPECT_FALSE(is_own(&on_the_stack));
}

TEST(LoadedObjects, TheStackIsInNoObject) {
  int on_the_stack = 0;
  LoadedObject o;
  EXPECT_FALSE(object_containing(&on_the_stack, o));
}

}  // namespace
}  // namespace switchyard
