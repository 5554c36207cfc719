# Writes a C++ file defining `const char NAME[]` in namespace NAMESPACE with the text of file
# INPUT, so that a page or script kept as a file of its own is part of the binary:
#   cmake -DINPUT=page.html -DOUTPUT=page.cc -DNAME=kPage -DNAMESPACE=dfc -P embed_text.cmake
file(READ "${INPUT}" text)
set(delimiter "dfc_embedded")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw string's end, )${delimiter}\"")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by tools/embed_text.cmake: edit that file, not this one.\n"
  "namespace ${NAMESPACE} {\n\nextern const char ${NAME}[];\n\n"
  "const char ${NAME}[] = R\"${delimiter}(${text})${delimiter}\";\n\n}  // namespace ${NAMESPACE}\n")
# Rewritten only when it changes, so that an unchanged page rebuilds nothing.
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
