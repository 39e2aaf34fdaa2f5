// npm run build:cli [-- --pack]: the toolkit as an installable npm package, @contract-first/toolkit,
// in dist/toolkit/ (packed with --pack into dist/packages/). The repository root stays private (it
// is the workspace, with every dev tool); the package is made from it:
//   bin/contract-toolkit.mjs   checks the Node.js version, then loads dist/cli.mjs
//   dist/cli.mjs, dist/verb-<verb>.mjs, dist/chunk-*.mjs   one esbuild bundle (ES modules, code split):
//                              the CLI and each verb's script; packages stay dependencies
//   redocly.yaml, openapi/, generated/<api>/openapi.json, workflows/, server/**/*.json
//                              the toolkit's own three APIs, at the places the code finds them
//   assets/rapidoc/            RapiDoc's built file (the try-it console), without RapiDoc's own
//                              dependencies: they only build that file, and were a third of the install
//                              (103 packages, 164 MB, half of an offline install's time)
//   package.json, npm-shrinkwrap.json, README.md
// Modules find their files from their own place in the repository (import.meta.dirname); in the
// bundle each module's import.meta is rewritten to that place under the package's root, found at
// run time from the bundle's own URL, so the package works wherever npm puts it.
// npm-shrinkwrap.json pins every dependency, transitively, to the versions of this repository's
// package-lock.json (the versions its tests ran with), so an install resolves nothing anew and can
// be done offline from the npm cache.
import { build, type Plugin } from "esbuild";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { createRequire } from "node:module";
import { RAPIDOC_ASSETS } from "../scripts/docs/try-it.ts";
import { VERBS } from "./main.ts";
import { isProgram } from "../scripts/project.ts";

const root = path.resolve(import.meta.dirname, "..");
export const PACKAGE_NAME = "@contract-first/toolkit";
export const BIN_NAME = "contract-toolkit";

/** Rewrites import.meta.dirname / import.meta.url of each source file to its place under the package root. */
export function toolkitLocation(sourceRoot: string): Plugin {
  return {
    name: "toolkit-location",
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        const source = await readFile(args.path, "utf8");
        if (!source.includes("import.meta.")) return { contents: source, loader: "ts" };
        const rel = path.relative(sourceRoot, args.path).split(path.sep).join("/");
        const contents =
          // First, so that the module's top-level code finds it. Every output file is in
          // <package>/dist/: the package root is one folder up from it.
          `import * as __toolkitPath from "node:path"; import * as __toolkitUrl from "node:url"; const __toolkitRoot = __toolkitUrl.fileURLToPath(new URL("..", import.meta.url));\n` +
          source
            .replaceAll("import.meta.dirname", `__toolkitPath.join(__toolkitRoot, ${JSON.stringify(path.posix.dirname(rel))})`)
            .replaceAll("import.meta.url", `__toolkitUrl.pathToFileURL(__toolkitPath.join(__toolkitRoot, ${JSON.stringify(rel)})).href`);
        return { contents, loader: "ts" };
      });
    },
  };
}

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  dev?: boolean;
  devOptional?: boolean;
  [key: string]: unknown;
}

