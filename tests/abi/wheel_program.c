/* A program that opens an extension module (wheel_module.c) with dlopen(RTLD_LOCAL), as Python
   does, with Switchyard preloaded (tests/abi/CMakeLists.txt). The module's library, a stand-in
   for a pip wheel's bundled OpenBLAS, is then out of RTLD_NEXT's reach, as in Python.

     wheel_program MODULE          runs the module's checks: results, who ran them, argument
                                   errors; prints PASS when all hold
     wheel_program MODULE refused  the module's library says its integers are the other width:
                                   the first call of each convention, made in a child process,
                                   must stop it (SIGABRT) with Switchyard's refusal, before
                                   anything runs in that library */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void* open_module(const char* path) {
  void* module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!module) printf("FAIL: %s\n", dlerror());
  return module;
}

/* Runs the module's first call of a convention in a child, shows the child's stderr, and
   wants SIGABRT and each of `messages` in it. */
static int child_stops_with(const char* module_path, int bits, const char* const* messages) {
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) return 0;
  const pid_t child = fork();
  if (child == 0) {
    dup2(pipe_ends[1], 2);
    close(pipe_ends[0]);
    void* module = open_module(module_path);
    if (!module) _exit(3);
    void (*first_call)(int) = (void (*)(int))dlsym(module, "wheel_module_first_call");
    first_call(bits);
    _exit(0);
  }
  close(pipe_ends[1]);
  char err[4096] = {0};
  size_t got = 0;
  ssize_t r;
  while (got < sizeof err - 1 && (r = read(pipe_ends[0], err + got, sizeof err - 1 - got)) > 0)
    got += (size_t)r;
  close(pipe_ends[0]);
  int status = 0;
  waitpid(child, &status, 0);
  fprintf(stderr, "%d-bit child's stderr:\n%s", bits, err);
  int ok = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
  if (!ok) printf("FAIL: the %d-bit call did not stop the process with SIGABRT\n", bits);
  for (const char* const* m = messages; *m; ++m) {
    if (!strstr(err, *m)) {
      printf("FAIL: the %d-bit call did not say \"%s\"\n", bits, *m);
      ok = 0;
    }
  }
  return ok;
}

int main(int argc, char** argv) {
  if (argc == 2) {
    void* module = open_module(argv[1]);
    if (!module) return 1;
    int (*checks)(void) = (int (*)(void))dlsym(module, "wheel_module_checks");
    if (checks() != 0) return 1;
    printf("PASS: all checks\n");
    return 0;
  }
  if (argc == 3 && strcmp(argv[2], "refused") == 0) {
    const char* const refusal32[] = {
        "is not called: scipy_openblas_get_config says \"OpenBLAS 0.3.30 USE64BITINT",
        "its integers are 64-bit, the names Switchyard hands on to it take 32-bit ones",
        "fatal: no library that Switchyard may call provides scipy_sgemm_ with 32-bit integers",
        NULL};
    const char* const refusal64[] = {
        "is not called: scipy_openblas_get_config64_ says \"OpenBLAS 0.3.31 DYNAMIC_ARCH",
        "its integers are 32-bit, the names Switchyard hands on to it take 64-bit ones",
        "fatal: no library that Switchyard may call provides scipy_sgemm_64_ with 64-bit integers",
        NULL};
    if (!child_stops_with(argv[1], 32, refusal32) || !child_stops_with(argv[1], 64, refusal64))
      return 1;
    printf("PASS: all checks\n");
    return 0;
  }
  fprintf(stderr, "usage: %s MODULE [refused]\n", argv[0]);
  return 2;
}
