# Install rules (issue 17; docs/EMBEDDING.md, "Building against the installed package").
# `cmake --install build --prefix P` installs:
#   P/include/tare/tare.h, tare.hpp           the C and C++ APIs
#   P/lib/libtare.so.0 (+ links), libtare.a   the runtime, shared (exports tare_* only) and static
#   P/lib/libtare_converters.so.0             tare_convert; tare_model_load of .onnx / .tflite
#   P/bin/tare                                the CLI
#   P/lib/cmake/tare/tareConfig.cmake (+ version file): imported targets tare::tare (shared),
#                                             tare::tare_static, tare::converters
#   P/lib/pkgconfig/tare.pc (libtare.so), tare-static.pc (libtare.a), tare-converters.pc
#   P/lib/python3/dist-packages/tare.*.so     the Python module (python/CMakeLists.txt)
# The installed files find each other relative to their own location, so the prefix can move.
include(CMakePackageConfigHelpers)
set(TARE_INSTALL_LIBDIR lib)

install(FILES include/tare/tare.h include/tare/tare.hpp DESTINATION include/tare COMPONENT dev)
install(TARGETS tare_shared LIBRARY DESTINATION ${TARE_INSTALL_LIBDIR} NAMELINK_COMPONENT dev COMPONENT runtime)
install(TARGETS tare_lib ARCHIVE DESTINATION ${TARE_INSTALL_LIBDIR} COMPONENT dev)

# What a program linking libtare.a statically must also link (the backends' libraries are shared
# on Debian: XNNPACK, pthreadpool, oneDNN).
set(TARE_STATIC_LIBS)
if(TARE_WITH_CPU)
  list(APPEND TARE_STATIC_LIBS ${XNNPACK_LIBRARY} ${PTHREADPOOL_LIBRARY})
endif()
if(TARE_WITH_ONEDNN)
  list(APPEND TARE_STATIC_LIBS ${DNNL_LIBRARY})
endif()
get_target_property(_tare_fb_loc flatbuffers::flatbuffers LOCATION)
list(APPEND TARE_STATIC_LIBS ${_tare_fb_loc} ZLIB::ZLIB stdc++ m pthread dl)
set(TARE_STATIC_LIBS_PC)
foreach(l IN LISTS TARE_STATIC_LIBS)
  if(l STREQUAL "ZLIB::ZLIB")
    string(APPEND TARE_STATIC_LIBS_PC " -lz")
  elseif(IS_ABSOLUTE "${l}")
    string(APPEND TARE_STATIC_LIBS_PC " ${l}")
  else()
    string(APPEND TARE_STATIC_LIBS_PC " -l${l}")
  endif()
endforeach()
string(REPLACE "ZLIB::ZLIB" "z" TARE_STATIC_LIBS_CMAKE "${TARE_STATIC_LIBS}")

if(TARE_BUILD_TOOLS)
  install(TARGETS tare_converters_shared LIBRARY DESTINATION ${TARE_INSTALL_LIBDIR} NAMELINK_COMPONENT dev COMPONENT runtime)
  install(TARGETS tare RUNTIME DESTINATION bin COMPONENT runtime)
  set(TARE_HAVE_CONVERTERS 1)
else()
  set(TARE_HAVE_CONVERTERS 0)
endif()

set(TARE_CONFIG_DIR ${TARE_INSTALL_LIBDIR}/cmake/tare)
configure_package_config_file(cmake/tareConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/tareConfig.cmake
  INSTALL_DESTINATION ${TARE_CONFIG_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tareConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tareConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/tareConfigVersion.cmake
  DESTINATION ${TARE_CONFIG_DIR} COMPONENT dev)

configure_file(cmake/tare.pc.in ${CMAKE_CURRENT_BINARY_DIR}/tare.pc @ONLY)
configure_file(cmake/tare-static.pc.in ${CMAKE_CURRENT_BINARY_DIR}/tare-static.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tare.pc ${CMAKE_CURRENT_BINARY_DIR}/tare-static.pc
        DESTINATION ${TARE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
if(TARE_BUILD_TOOLS)
  configure_file(cmake/tare-converters.pc.in ${CMAKE_CURRENT_BINARY_DIR}/tare-converters.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tare-converters.pc DESTINATION ${TARE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
endif()
