# `cmake --install` and the Debian package: the GUI, the CLI, the CUPTI agent (where `run` and
# Launch Program look for it: PREFIX/lib/vramscope), the desktop files, the sample captures the
# welcome page offers, the PyTorch recorder's Python package, and the README with docs/.
include(GNUInstallDirs)

install(TARGETS vramscope-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET vramscope_cupti)
  # libcupti comes with the CUDA toolkit, not with Debian: look for it where the toolkit installs it
  set_target_properties(vramscope_cupti PROPERTIES INSTALL_RPATH "${VRAMSCOPE_CUDA_ROOT}/lib64;${VRAMSCOPE_CUDA_ROOT}/extras/CUPTI/lib64")
  install(TARGETS vramscope_cupti LIBRARY DESTINATION lib/vramscope)
endif()
if(VRAMSCOPE_GUI)
  add_subdirectory(resources)
  file(GLOB sample_captures ${PROJECT_SOURCE_DIR}/samples/captures/*.pickle*)
  install(FILES ${sample_captures} DESTINATION ${CMAKE_INSTALL_DATADIR}/vramscope/samples)
endif()

# The recorder (`python3 -m vramscope record ...`), importable by the system's Python 3.
set(VRAMSCOPE_PYTHON_DIR "lib/python3/dist-packages" CACHE STRING "Where the recorder's package is installed, under the prefix")
install(DIRECTORY capture/python/vramscope DESTINATION ${VRAMSCOPE_PYTHON_DIR} PATTERN __pycache__ EXCLUDE)
# with core's codec headers in its _core/: its tracker compiles them (native.py lists them; setup.py
# does the same for the wheel)
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  execute_process(COMMAND ${Python3_EXECUTABLE} -c
                    "import sys; sys.path.insert(0, sys.argv[1]); import native; print(';'.join(native.CODEC_HEADERS), end='')"
                    ${PROJECT_SOURCE_DIR}/capture/python/vramscope
                  OUTPUT_VARIABLE codec_headers COMMAND_ERROR_IS_FATAL ANY)
  foreach(header IN LISTS codec_headers)
    get_filename_component(header_dir ${header} DIRECTORY)
    install(FILES core/${header} DESTINATION ${VRAMSCOPE_PYTHON_DIR}/vramscope/_core/${header_dir})
  endforeach()
endif()
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs DESTINATION ${CMAKE_INSTALL_DOCDIR}) # the README's links

# The recorder as a wheel, for pip installs next to torch: `cmake --build B --target recorder_wheel`
# leaves B/wheel/vramscope-VERSION-py3-none-any.whl.
if(Python3_FOUND)
  add_custom_target(recorder_wheel
    COMMAND ${CMAKE_COMMAND} -E env PYTHON=${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/build-wheel.sh
            ${CMAKE_BINARY_DIR}/wheel
    COMMENT "Building the recorder's wheel"
    VERBATIM)
endif()

# cpack -G DEB: one package for Debian 12 (bookworm); its dependencies are Debian's library packages.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME vramscope)
set(CPACK_PACKAGE_VENDOR "vramscope")
set(CPACK_PACKAGE_CONTACT "vramscope developers <vramscope@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU memory leak finder for PyTorch and CUDA programs")
set(CPACK_PACKAGE_DESCRIPTION
    "vramscope opens PyTorch memory snapshots and its own .vscap recordings, draws allocated and reserved GPU memory over time, shows the caching allocator's blocks at any moment and diagnoses leaks: which line of code allocated the memory that survived, and what keeps it alive. Includes vramscope-cli (summary, leaks, check for CI), the CUPTI agent for any CUDA program (needs the CUDA toolkit's CUPTI) and the PyTorch recorder (python3 -m vramscope).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/vramscope/vramscope")
# Listed by hand: dpkg-shlibdeps cannot place libcupti (the CUDA toolkit is not a Debian package here).
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libc6 (>= 2.34), libstdc++6 (>= 12), libgcc-s1, libqt6core6 (>= 6.4), libqt6gui6 (>= 6.4), libqt6widgets6 (>= 6.4), libqt6svg6 (>= 6.4), libqt6network6 (>= 6.4), libqt6printsupport6 (>= 6.4), libqt6concurrent6 (>= 6.4), libqcustomplot2.1-qt6, libzstd1, zlib1g, libdw1, libunwind8, libopengl0, libglx0, fonts-dejavu-core")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, shared-mime-info, desktop-file-utils, hicolor-icon-theme")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-torch")
include(CPack)