/** Where npm finds `name` for the package at `from` (a lock location): its own node_modules, then its parents'. */
function locate(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  for (let at = from; ; ) {
    const candidate = `${at ? `${at}/` : ""}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!at) return undefined;
    const cut = at.lastIndexOf("/node_modules/");
    at = cut < 0 ? "" : at.slice(0, cut);
  }
}

/** The npm registry's tarball URL of a package version: .../@scope/name/-/name-1.0.0.tgz */
export function registryTarball(name: string, version: string): string {
  return `https://registry.npmjs.org/${name}/-/${name.split("/").pop()}-${version}.tgz`;
}

/** The part of a package-lock.json that `dependencies` need, transitively, as an npm-shrinkwrap.json. */
export function shrinkwrapFor(lock: { packages: Record<string, LockEntry> }, rootEntry: LockEntry): object {
  const packages: Record<string, LockEntry> = {};
  const queue: [string, Record<string, string>][] = [["", { ...rootEntry.dependencies }]];
  while (queue.length) {
    const [from, deps] = queue.shift()!;
    for (const name of Object.keys(deps)) {
      const at = locate(lock.packages, from, name);
      if (!at) {
        const optional = lock.packages[from]?.optionalDependencies?.[name] !== undefined || lock.packages[from]?.peerDependenciesMeta?.[name]?.optional;
        if (optional || lock.packages[from]?.peerDependencies?.[name] !== undefined) continue;
        throw new Error(`package-lock.json has no ${name} for ${from || "the toolkit"}: run npm install`);
      }
      if (packages[at]) continue;
      const { dev, devOptional, ...entry } = lock.packages[at]!;
      void dev;
      void devOptional;
      // npm leaves `resolved` out of a lock entry now and then; a lock without it makes npm ci ask the
      // registry where the tarball is. The registry's address for it, as npm itself writes it.
      if (!entry.resolved && !entry.link && entry.version && entry.integrity) entry.resolved = registryTarball(at.slice(at.lastIndexOf("node_modules/") + "node_modules/".length), entry.version);
      packages[at] = entry;
      queue.push([at, { ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies }]);
    }
  }
  const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => a.localeCompare(b)));
  return { name: rootEntry.name, version: rootEntry.version, lockfileVersion: 3, requires: true, packages: { "": rootEntry, ...sorted } };
}

/**
 * The packages patched under patches/ (`<name>+<version>.patch`, or a sequence of
 * `<name>+<version>+<nnn>+<what>.patch`; a scope as `@scope+name`), shipped inside the package.
 */
const PATCHED_PACKAGES = [
  ...new Set(
    readdirSync(path.join(root, "patches"))
      .filter((file) => file.endsWith(".patch"))
      .map((file) => file.replace(/\+\d+\.\d+\.\d+[^+]*(\+.*)?\.patch$/, "").replace(/\+/g, "/")),
  ),
];

const projectPackage = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
const DIRECT_DEPENDENCIES = new Set(Object.keys({ ...projectPackage.dependencies, ...projectPackage.devDependencies }));

/**
 * The patched packages the built code may import from vendor/: those the toolkit depends on itself.
 * Only those it does import are shipped (not openapi-typescript, which `npm run generate` runs, no
 * verb of the CLI). A patched package only a dependency requires (@redocly/openapi-core, for
 * openapi-typescript) is never shipped; the build fails if the bundle comes to import its dependent.
 */
const VENDORED_PACKAGES = PATCHED_PACKAGES.filter((name) => DIRECT_DEPENDENCIES.has(name));

/** The packages the toolkit depends on that require `name`. */
function dependentsOf(name: string): string[] {
  return [...DIRECT_DEPENDENCIES].filter((dependency) => {
    const manifest = path.join(root, "node_modules", dependency, "package.json");
    return existsSync(manifest) && name in ((JSON.parse(readFileSync(manifest, "utf8")) as { dependencies?: Record<string, string> }).dependencies ?? {});
  });
}

/**
 * The patched packages' imports, taken to the package's own copy under vendor/ (its entry file; every
 * output file is in <package>/dist/). Not npm's bundleDependencies: `npm ci` of the packed toolkit
 * also unpacked the registry's copy of a bundled package over the bundled one (npm 11 here; a file
 * of the registry's shorter text with the tail of the patched one left after it).
 */
