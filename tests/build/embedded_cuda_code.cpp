// embedded_cuda_code LIBRARY CODE...: checks that every CUDA fatbinary in LIBRARY's .nv_fatbin
// section (one per kernel file) holds each CODE, "sm_80" for machine code or "compute_90" for
// PTX; prints what each holds, and exits 1 naming what is missing. It reads the ELF file itself,
// so it needs no CUDA toolkit tool (cuobjdump) on the machine.
#include <elf.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

namespace {

// A fatbinary: a header of 16 bytes (magic, version, header size, size of the entries), then
// entries, each a header (kind: 1 PTX, 2 machine code; its own size; the payload's size; the
// architecture at byte 28) followed by its payload.
constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;
constexpr std::uint16_t kPtx = 1, kMachineCode = 2;

template <class T>
bool read_at(const std::vector<char>& bytes, std::size_t offset, T& out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}

// The bytes of the named section of a 64-bit ELF file, or nothing.
std::vector<char> section(const std::vector<char>& file, const char* name) {
  Elf64_Ehdr elf;
  if (!read_at(file, 0, elf) || std::memcmp(elf.e_ident, ELFMAG, SELFMAG) != 0 ||
      elf.e_ident[EI_CLASS] != ELFCLASS64) {
    return {};
  }
  Elf64_Shdr names;
  if (!read_at(file, elf.e_shoff + std::size_t(elf.e_shstrndx) * elf.e_shentsize, names)) return {};
  for (std::size_t i = 0; i < elf.e_shnum; ++i) {
    Elf64_Shdr s;
    if (!read_at(file, elf.e_shoff + i * elf.e_shentsize, s)) return {};
    const std::size_t at = names.sh_offset + s.sh_name;
    if (at >= file.size() || std::strncmp(file.data() + at, name, file.size() - at) != 0) continue;
    if (s.sh_offset > file.size() || file.size() - s.sh_offset < s.sh_size) return {};
    return {file.begin() + long(s.sh_offset), file.begin() + long(s.sh_offset + s.sh_size)};
  }
  return {};
}

// The codes of each fatbinary in a .nv_fatbin section; the linker aligns each to 8 bytes.
std::vector<std::set<std::string>> fatbinaries(const std::vector<char>& bytes) {
  std::vector<std::set<std::string>> out;
  for (std::size_t at = 0; at + 16 <= bytes.size();) {
    std::uint32_t magic = 0;
    std::uint16_t header = 0;
    std::uint64_t size = 0;
    read_at(bytes, at, magic);
    if (magic != kFatbinMagic) {
      at += 8;
      continue;
    }
    read_at(bytes, at + 6, header);
    read_at(bytes, at + 8, size);
    std::set<std::string> codes;
    const std::size_t end = at + header + size;
    for (std::size_t e = at + header; e + 32 <= end && e + 32 <= bytes.size();) {
      std::uint16_t kind = 0;
      std::uint32_t entry_header = 0, arch = 0;
      std::uint64_t payload = 0;
      read_at(bytes, e, kind);
      read_at(bytes, e + 4, entry_header);
      read_at(bytes, e + 8, payload);
      read_at(bytes, e + 28, arch);
      if (kind == kMachineCode) codes.insert("sm_" + std::to_string(arch));
      if (kind == kPtx) codes.insert("compute_" + std::to_string(arch));
      if (entry_header == 0) break;
      e += entry_header + payload;
    }
    out.push_back(codes);
    at = end;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: embedded_cuda_code LIBRARY [sm_NN|compute_NN]...\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::vector<char> file{std::istreambuf_iterator<char>(in), {}};
  const std::vector<std::set<std::string>> found = fatbinaries(section(file, ".nv_fatbin"));
  if (found.empty()) {
    std::printf("%s: no CUDA fatbinary found\n", argv[1]);
    return 1;
  }
  int missing = 0;
  for (std::size_t i = 0; i < found.size(); ++i) {
    std::printf("fatbinary %zu:", i);
    for (const std::string& code : found[i]) std::printf(" %s", code.c_str());
    std::printf("\n");
    for (int a = 2; a < argc; ++a) {
      if (found[i].count(argv[a])) continue;
      std::printf("fatbinary %zu lacks %s\n", i, argv[a]);
      ++missing;
    }
  }
  return missing ? 1 : 0;
}
