/**
 * Builds the probe agent (`npm run build:probe`): probes/main.ts and everything it imports
 * (Effect, ioredis, the checks) bundled by esbuild into `dist/probe.mjs` and the chunks of
 * `dist/probe-chunks/`, which plain `node dist/probe.mjs` starts (Node >= 20) with no
 * node_modules beside it. The metrics and trace exporters, loaded by dynamic import only when
 * PROBE_METRICS_PORT or OTEL_EXPORTER_OTLP_ENDPOINT is set, are chunks of their own: inlined,
 * their code alone cost an idle probe about 18 MB (docs/benchmarks.md). probes/Dockerfile copies
 * the file and the folder into its image.
 *
 * `--outfile <path>` writes elsewhere (the tests build into a temporary directory); `--metafile`
 * also writes esbuild's metafile next to the bundle (`<outfile>.meta.json`) and prints the
 * largest inputs. The build fails when a package that only the service needs (database,
 * dashboard, mail, HTTP server) finds its way into the bundle.
 */
import { rmSync, writeFileSync } from "node:fs"
import { basename, dirname, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

import * as esbuild from "esbuild"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")

/** Packages a probe must never carry: a path in the bundle matching one of these fails the build. */
export const forbiddenInputs: ReadonlyArray<RegExp> = [
  /node_modules\/@electric-sql\//,
  /node_modules\/@effect\/sql/,
  /node_modules\/pg(-[a-z]+)?\//,
  /node_modules\/preact\//,
  /node_modules\/nodemailer\//,
  /node_modules\/@effect\/(cluster|rpc|experimental)\//,
  /node_modules\/@effect\/platform-node\/dist\/esm\/(Node)?Http/,
  /node_modules\/(undici|ws|mime|multipasta)\//,
  /(^|\/)src\/(persistence|http|api|web|workers)\//
]

/**
 * `@effect/platform-node`'s index re-exports every module of the package, and through them
 * undici, ws, @effect/cluster and the HTTP server, which esbuild cannot leave out (their
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
    plugins: [platformNodeRuntimeOnly],
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
  if (options.metafile === true) writeFileSync(`${outfile}.meta.json`, JSON.stringify(result.metafile))
  return { outfile, ...outputBytes(result.metafile, outfile), metafile: result.metafile }
}

/**
 * `bytes`: what a probe reads at start, the entry and the chunks it imports statically;
 * `totalBytes`: every output, the chunks behind dynamic imports included.
 */
const outputBytes = (metafile: esbuild.Metafile, outfile: string) => {
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
    } with the exporters`
  )
  if (args.includes("--metafile")) {
    for (const [name, bytes] of bytesByPackage(built.metafile).slice(0, 15)) console.log(`  ${kB(bytes)}  ${name}`)
  }
}
