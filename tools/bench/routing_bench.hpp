// switchyard bench routing: "never slower", measured. See routing_bench.cpp.
#pragma once

namespace switchyard::bench {

int routing_main(int argc, char** argv);

}  // namespace switchyard::bench
