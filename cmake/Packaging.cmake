# Install rules, the CMake package config and the pkg-config file, so that
# find_package(Switchyard) or `pkg-config --libs switchyard` link a program
# with Switchyard plus reference LAPACK/BLAS for what Switchyard does not take.
include(CMakePackageConfigHelpers)

install(TARGETS switchyard EXPORT SwitchyardTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# libswitchyard64.so is preloaded or linked by name (docs/ilp64.md); the
# package config and switchyard.pc describe libswitchyard.so only.
if(TARGET switchyard64)
  install(TARGETS switchyard64 LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(EXPORT SwitchyardTargets NAMESPACE Switchyard::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Switchyard)

configure_package_config_file(cmake/SwitchyardConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/SwitchyardConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Switchyard)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/SwitchyardConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/SwitchyardConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/SwitchyardConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Switchyard)

# switchyard.pc finds its prefix from its own directory (${pcfiledir}), so
# that an install made with `cmake --install --prefix DIR`, or moved after
# installation, still points at itself.
file(RELATIVE_PATH SWITCHYARD_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig
  ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" SWITCHYARD_PC_TO_PREFIX "${SWITCHYARD_PC_TO_PREFIX}")
configure_file(cmake/switchyard.pc.in ${CMAKE_CURRENT_BINARY_DIR}/switchyard.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/switchyard.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
