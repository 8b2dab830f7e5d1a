/**
 * The probe as operators run it: `npm run build:probe`'s bundle, started with plain `node`
 * from a directory with no node_modules anywhere above it, against the machine's Redis, running
 * a job published on its region's stream against a loopback HTTP target, and reporting its
 * version (package.json's, inlined: the probe host has no package.json) in its heartbeat.
 */
import { randomUUID } from "node:crypto"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { builtinModules } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"

import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"

import { buildProbe, effectBarrelExports, forbiddenInputs, importEffectModules } from "../../scripts/buildProbe.js"
import { CheckJob, isMissed, ProbeReport } from "../../src/domain/CheckJob.js"
import { ProbeHeartbeat } from "../../src/domain/ProbeHeartbeat.js"
import { metricsUrl, projectRoot, startService } from "../support/ChildProcess.js"
import { eventually } from "../support/Eventually.js"
import { redisPrefix, redisUrl } from "../support/Redis.js"
import { httpServer } from "../support/Servers.js"

const region = "bundle-test"
const encodeJob = Schema.encodeSync(Schema.fromJsonString(CheckJob))
const decodeReport = Schema.decodeUnknownOption(Schema.fromJsonString(ProbeReport))
const decodeHeartbeat = Schema.decodeUnknownOption(Schema.fromJsonString(ProbeHeartbeat))
/** The version the bundle must report: package.json's, inlined at build time. */
const packageVersion = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  readonly version: string
}).version

/** Built once for the file, into a fresh directory outside the project. */
const built = Effect.cached(Effect.acquireRelease(
  Effect.promise(async () => {
    const dir = mkdtempSync(join(tmpdir(), "probe-bundle-"))
    return { dir, ...(await buildProbe({ outfile: join(dir, "probe.mjs") })) }
  }),
  ({ dir }) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
))

/** Directories from `dir` up to the root that hold a node_modules a bare import could resolve to. */
const nodeModulesAbove = (dir: string): Array<string> => {
  const found = existsSync(join(dir, "node_modules")) ? [dir] : []
  return dirname(dir) === dir ? found : [...found, ...nodeModulesAbove(dirname(dir))]
}

const startProbe = (file: string, env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      // Only what an operator sets: no NODE_OPTIONS or loaders inherited from the test runner.
      startService(file, env, { plainNode: true, cwd: dirname(file), home: false })
    ),
    ({ child, exited }) => Effect.promise(() => (child.kill("SIGTERM"), exited))
  )

