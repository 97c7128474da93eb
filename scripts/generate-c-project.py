#!/usr/bin/env python3
"""The benchmarks' C project: FILES .c files sharing 12 headers (every file includes common.h,
and through it config.h, and its module's header), and a link; written for each tool named.

    scripts/generate-c-project.py DIRECTORY FILES TOOL...

TOOL is procflow (DIRECTORY/c-procflow/build.json: depfiles, a cacheKey naming the compiler),
ninja (DIRECTORY/c-ninja/build.ninja: depfile, deps = gcc) or make (DIRECTORY/c-make/Makefile:
-MMD); each gets its own copy of the sources under src/.
"""
import json
import os
import sys

tmp, files, tools = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
modules = 10


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as out:
        out.write(text)

# The C project: every file includes common.h (and through it config.h) and its module's
# header; each has a few functions with loops, enough work for the optimiser.
source = {}
source["config.h"] = "#pragma once\n#define SCALE 3\n#define LIMIT 1000\n"
source["common.h"] = ('#pragma once\n#include "config.h"\n'
                      "static inline int mix(int a, int b) { return (a * 31 + b) ^ (a >> 3); }\n")
for m in range(modules):
    source[f"mod{m}.h"] = ('#pragma once\n#include "common.h"\n'
                           f"#define MOD{m}_BASE {m * 7 + 1}\n"
                           f"int mod{m}_step(int x);\n")
for i in range(files):
    m = i % modules
    body = [f'#include "mod{m}.h"']
    for k in range(6):
        body.append(f"static int f{i}_{k}(int x) {{ int s = MOD{m}_BASE; "
                    f"for (int j = 0; j < LIMIT; j++) {{ s = mix(s, x + j * {k + 1}); "
                    f"if (s % {k + 3} == 0) s += SCALE; }} return s; }}")
    calls = " + ".join(f"f{i}_{k}(x)" for k in range(6))
    body.append(f"int entry{i}(int x) {{ return {calls}; }}")
    if i < modules:
        body.append(f"int mod{i}_step(int x) {{ return mix(x, MOD{i}_BASE); }}")
    source[f"f{i:03}.c"] = "\n".join(body) + "\n"
declarations = "".join(f"int entry{i}(int x);\n" for i in range(files))
calls = "".join(f"    total += entry{i}(argc);\n" for i in range(files))
source["main.c"] = (f"{declarations}int main(int argc, char **argv) {{\n    long total = 0;\n"
                    f"{calls}    return (int)(total & 1);\n}}\n")
units = [name[:-2] for name in source if name.endswith(".c")]
flags = "-O2 -MMD"

for tool in tools:
    for name, text in source.items():
        write(f"{tmp}/c-{tool}/src/{name}", text)

objects = [f"obj/{unit}.o" for unit in units]
# The directory for objects: its marker file is stored and put back like any output.
setup = {"id": "obj", "kind": "shell", "run": "mkdir -p obj && touch obj/.dir",
         "generates": ["obj/.dir"], "cache": True}
compile_steps = [{
    "id": f"cc-{unit}", "kind": "shell", "dependsOn": ["obj"],
    "run": f"cc {flags} -MF obj/{unit}.d -c src/{unit}.c -o obj/{unit}.o",
    "sources": [f"src/{unit}.c"], "depfile": f"obj/{unit}.d", "generates": [f"obj/{unit}.o"],
} for unit in units]
link = {"id": "link", "kind": "shell", "run": "cc -o app " + " ".join(objects),
        "dependsOn": [step["id"] for step in compile_steps],
        "sources": objects, "generates": ["app"]}
if "procflow" in tools:
    write(f"{tmp}/c-procflow/build.json",
          json.dumps({"name": "c", "cacheKey": [{"command": "cc --version"}],
                      "procedures": [setup] + compile_steps + [link]}, indent=1))
if "ninja" in tools:
    write(f"{tmp}/c-ninja/build.ninja",
          f"rule cc\n  command = cc {flags} -MF $out.d -c $in -o $out\n  depfile = $out.d\n"
          "  deps = gcc\nrule link\n  command = cc -o $out $in\n"
          + "".join(f"build obj/{unit}.o: cc src/{unit}.c\n" for unit in units)
          + "build app: link " + " ".join(objects) + "\ndefault app\n")
if "make" in tools:
    write(f"{tmp}/c-make/Makefile",
          f"OBJECTS = {' '.join(objects)}\napp: $(OBJECTS)\n\tcc -o $@ $(OBJECTS)\n"
          f"obj/%.o: src/%.c | obj\n\tcc {flags} -MP -c $< -o $@\nobj:\n\tmkdir -p obj\n"
          "-include $(OBJECTS:.o=.d)\n")
