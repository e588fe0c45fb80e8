// The switchyard command's sparse CG subcommands.
#pragma once

// switchyard gen-fem NX NY NZ [--mtx=PATH] [--solve] [--float] [--backend=auto|cpu|gpu]
//                             [--tol=T] [--threads=N]
int gen_fem_command(int argc, char** argv);
