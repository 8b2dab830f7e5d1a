/**
 * The static mirror (docs/operations.md, "Static mirror") against a real S3-compatible server (s3rver, through the AWS
 * SDK) and a real folder: what a reader sent to the mirror gets is what the service answers, a
 * change reaches it with its items before the index, only changed bytes are written, what is no
 * longer public leaves it, and a bucket that was away or edited by hand catches up.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as Path from "node:path"

import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime, Metric } from "effect"
import { HttpServer } from "effect/http"

import { mirrorLag } from "../../src/observability/Metrics.js"
import { StateChanges, type Touched } from "../../src/services/StateChanges.js"
import { MirrorPublisher } from "../../src/workers/MirrorPublisher.js"
import { mirroredPaths, mirrorKeyOf, s3Credentials, type S3Server, startS3Server } from "../support/S3Server.js"
import { ApiClient, LiveTestServer } from "../support/TestServer.js"

/** The service on a loopback port with the mirror's publisher, as the `api` role runs it. */
const startMirroredStack = async (variables: Record<string, string>) => {
  // StateChanges merged too (the same instance the publisher and the API use), for the tests to announce on.
  const runtime = ManagedRuntime.make(
    MirrorPublisher.pipe(Layer.provideMerge(StateChanges.layer), Layer.provideMerge(LiveTestServer(variables)))
  )
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (server) => server.address))
  if (address._tag === "UnixPathAddress") throw new Error("the test server is not on TCP")
  const baseUrl = `http://127.0.0.1:${address.port}`
  return {
    api: <A, E>(request: (client: Effect.Success<typeof ApiClient>) => Effect.Effect<A, E>) =>
      runtime.runPromise(Effect.flatMap(ApiClient, request)),
    /** What the service answers a reader for `path`. */
    read: async (path: string) => {
      const response = await fetch(`${baseUrl}${path}`)
      return { body: Buffer.from(await response.arrayBuffer()), contentType: response.headers.get("content-type") }
    },
    /** Announces a change as a committed write would, in this process. */
    announce: (touched: Touched) =>
      runtime.runPromise(Effect.gen(function*() {
        yield* (yield* StateChanges).announce(touched)
      })),
    /** Publications after a change so far (each records its lag). */
    publications: () => runtime.runPromise(Effect.map(Metric.value(mirrorLag), (state) => state.count)),
    dispose: () => runtime.dispose()
  }
}

type Stack = Awaited<ReturnType<typeof startMirroredStack>>

const text = (body: Buffer | undefined) => body?.toString("utf8") ?? ""

