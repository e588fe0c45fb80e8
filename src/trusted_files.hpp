// Reading and writing the files of the on-disk cache (cache_directory(),
// config.hpp): compiled OpenCL programs, the gemm tuning database and the
// host calibration. What they hold decides which code a program runs and
// where, and the library runs inside other people's programs, so a file is
// trusted only when no one but the running user could have written it:
//
//   - the directory and the entry are owned by the effective user and
//     writable by neither group nor others;
//   - neither the directory (its last component) nor the entry is a symbolic
//     link, and the entry is a regular file;
//   - the checks are made with fstat on the opened descriptors, and entries
//     are opened relative to the checked directory's descriptor, so nothing
//     swapped in between a check and its use is read.
//
// Anything else is treated as absent: the caller compiles afresh or takes the
// shipped figures, and the first refusal in a process says why in one line on
// stderr. A cache directory that does not exist yet is simply absent.
//
// A write makes a new file of mode 0600 under a random name (O_CREAT | O_EXCL
// | O_NOFOLLOW) in the checked directory and renames it onto the entry: no
// symbolic link is followed, a reader never sees half a file, and a failure
// removes the new file. A missing directory is made with mode 0700, as the XDG
// base directory specification asks of the directories an application makes.
#pragma once

#include <cstddef>
#include <string>

namespace switchyard::trusted_files {

// The contents of the entry `name` of `directory`, when both are trusted and
// the entry holds at most `max_bytes`; false otherwise.
bool read(const std::string& directory, const std::string& name, std::size_t max_bytes,
          std::string& contents);

// Makes `directory` if it is missing and writes `contents` as its entry
// `name`; false with the reason in `error`, and nothing left behind.
bool write(const std::string& directory, const std::string& name, const std::string& contents,
           std::string& error);

}  // namespace switchyard::trusted_files
