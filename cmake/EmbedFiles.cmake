# ljcheck_embed(<target> <symbol> <file>...): compiles data files into <target>
# as `extern const ljcheck::EmbeddedFile <symbol>[]` (name, contents), ended by
# an entry whose name is null. Rebuilt when a data file changes.
function(ljcheck_embed target symbol)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${symbol}.cpp")
  string(REPLACE ";" "|" files "${ARGN}")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DSYMBOL=${symbol} "-DFILES=${files}"
            -P "${CMAKE_SOURCE_DIR}/cmake/EmbedScript.cmake"
    DEPENDS ${ARGN} "${CMAKE_SOURCE_DIR}/cmake/EmbedScript.cmake"
    COMMENT "Embedding ${symbol}"
    VERBATIM)
  target_sources(${target} PRIVATE "${out}")
endfunction()