describe("static mirror in an S3-compatible bucket", () => {
  let s3: S3Server
  let stack: Stack
  const stray = "incidents/00000000-0000-4000-8000-000000000000"

  beforeAll(async () => {
    s3 = await startS3Server()
    // What a bucket may hold from before: an item no longer public, and a page edited by hand.
    await s3.put(stray, "gone")
    await s3.put("index.html", "edited by hand")
    stack = await startMirroredStack({ MIRROR_S3_URL: `${s3.endpoint}/${s3.bucket}`, ...s3Credentials })
  })

  afterAll(async () => {
    await stack?.dispose()
    await s3?.dispose()
  })

  it("holds what the service answers, with its content type and Cache-Control; the start resynchronises", async () => {
    await expect.poll(async () => (await s3.keys()).includes("api/v1/status/atom"), { timeout: 10_000 }).toBe(true)
    for (const path of mirroredPaths) {
      // The page and uptime move with the minute: compare once both have settled.
      await expect.poll(async () => {
        const [served, mirrored] = await Promise.all([stack.read(path), s3.get(mirrorKeyOf(path))])
        return mirrored !== undefined && served.body.equals(mirrored.body) &&
          mirrored.contentType === served.contentType
      }, { timeout: 10_000, message: path }).toBe(true)
      expect((await s3.get(mirrorKeyOf(path)))?.cacheControl).toBe("public, max-age=5")
    }
    expect(await s3.keys()).not.toContain(stray)
  })

  it("publishes a new incident's page and JSON before the index that links to them", async () => {
    const started = Date.now()
    const incident = await stack.api((client) =>
      client.incidents.create({ payload: { title: "Mirrored outage", message: "Looking into it" } })
    )
    const page = `incidents/${incident.id}`
    await expect.poll(async () => text((await s3.get("index.html"))?.body).includes("Mirrored outage"), {
      timeout: 10_000
    }).toBe(true)
    console.log(`mirror: a new incident reached the bucket's index ${Date.now() - started} ms after its creation`)
    // By the time the index names it, its page and JSON are there, and were written before it.
    expect(text((await s3.get(page))?.body)).toContain("Looking into it")
    expect(JSON.parse(text((await s3.get(`api/v1/status/incidents/${incident.id}`))?.body))).toMatchObject({
      id: incident.id,
      title: "Mirrored outage"
    })
    expect(s3.written.lastIndexOf(page)).toBeLessThan(s3.written.lastIndexOf("index.html"))
    expect(s3.written.lastIndexOf(`api/v1/status/incidents/${incident.id}`)).toBeLessThan(
      s3.written.lastIndexOf("index.html")
    )
  })

  it("links from the page to objects the bucket holds", async () => {
    await expect.poll(async () => (await s3.keys()).some((key) => key.startsWith("incidents/")), { timeout: 10_000 })
      .toBe(true)
    const keys = new Set(await s3.keys())
    for (const source of ["index.html", "history", ...[...keys].filter((key) => key.startsWith("incidents/"))]) {
      const html = text((await s3.get(source))?.body)
      const links = [...html.matchAll(/href="(\/[^"#]*)"/g)].map((match) => match[1]!)
      expect(links.length, source).toBeGreaterThan(0)
      for (const link of links) expect(keys.has(mirrorKeyOf(link)), `${source} links to ${link}`).toBe(true)
    }
  })

  it("writes only the objects whose bytes changed", async () => {
    const incident = await stack.api((client) =>
      client.incidents.create({ payload: { title: "Only what changed", message: "First words" } })
    )
    await expect.poll(async () => (await s3.keys()).includes(`incidents/${incident.id}`), { timeout: 10_000 }).toBe(
      true
    )
    // Settled: the index shows it, so the publication that wrote it is over.
    await expect.poll(async () => text((await s3.get("index.html"))?.body).includes("Only what changed"), {
      timeout: 10_000
    }).toBe(true)
    s3.written.length = 0
    await stack.api((client) =>
      client.incidents.addUpdate({
        params: { id: incident.id },
        payload: { status: "identified", message: "Found it" }
      })
    )
    await expect.poll(async () => text((await s3.get(`incidents/${incident.id}`))?.body).includes("Found it"), {
      timeout: 10_000
    }).toBe(true)
    await expect.poll(() => s3.written.includes("index.html"), { timeout: 10_000 }).toBe(true)
    // No component changed: their list and the badge stay as they were.
    expect(s3.written).not.toContain("api/v1/status/components")
    expect(s3.written).not.toContain("badge.svg")
    expect(new Set(s3.written).size).toBe(s3.written.length)
  })

  it("deletes the objects of an incident made private", async () => {
    const incident = await stack.api((client) =>
      client.incidents.create({ payload: { title: "Soon private", message: "Public for now" } })
    )
    const keys = [`incidents/${incident.id}`, `api/v1/status/incidents/${incident.id}`]
    await expect.poll(async () => (await s3.keys()).includes(keys[0]!), { timeout: 10_000 }).toBe(true)
    await stack.api((client) => client.incidents.update({ params: { id: incident.id }, payload: { isPublic: false } }))
    await expect.poll(async () => (await s3.keys()).filter((key) => keys.includes(key)), { timeout: 10_000 })
      .toEqual([])
    expect(text((await s3.get("index.html"))?.body)).not.toContain("Soon private")
  })

  it("holds every public page under /p/<slug>/ with what it shows, and nothing of a protected one", async () => {
    const shown = await stack.api((client) => client.components.create({ payload: { name: "Partner API" } }))
    const incident = await stack.api((client) =>
      client.incidents.create({
        payload: { title: "Partner outage", message: "Looking into it", componentIds: [shown.id] }
      })
    )
    await stack.api((client) =>
      client.statusPages.create({
        payload: { slug: "partners", title: "Partners", items: [{ type: "component", id: shown.id }] }
      })
    )
    await stack.api((client) =>
      client.statusPages.create({ payload: { slug: "staff", audience: "protected", password: "staff only 123" } })
    )
    const page = "p/partners/index.html"
    await expect.poll(async () => text((await s3.get(page))?.body).includes("Partner outage"), { timeout: 10_000 })
      .toBe(true)
    // The page's own objects, as the service answers them at its address.
    for (const path of ["/p/partners/", "/p/partners/api/v1/status", `/p/partners/incidents/${incident.id}`]) {
      await expect.poll(async () => {
        const [served, mirrored] = await Promise.all([stack.read(path), s3.get(mirrorKeyOf(path))])
        return mirrored !== undefined && served.body.equals(mirrored.body)
      }, { timeout: 10_000, message: path }).toBe(true)
    }
    const summary = JSON.parse(text((await s3.get("p/partners/api/v1/status"))?.body)) as {
      components: ReadonlyArray<{ name: string }>
    }
    expect(summary.components.map((component) => component.name)).toEqual(["Partner API"])
    expect((await s3.keys()).filter((key) => key.startsWith("p/staff/"))).toEqual([])
  })

  it("catches up once a bucket that was away is back", async () => {
    await s3.stop()
    const incident = await stack.api((client) =>
      client.incidents.create({ payload: { title: "While the bucket was away", message: "Still answered" } })
    )
    // The service answers readers whatever the bucket does.
    expect(text((await stack.read("/")).body)).toContain("While the bucket was away")
    await new Promise((resolve) => setTimeout(resolve, 1500))
    await s3.restart()
    await expect.poll(async () => (await s3.keys()).includes(`incidents/${incident.id}`), { timeout: 20_000 }).toBe(
      true
    )
    await expect.poll(async () => text((await s3.get("index.html"))?.body).includes("While the bucket was away"), {
      timeout: 10_000
    }).toBe(true)
  })
})

describe("static mirror in a folder", () => {
  let folder: string
  let stack: Stack

  beforeAll(async () => {
    folder = mkdtempSync(Path.join(tmpdir(), "mirror-"))
    stack = await startMirroredStack({ MIRROR_DIR: folder })
  })

  afterAll(async () => {
    await stack?.dispose()
    rmSync(folder, { recursive: true, force: true })
  })

  const file = (name: string) => {
    try {
      return readFileSync(Path.join(folder, name))
    } catch {
      return undefined
    }
  }

  it("writes each path as a file a static host types by its extension", async () => {
    const incident = await stack.api((client) =>
      client.incidents.create({ payload: { title: "Folder outage", message: "In a file" } })
    )
    const files: Record<string, string> = {
      "/": "index.html",
      "/history": "history.html",
      "/api/v1/status": "api/v1/status.json",
      "/api/v1/status/rss": "api/v1/status/rss.rss",
      "/widget.json": "widget.json",
      [`/incidents/${incident.id}`]: `incidents/${incident.id}.html`,
      [`/api/v1/status/incidents/${incident.id}`]: `api/v1/status/incidents/${incident.id}.json`
    }
    for (const [path, name] of Object.entries(files)) {
      await expect.poll(async () => file(name)?.equals((await stack.read(path)).body) ?? false, {
        timeout: 10_000,
        message: name
      }).toBe(true)
    }
  })

  it("publishes nothing for a monitor's state alone, and again at the next public change", async () => {
    await expect.poll(async () => file("index.html")?.equals((await stack.read("/")).body) ?? false, {
      timeout: 10_000
    }).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 500))
    const before = await stack.publications()
    // What ingest announces when monitors change state: the dashboard's, not the page's.
    await stack.announce({ monitors: true })
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(await stack.publications()).toBe(before)
    await stack.announce({ components: true })
    await expect.poll(() => stack.publications(), { timeout: 10_000 }).toBeGreaterThan(before)
  })
})
