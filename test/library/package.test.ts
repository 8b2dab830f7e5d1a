/**
 * The packed library: `npm pack` (whose prepack runs `npm run build`), then the tarball unpacked
 * as `node_modules/status-page-service` of a fresh project, which plain `node` imports each
 * export of and runs the command-line tool of, and `tsc` type-checks a program against.
 *
 * The project lives in a directory of its own under the system's temporary directory, outside
 * the repository, and its node_modules holds only the packed package.json's `dependencies`,
 * linked from the repository's node_modules: the test reaches no registry, and a module the
 * package needs at run time but declares only as a devDependency (or not at all) is not found,
 * as it would not be in a project that installs the package.
 */
import { execFile } from "node:child_process"
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { promisify } from "node:util"

import { afterAll, beforeAll, describe, expect, it } from "vitest"

import { projectRoot } from "../support/ChildProcess.js"

const run = promisify(execFile)
let project = ""
let installed = ""
let packed: ReadonlyArray<string> = []
let manifest: {
  readonly version: string
  readonly bin: Record<string, string>
  readonly dependencies: Record<string, string>
}

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), "status-page-consumer-"))
  installed = join(project, "node_modules/status-page-service")
  await mkdir(installed, { recursive: true })
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", project], {
    cwd: projectRoot,
    maxBuffer: 64 * 1024 * 1024
  })
  // npm prints prepack's output before the JSON.
  const [{ filename, files }] = JSON.parse(stdout.slice(stdout.indexOf("\n[") + 1)) as Array<
    { filename: string; files: Array<{ path: string }> }
  >
  packed = files.map((file) => file.path)
  await run("tar", ["-xzf", join(project, filename), "-C", installed, "--strip-components=1"])
  manifest = JSON.parse(await readFile(join(installed, "package.json"), "utf8"))
  // What an install of the package brings: its dependencies, and nothing else of the repository's.
  for (const name of Object.keys(manifest.dependencies)) {
    const link = join(project, "node_modules", name)
    await mkdir(dirname(link), { recursive: true })
    await symlink(join(projectRoot, "node_modules", name), link, "dir")
  }
  await writeFile(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }))
}, 180_000)

afterAll(() => project === "" ? undefined : rm(project, { recursive: true, force: true }))

const consumer = `
import { readdirSync } from "node:fs"
import { Effect } from "effect"
import * as Library from "status-page-service"
import * as Api from "status-page-service/api"
import * as Client from "status-page-service/client"
import * as Probe from "status-page-service/probe"

// The dashboard is bundled from the packed sources against the compiled modules.
const { buildAdminBundle } = await import("./node_modules/status-page-service/dist/src/web/admin/AdminBundle.js")
const bundle = await Effect.runPromise(buildAdminBundle)
console.log(JSON.stringify({
  library: Object.keys(Library),
  api: Object.keys(Api),
  client: Object.keys(Client),
  probe: Object.keys(Probe),
  probeAgent: Object.keys(Probe.ProbeAgent),
  migrations: readdirSync(Library.migrationsDirectory).filter((file) => file.endsWith(".sql")).length,
  dashboardBytes: bundle.script.body.length
}))
`

describe("the packed library", () => {
  it("ships the compiled modules, their types and the files they read, and nothing else", () => {
    expect(packed).toEqual(expect.arrayContaining([
      "package.json",
      "dist/src/index.js",
      "dist/src/index.d.ts",
      "dist/src/api/index.d.ts",
      "dist/src/client/StatusPageClient.js",
      "dist/probes/index.js",
      "dist/migrations/0001_foundation.sql",
      "dist/src/web/admin/app/main.tsx"
    ]))
    const unexpected = packed.filter((path) =>
      !(path === "package.json" || path === "README.md" || path.startsWith("dist/")) || path === "dist/probe.mjs" ||
      path.startsWith("dist/probe-chunks/")
    )
    expect(unexpected).toEqual([])
  })

  it("imports every export with plain node", async () => {
    await writeFile(join(project, "check.mjs"), consumer)
    const { stdout } = await run(process.execPath, ["check.mjs"], { cwd: project })
    const found = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>
    expect(found.library).toEqual(expect.arrayContaining([
      "ApiHandlers",
      "ApiRole",
      "DispatcherRole",
      "IngestRole",
      "Migrations",
      "Roles",
      "SchedulerRole",
      "apiGroupsFor",
      "runMigrations",
      "serverMiddleware"
    ]))
    expect(found.api).toEqual(expect.arrayContaining(["Api", "ComponentsApi", "Component", "CreateComponent"]))
    expect(found.client).toEqual(expect.arrayContaining(["StatusPageClient", "makeStatusPageClient"]))
    expect(found.probe).toEqual(expect.arrayContaining(["ProbeAgent", "RedisJobTransport", "CheckJob"]))
    expect(found.probeAgent).toEqual(expect.arrayContaining(["layer", "layerConfig"]))
    expect(found.migrations).toBeGreaterThan(0)
    expect(found.dashboardBytes).toBeGreaterThan(1000)
  })

  it("runs its command-line tool with plain node", async () => {
    const { stdout } = await run(process.execPath, [join(installed, manifest.bin["status-page"]!), "--version"], {
      cwd: project
    })
    expect(stdout.trim()).toBe(manifest.version)
    const own = JSON.parse(await readFile(join(projectRoot, "package.json"), "utf8")) as { version: string }
    expect(manifest.version).toBe(own.version)
  })

  it("type-checks a program against the packed declarations", async () => {
    await writeFile(
      join(project, "program.ts"),
      `
import { HttpApi } from "effect/http-api"
import { Layer } from "effect"
import { apiGroupsFor, Migrations, Roles } from "status-page-service"
import { Api, type Component } from "status-page-service/api"
import { makeStatusPageClient } from "status-page-service/client"
import { ProbeAgent } from "status-page-service/probe"

class MyApi extends HttpApi.make("mine").addHttpApi(Api) {}
export const groups = apiGroupsFor(MyApi)
export const app = Roles.pipe(Layer.provide(Migrations))
export const client = makeStatusPageClient({ baseUrl: "http://127.0.0.1:3000" })
export const probe = ProbeAgent.layer({ region: "eu", name: "p1", concurrency: 1, claimIdleMs: 30_000 })
export const name = (component: Component) => component.name
`
    )
    await writeFile(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          strict: true,
          noEmit: true,
          types: ["node"],
          typeRoots: [join(projectRoot, "node_modules/@types")]
        },
        files: ["program.ts"]
      })
    )
    const result = await run(process.execPath, [join(projectRoot, "node_modules/typescript/bin/tsc"), "-p", "."], {
      cwd: project
    }).catch((error: { stdout: string }) => ({ stdout: error.stdout }))
    expect(result.stdout).toBe("")
  }, 60_000)
})