function vendoredPatchedPackages(names: readonly string[]): Plugin {
  const entryOf = (name: string): string => {
    const manifest = JSON.parse(readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")) as { main?: string };
    return path.posix.normalize(manifest.main ?? "index.js");
  };
  return {
    name: "vendored-patched-packages",
    setup(b) {
      for (const name of names) {
        const escaped = name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
        b.onResolve({ filter: new RegExp(`^${escaped}(/.*)?$`) }, (args) => {
          const subpath = args.path.slice(name.length);
          return { path: `../vendor/${name}/${subpath ? subpath.slice(1) : entryOf(name)}`, external: true };
        });
      }
    },
  };
}

/** Package names of bare imports (node:* and relative ones aside). */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("node:")) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

function copyTree(from: string, to: string, keep: (file: string) => boolean): void {
  for (const entry of readdirSync(from)) {
    const source = path.join(from, entry);
    if (statSync(source).isDirectory()) copyTree(source, path.join(to, entry), keep);
    else if (keep(source)) {
      mkdirSync(to, { recursive: true });
      cpSync(source, path.join(to, entry));
    }
  }
}

export async function buildToolkitPackage(outDir = path.join(root, "dist", "toolkit")): Promise<string> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const rootPackage = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
    version: string;
    engines: Record<string, string>;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };

  const entryPoints: Record<string, string> = { cli: path.join(root, "cli", "main.ts") };
  for (const [name, verb] of Object.entries(VERBS)) entryPoints[`verb-${name}`] = path.join(root, verb.script);
  const result = await build({
    absWorkingDir: root,
    entryPoints,
    outdir: path.join(outDir, "dist"),
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    chunkNames: "chunk-[hash]",
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    metafile: true,
    logLevel: "warning",
    define: { __TOOLKIT_BUNDLE__: "true", __TOOLKIT_VERSION__: JSON.stringify(rootPackage.version) },
    plugins: [toolkitLocation(root), vendoredPatchedPackages(VENDORED_PACKAGES)],
  });

  // The dependencies: every package the bundle imports, and the tools it runs (Redocly, Prism).
  // The patched packages stay dependencies: npm installs what their vendored copies require.
  const outputImports = Object.values(result.metafile.outputs).flatMap((output) => output.imports.filter((i) => i.external).map((i) => i.path));
  const vendored = VENDORED_PACKAGES.filter((name) => outputImports.some((specifier) => specifier.startsWith(`../vendor/${name}/`)));
  const imported = new Set<string>(["@redocly/cli", "@stoplight/prism-cli", ...vendored]);
  for (const specifier of outputImports) if (packageOf(specifier)) imported.add(packageOf(specifier)!);
  for (const name of PATCHED_PACKAGES.filter((p) => !DIRECT_DEPENDENCIES.has(p))) {
    const reached = dependentsOf(name).filter((dependent) => imported.has(dependent));
    if (reached.length) throw new Error(`the bundle imports ${reached.join(", ")}, which requires ${name}, patched under patches/: it would run the registry's copy`);
  }
  const versions = { ...rootPackage.devDependencies, ...rootPackage.dependencies };
  const dependencies = Object.fromEntries(
    [...imported].sort().map((name) => {
      if (!versions[name]) throw new Error(`the bundle imports ${name}, which package.json does not list`);
      return [name, versions[name]!];
    }),
  );

  mkdirSync(path.join(outDir, "bin"), { recursive: true });
  cpSync(path.join(root, "cli", "bin.mjs"), path.join(outDir, "bin", `${BIN_NAME}.mjs`));
  cpSync(path.join(root, "cli", "node-version.mjs"), path.join(outDir, "bin", "node-version.mjs"));
  // The toolkit's own three APIs, where the servers and the registry look for them.
  cpSync(path.join(root, "redocly.yaml"), path.join(outDir, "redocly.yaml"));
  copyTree(path.join(root, "openapi"), path.join(outDir, "openapi"), () => true);
  copyTree(path.join(root, "generated"), path.join(outDir, "generated"), (f) => f.endsWith("openapi.json"));
  copyTree(path.join(root, "workflows"), path.join(outDir, "workflows"), (f) => /\.(arazzo|openapi)\.yaml$/.test(f) && !f.includes(`${path.sep}fixtures${path.sep}`));
  copyTree(path.join(root, "server"), path.join(outDir, "server"), (f) => f.endsWith(".json"));
  cpSync(path.join(root, "cli", "README.md"), path.join(outDir, "README.md"));
  // The try-it console's one file, with its licences, where scripts/docs/try-it.ts looks in the package.
  const rapidoc = path.dirname(createRequire(import.meta.url).resolve("rapidoc/package.json"));
  mkdirSync(path.join(outDir, RAPIDOC_ASSETS), { recursive: true });
  for (const file of ["dist/rapidoc-min.js", "dist/rapidoc-min.js.LICENSE.txt", "LICENSE.txt"]) cpSync(path.join(rapidoc, file), path.join(outDir, RAPIDOC_ASSETS, path.basename(file)));
  // Libraries this repository fixes under patches/ go inside the package as patched here, under
  // vendor/, where the bundle imports them from (npm 11 runs no dependency's install script, so
  // patch-package could not apply the patches in an installed toolkit).
  for (const name of vendored) {
    // What runs: the JavaScript, not the type declarations and source maps (the package is JavaScript only).
    cpSync(path.join(root, "node_modules", name), path.join(outDir, "vendor", name), { recursive: true, filter: (source) => !/\.(d\.ts|map)$/.test(source) });
  }

  const manifest = {
    name: PACKAGE_NAME,
    version: rootPackage.version,
    description: "Mocks, serves and checks OpenAPI 3.1 APIs: reference servers, a truthful mock, traffic validation, a validating proxy, breaking-change diff, conformance, docs",
    license: "UNLICENSED",
    type: "module",
    bin: { [BIN_NAME]: `bin/${BIN_NAME}.mjs` },
    engines: rootPackage.engines,
    files: ["assets", "bin", "dist", "generated", "openapi", "server", "vendor", "workflows", "redocly.yaml", "README.md", "npm-shrinkwrap.json"],
    dependencies,
  };
  writeFileSync(path.join(outDir, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
  const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> };
  const rootEntry = { name: PACKAGE_NAME, version: rootPackage.version, dependencies, bin: manifest.bin, engines: manifest.engines } as LockEntry;
  writeFileSync(path.join(outDir, "npm-shrinkwrap.json"), JSON.stringify(shrinkwrapFor(lock, rootEntry), null, 2) + "\n");
  return outDir;
}

