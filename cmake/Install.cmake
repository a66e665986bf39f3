# Install rules: tools, libraries, headers (including generated .inc files)
# and a CMake package so that another project can find_package(TShape).
include(CMakePackageConfigHelpers)

set(TSHAPE_INSTALL_CMAKEDIR lib/cmake/tshape)
install(DIRECTORY include/tshape DESTINATION include
        FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/tshape DESTINATION include
        FILES_MATCHING PATTERN "*.inc")

set(TSHAPE_EXPORTED_LIBS TShapeModel TShapeTarget TShapeCost TShapeAdvise TShapePredict TShapeReport MLIRTShapeAnalysis MLIRTShapeTransforms MLIRTShapeDialect MLIRTShapeToLinalg
    TShapeInterop)
install(TARGETS ${TSHAPE_EXPORTED_LIBS} EXPORT TShapeTargets
        ARCHIVE DESTINATION lib LIBRARY DESTINATION lib)
install(EXPORT TShapeTargets NAMESPACE TShape:: DESTINATION
        ${TSHAPE_INSTALL_CMAKEDIR})

configure_package_config_file(cmake/TShapeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/TShapeConfig.cmake
  INSTALL_DESTINATION ${TSHAPE_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/TShapeConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/TShapeConfig.cmake
              ${PROJECT_BINARY_DIR}/TShapeConfigVersion.cmake
        DESTINATION ${TSHAPE_INSTALL_CMAKEDIR})
