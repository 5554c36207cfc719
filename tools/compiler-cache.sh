# Sourced by tools/build and tools/sanitize after they set $root: the CMake arguments that
# compile through Debian's ccache where it is installed (tools/install-deps installs it), so that
# a second build of the same sources on this machine, CI's clean clone among them, takes the
# objects the first compiled. Paths inside the clone are hashed relative to it (base_dir) and the
# directory a compiler runs in is left out (hash_dir), else every clone would miss; a fresh
# machine, with an empty cache, builds as it would without one.
compiler_cache=()
if command -v ccache >/dev/null; then
  # GCC's precompiled header (the tests'): ccache takes it only with these sloppinesses.
  compiler_cache=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$root;CCACHE_NOHASHDIR=true;CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;ccache")
fi
# The tests' OpenCL program cache, one per machine rather than per build tree: an entry is keyed
# by the kernel's whole source, its build options and the driver, so a clone's tests load the
# kernels another clone's built.
test_programs="${XDG_CACHE_HOME:-$HOME/.cache}/dfc/test-programs"
