#!/usr/bin/env bash
# The installed package as an application uses it (issue 17; docs/EMBEDDING.md): builds examples/
# from the install prefix in a folder of its own, then runs the programs on the committed LeNet-5
# and ResNet-20 fixtures against PyTorch's outputs (rel L2 <= 1e-4; the programs exit 1 above).
#   examples.sh cmake      PREFIX SRC WORK   find_package(tare): top5_c, top5_c_static, top5_cpp
#   examples.sh pkgconfig  PREFIX SRC WORK   cc -std=c99 -Wall -Werror / c++ with pkg-config --cflags --libs
#                                            tare, tare-static, tare-converters
#   examples.sh symbols    PREFIX            nm -D: libtare.so exports only tare_* symbols
set -euo pipefail
mode=$1 prefix=$2
case $mode in
  symbols)
    syms=$(nm -D --defined-only "$prefix/lib/libtare.so" | awk '{print $3}')
    echo "$syms" | sed 's/^/  /'
    n=$(echo "$syms" | wc -l); bad=$(echo "$syms" | grep -vc '^tare_' || true)
    echo "libtare.so exports $n symbols, $bad not tare_*"
    conv=$(nm -D --defined-only "$prefix/lib/libtare_converters.so" | awk '{print $3}' | tr '\n' ' ')
    echo "libtare_converters.so exports: $conv"
    readelf -d "$prefix/lib/libtare.so" | grep -q 'SONAME.*libtare.so.0' || { echo "no SONAME libtare.so.0"; exit 1; }
    readelf -d "$prefix/lib/libtare_converters.so" | grep -q 'RUNPATH.*\$ORIGIN' || { echo "libtare_converters.so has no RUNPATH \$ORIGIN"; exit 1; }
    [[ $bad -eq 0 && $n -gt 20 && $conv == "tare_convert " ]]
    exit ;;
esac
src=$3 work=$4
rm -rf "$work"; mkdir -p "$work"
models=$src/tests/models
for m in lenet5 resnet20; do "$prefix/bin/tare" convert "$models/$m/model.onnx" -o "$work/$m.tare" > /dev/null; done
run() {  # PROGRAM MODEL_EXT BACKENDS: every fixture through PROGRAM
  for m in lenet5 resnet20; do
    model=$work/$m.tare; [[ $2 == onnx ]] && model=$models/$m/model.onnx
    echo "== $(basename "$1") -b $3 $m"
    "$1" -b "$3" "$model" "$models/$m/input.npy" "$models/$m/expected/logits.npy"
  done
}
case $mode in
  cmake)
    cmake -S "$src/examples" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release > "$work/configure.log"
    cmake --build "$work/build" > "$work/build.log"
    for b in ref cpu,ref; do run "$work/build/top5_c" tare $b; done
    run "$work/build/top5_c_static" tare cpu,ref
    run "$work/build/top5_cpp" onnx cpu,ref ;;
  pkgconfig)
    export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
    cc -std=c99 -Wall -Werror -pedantic "$src/examples/c/top5.c" -I"$src/examples" $(pkg-config --cflags --libs tare) -lm \
      -Wl,-rpath,"$prefix/lib" -o "$work/top5_c"
    c++ -std=c++17 -Wall -Werror "$src/examples/cpp/top5.cpp" -I"$src/examples" $(pkg-config --cflags --libs tare-converters) \
      -Wl,-rpath,"$prefix/lib" -o "$work/top5_cpp"
    cc -std=c99 -Wall -Werror -pedantic "$src/examples/c/top5.c" -I"$src/examples" $(pkg-config --cflags --libs tare-static) -lm \
      -o "$work/top5_c_static"
    if readelf -d "$work/top5_c_static" | grep -q 'NEEDED.*libtare'; then echo "top5_c_static needs libtare.so"; exit 1; fi
    run "$work/top5_c" tare ref
    run "$work/top5_c" tare cpu,ref
    run "$work/top5_c_static" tare cpu,ref
    run "$work/top5_cpp" onnx ref ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
echo "examples ($mode): all runs within rel L2 1e-4 of PyTorch"
