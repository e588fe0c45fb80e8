// The file SWITCHYARD_TRACE names, opened for appending without trusting
// where it lies: a trace path in a directory others can write (/tmp) must
// not let them point it, through a symbolic link, at one of the user's files.
#pragma once

#include <string>

namespace switchyard {

// The descriptor to append trace lines to, or -1 after one line on stderr
// saying why the path is refused (a symbolic link, not a regular file, or
// cannot be opened).
int open_trace_file(const std::string& path);

}  // namespace switchyard