/** `npm pack` of the package folder into `destination`; answers the tarball's path. */
export function packToolkit(dir: string, destination: string): string {
  mkdirSync(destination, { recursive: true });
  const out = execFileSync("npm", ["pack", dir, "--pack-destination", destination, "--json", "--silent"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const [info] = JSON.parse(out) as [{ filename: string }];
  return path.join(destination, info.filename);
}

/**
 * A folder where `npm ci --offline` installs the packed toolkit, its dependencies taken from the npm
 * cache: package.json naming the tarball, and a package-lock.json made of the package's
 * npm-shrinkwrap.json (a lock resolves nothing, so no registry metadata is needed). npm honours a
 * dependency's shrinkwrap only for packages from a registry, not for a tarball file, hence this.
 */
export function offlineInstallKit(tarball: string, into: string): string {
  mkdirSync(into, { recursive: true });
  const shrinkwrap = JSON.parse(execFileSync("tar", ["-xzOf", tarball, "package/npm-shrinkwrap.json"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })) as {
    packages: Record<string, LockEntry>;
  };
  const { "": toolkit, ...all } = shrinkwrap.packages;
  // Hoisted to the kit's root, but for what the toolkit's tarball brings itself (its bundled packages).
  const dependencies = Object.fromEntries(
    Object.entries(all).map(([at, entry]) => [entry.inBundle ? `node_modules/${PACKAGE_NAME}/${at}` : at, entry]),
  );
  const spec = `file:${path.relative(into, tarball).split(path.sep).join("/")}`;
  const integrity = `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`;
  writeFileSync(path.join(into, "package.json"), JSON.stringify({ name: "toolkit-offline-install", private: true, dependencies: { [PACKAGE_NAME]: spec } }, null, 2) + "\n");
  const lock = {
    name: "toolkit-offline-install",
    lockfileVersion: 3,
    requires: true,
    packages: {
      "": { name: "toolkit-offline-install", dependencies: { [PACKAGE_NAME]: spec } },
      [`node_modules/${PACKAGE_NAME}`]: { ...toolkit, name: undefined, resolved: spec, integrity },
      ...dependencies,
    },
  };
  writeFileSync(path.join(into, "package-lock.json"), JSON.stringify(lock, null, 2) + "\n");
  writeLocalPrebuilds(into, dependencies);
  return into;
}

/**
 * The native binaries this repository's own install built, as prebuilds next to the kit: a
 * dependency installed with prebuild-install (better-sqlite3) takes its binary from there instead of
 * compiling its C sources, which an offline install otherwise does (a minute of CPU here; online,
 * prebuild-install downloads the same kind of file from the package's releases). prebuild-install
 * reads `local-prebuilds` from a .prebuild-installrc in a parent folder of the package (rc's
 * lookup), and only a file named for this platform, Node.js ABI and version: anywhere else it
 * downloads or compiles as usual.
 */
function writeLocalPrebuilds(into: string, packages: Record<string, LockEntry>): void {
  const dir = path.join(into, "prebuilds");
  rmSync(dir, { recursive: true, force: true });
  rmSync(path.join(into, ".prebuild-installrc"), { force: true });
  const libc = process.platform === "linux" && !(process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime ? "musl" : "";
  for (const [at, entry] of Object.entries(packages)) {
    if (!entry.hasInstallScript || !at.startsWith("node_modules/") || at.includes("/node_modules/", "node_modules/".length)) continue;
    const name = at.slice("node_modules/".length);
    const here = path.join(root, "node_modules", name);
    let manifest: { version?: string; scripts?: { install?: string } };
    try {
      manifest = JSON.parse(readFileSync(path.join(here, "package.json"), "utf8"));
    } catch {
      continue;
    }
    if (manifest.version !== entry.version || !manifest.scripts?.install?.startsWith("prebuild-install")) continue;
    // The module's own binary only, as in its published prebuilds (prebuild-install loads the last
    // .node file it unpacks to check it; better-sqlite3 also builds a test extension).
    const bare = name.replace(/^@[^/]+\//, "");
    const binary = `build/Release/${bare.replace(/-/g, "_")}.node`;
    if (!existsSync(path.join(here, binary))) continue;
    mkdirSync(dir, { recursive: true });
    const file = `${bare}-v${entry.version}-node-v${process.versions.modules}-${process.platform}${libc}-${process.arch}.tar.gz`;
    execFileSync("tar", ["-czf", path.join(dir, file), "-C", here, binary]);
  }
  if (existsSync(dir)) writeFileSync(path.join(into, ".prebuild-installrc"), `local-prebuilds=${dir}\n`);
}

if (isProgram(import.meta.url)) {
  const started = Date.now();
  console.log("build:cli: bundling the CLI with esbuild...");
  const dir = await buildToolkitPackage();
  console.log(`build:cli: ${path.relative(process.cwd(), dir)} built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (process.argv.includes("--pack")) {
    const tarball = packToolkit(dir, path.join(root, "dist", "packages"));
    console.log(`build:cli: packed ${path.relative(process.cwd(), tarball)}`);
    const kit = offlineInstallKit(tarball, path.join(root, "dist", "packages", "toolkit-offline"));
    console.log(`build:cli: ${path.relative(process.cwd(), kit)}: \`npm ci --offline\` there installs it from the npm cache`);
  }
}
