# Included by llama.cpp's own project() call when make setup builds llama-cpp-python
# (CMAKE_PROJECT_llama.cpp_INCLUDE). llama-cpp-python's build turns on llama.cpp's `common`
# library (argument parsing, chat parsers, downloads, an HTTP client), which its Python code
# never loads; a normal variable here overrides that cache setting for llama.cpp's directory,
# so only libllama and libggml are compiled. About 40% of the compile (bench/README.md,
# "A set-up without a compile").
set(LLAMA_BUILD_COMMON OFF)