describe("the bundled probe (dist/probe.mjs)", () => {
  it.effect("is a file and its chunks that import nothing but node's own modules and each other", () =>
    Effect.gen(function*() {
      const bundle = yield* yield* built
      // The metafile's paths are relative to the project.
      const outputs = Object.entries(bundle.metafile.outputs).map(([path, output]) =>
        [resolve(projectRoot, path), output] as const
      )
      expect(outputs.every(([path]) => path === bundle.outfile || path.startsWith(join(bundle.dir, "probe-chunks/"))))
        .toBe(true)
      const builtins = new Set(builtinModules)
      const notBuiltin = (path: string) => !builtins.has(path.replace(/^node:/, ""))
      const external = outputs.flatMap(([, output]) => output.imports.filter((i) => i.external).map((i) => i.path))
      expect(external.length).toBeGreaterThan(0)
      expect(external.filter(notBuiltin)).toEqual([])
      // The banner's `node:module` is outside the metafile: the entry's own import statements say the same.
      const source = readFileSync(bundle.outfile, "utf8")
      const statements = [...source.matchAll(/\bfrom\s*"([^"]+)"/g)].map((match) => match[1]!)
      expect(statements).toContain("node:module")
      expect(statements.filter((path) => notBuiltin(path) && !path.startsWith("./probe-chunks/"))).toEqual([])
      // The exporters are behind dynamic imports: a probe without metrics or traces does not read them.
      const entry = outputs.find(([path]) => path === bundle.outfile)![1]
      const dynamic = entry.imports.filter((i) => i.kind === "dynamic-import").map((i) => i.path)
      expect(dynamic.some((path) => /MetricsExporter/.test(path))).toBe(true)
      expect(dynamic.some((path) => /OtlpTracer/.test(path))).toBe(true)
      expect(bundle.totalBytes).toBeGreaterThan(bundle.bytes)
      // Ioredis is inside; the service's database, dashboard, mail and HTTP server are not.
      const inputs = Object.keys(bundle.metafile.inputs)
      expect(inputs.some((input) => input.includes("node_modules/ioredis/"))).toBe(true)
      expect(inputs.filter((input) => forbiddenInputs.some((pattern) => pattern.test(input)))).toEqual([])
      // Effect comes module by module, not through its barrel (which kept all of Schema, and fast-check with it).
      const inOutput = outputs.flatMap(([, output]) =>
        Object.entries(output.inputs).filter(([, { bytesInOutput }]) => bytesInOutput > 0).map(([input]) => input)
      )
      expect(inOutput.filter((input) => /node_modules\/(effect\/dist\/index\.js|fast-check\/)/.test(input)))
        .toEqual([])
      // Node's modules come by `require` (the banner's), none by an import statement, whose facade
      // would read every export: on node 24, http's would load undici.
      const imported = outputs.flatMap(([, output]) =>
        output.imports.filter((i) => i.external && i.kind !== "require-call").map((i) => i.path)
      )
      expect(imported).toEqual([])
      const chunkStatements = outputs.flatMap(([path]) =>
        [...readFileSync(path, "utf8").matchAll(/\bfrom\s*"(node:[^"]+)"/g)].map((match) => match[1]!)
      )
      expect(new Set(chunkStatements)).toEqual(new Set(["node:module"]))
      // What a probe reads at start: 465 kB on 2026-11-26, 740 kB before the two rewrites.
      expect(bundle.bytes).toBeLessThan(600 * 1024)
    }))

  it("imports Effect's modules themselves instead of its barrel", () => {
    const barrel = [
      "export * as Effect from \"./Effect.js\";",
      "export * as Schema from \"./Schema.js\";",
      "export * as Scope from \"./Scope.js\";",
      "export { absurd, flow, pipe } from \"./Function.js\";"
    ].join("\n")
    const source = [
      "import { Effect, type Scope, pipe, Schema as S } from \"effect\"",
      "import type { Effect as E } from \"effect\"",
      "import { Duration } from \"effect/Duration\""
    ].join("\n")
    expect(importEffectModules(source, effectBarrelExports(barrel)).split("\n")).toEqual([
      "import * as Effect from \"effect/Effect\";",
      "import type * as Scope from \"effect/Scope\";",
      "import { pipe } from \"effect/Function\";",
      "import * as S from \"effect/Schema\"",
      "import type * as E from \"effect/Effect\"",
      "import { Duration } from \"effect/Duration\""
    ])
    expect(() => importEffectModules("import { Nothing } from \"effect\"", effectBarrelExports(barrel), "a.ts"))
      .toThrow("a.ts: \"effect\" has no export Nothing")
  })

  it.effect("runs with plain node and answers a job on its region's stream", () =>
    Effect.gen(function*() {
      const bundle = yield* yield* built
      expect(nodeModulesAbove(bundle.dir)).toEqual([])
      const { prefix, redis } = yield* redisPrefix
      const hits: Array<string> = []
      const target = yield* httpServer((request, response) => {
        hits.push(request.url!)
        response.end("ok")
      })
      // With its metrics on, on any free port: the exporter's chunk loads from beside the bundle.
      const probe = yield* startProbe(bundle.outfile, {
        REDIS_URL: redisUrl,
        REDIS_STREAM_PREFIX: prefix,
        PROBE_REGION: region,
        PROBE_NAME: "bundled-1",
        PROBE_METRICS_PORT: "0",
        HOST: "127.0.0.1"
      })

      // The probe's group starts at the stream's end when it joins: publish until a result comes.
      const monitorId = `bundle-${randomUUID()}`
      const published = new Set<string>()
      const deadline = Date.now() + 15_000
      let lastId = "0"
      let result: ProbeReport | undefined
      let heartbeat: ProbeHeartbeat | undefined
      while (result === undefined && Date.now() < deadline && probe.child.exitCode === null) {
        const job = CheckJob.forRun({
          monitorId,
          type: "http",
          url: `${target.url}/health`,
          timeoutMs: 5000,
          expectedStatusCode: 200,
          intervalSeconds: 60
        }, Date.now() + published.size)
        published.add(job.id)
        yield* Effect.promise(() => redis.xadd(`${prefix}jobs:${region}`, "*", "job", encodeJob(job)))
        const entries = yield* Effect.promise(() =>
          redis.xread("COUNT", 100, "BLOCK", 200, "STREAMS", `${prefix}results:${region}`, lastId)
        )
        for (const [id, fields] of entries?.[0]?.[1] ?? []) {
          lastId = id
          const at = fields.indexOf("result")
          if (at < 0 || at % 2 !== 0) continue
          const report = decodeReport(fields[at + 1])
          if (report._tag === "Some" && published.has(report.value.jobId)) result = report.value
          const beat = decodeHeartbeat(fields[at + 1])
          if (beat._tag === "Some") heartbeat = beat.value
        }
      }

      expect(result, probe.output()).toBeDefined()
      if (result === undefined || isMissed(result)) throw new Error(`expected a check result, got ${String(result)}`)
      expect(result.monitorId).toBe(monitorId)
      expect(result.region).toBe(region)
      expect(result.probe).toBe("bundled-1")
      expect(result.ok).toBe(true)
      expect(result.statusCode).toBe(200)
      expect(hits).toContain("/health")
      expect(probe.output()).toContain("probe ready")
      // Its first heartbeat, sent before any job, carries the version the bundle was built with.
      expect(heartbeat?.name).toBe("bundled-1")
      expect(heartbeat?.version).toBe(packageVersion)
      // The exporter's chunk loads while the probe already takes jobs: on a loaded machine its
      // port may open after the first result. The probe logs the port it got.
      const metricsAt = yield* Effect.promise(() => metricsUrl(probe, 10_000))
      const metrics = yield* eventually(
        Effect.promise(() => fetch(metricsAt).then((r) => r.text(), (error) => String(error))),
        (text) => text.includes("status_page_probe_checks_total"),
        10_000
      )
      expect(metrics).toMatch(/^status_page_probe_checks_total\{[^}]*type="http"[^}]*outcome="ok"[^}]*\} [1-9]/m)
    }))
})
