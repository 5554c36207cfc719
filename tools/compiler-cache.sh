# Sourced by tools/build and tools/sanitize after they set $root: the CMake arguments that
# compile through Debian's ccache where it is installed (tools/install-deps installs it), so that
# a second build of the same sources on this machine, CI's clean clone among them, takes the
# objects the first compiled. Paths inside the clone are hashed relative to it (base_dir) and the
# directory a compiler runs in is left out (hash_dir), else every clone would miss; a fresh
# machine, with an empty cache, builds as it would without one.
compiler_cache=()
if command -v ccache >/dev/null; then
  # The sloppiness: headers generated during the build (protobuf's, the tests' paths) are newer
  # than the compile's start, which ccache otherwise declines to key by their times.
  compiler_cache=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$root;CCACHE_NOHASHDIR=true;CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime,time_macros;ccache")
  # The tests without their precompiled header: GCC's holds the clone's paths, and ccache
  # hashes it into every test file's key (CMakeLists.txt, DFC_TEST_PCH).
  compiler_cache+=(-DDFC_TEST_PCH=OFF)
fi
# The tests' OpenCL program cache, one per machine rather than per build tree: an entry is keyed
# by the kernel's whole source, its build options and the driver, so a clone's tests load the
# kernels another clone's built.
test_programs="${XDG_CACHE_HOME:-$HOME/.cache}/dfc/test-programs"
