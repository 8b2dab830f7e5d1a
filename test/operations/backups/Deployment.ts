/**
 * What the backup tests share: the service run as `npm start` runs it (the server bundle, plain
 * node with the start script's flags) on a DATA_DIR or a DATABASE_URL, its first owner's key,
 * a deployment filled through the API with one of everything, and what it shows: every public
 * surface and every admin list, as the bytes (pages, feeds) or JSON the service answers.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"

import { DateTime, Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import * as esbuild from "esbuild"
import { expect } from "vitest"

import { makeStatusPageClient, type StatusPageApiClient } from "../../../src/client/StatusPageClient.js"
import { ComponentId } from "../../../src/domain/Component.js"
import type { IncidentId } from "../../../src/domain/Incident.js"
import {
  listeningUrl,
  projectRoot,
  runCommand,
  type Service,
  startService,
  waitFor200
} from "../../support/ChildProcess.js"

/** The node flags of package.json's start script. */
const startFlags = (JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")).scripts.start as string)
  .split(" ").filter((part) => part.startsWith("--"))

export const adminEmail = "owner@backup.test"
const adminPassword = "a passphrase for the backup test"

/** Every service of these tests names the same public address: links in pages and feeds are compared. */
const publicUrl = "https://status.backup.test"

/**
 * Builds the server bundle `npm start` runs into `outdir` (under the project, two folders down,
 * as scripts/buildServer.ts requires), and beside it the command line bundled the same way,
 * `cli.mjs`: plain node starts it in a second where tsx takes ten on a busy machine, and these
 * tests run it a dozen times.
 */
export const buildBundle = async (outdir: string) => {
  const build = await runCommand("scripts/buildServer.ts", ["--outdir", outdir], {})
  expect(build.code, build.stderr).toBe(0)
  await esbuild.build({
    entryPoints: [join(projectRoot, "src/cli/main.ts")],
    outfile: join(outdir, "cli.mjs"),
    bundle: true,
    // Effect bundled, every other package imported from node_modules, as the server's bundle.
    plugins: [{
      name: "bundle-effect-only",
      setup: (build) =>
        build.onResolve(
          { filter: /^[^./]/ },
          ({ path }) => /^(effect|@effect\/)/.test(path) ? undefined : { path, external: true }
        )
    }],
    platform: "node",
    format: "esm",
    target: ["node20"],
    logLevel: "warning"
  })
}

/** `status-page …` from the bundle of `buildBundle`. */
export const statusPage = (outdir: string, args: ReadonlyArray<string>, env: Record<string, string>) =>
  runCommand(join(outdir, "cli.mjs"), args, env, { plainNode: true })

export interface Running {
  readonly base: string
  readonly service: Service
  /** SIGTERM, and the clean exit it must give. */
  readonly stop: () => Promise<void>
}

/** The service on `database` (`{ DATA_DIR }`, or `{ DATABASE_URL }`), its public side up. */
export const startDeployment = async (
  bundle: string,
  database: { readonly DATA_DIR: string } | { readonly DATABASE_URL: string },
  extra: Record<string, string> = {}
): Promise<Running> => {
  const service = startService(join(bundle, "main.mjs"), {
    PORT: "0",
    HOST: "127.0.0.1",
    PUBLIC_URL: publicUrl,
    DATABASE_URL: "",
    ADMIN_EMAIL: adminEmail,
    ADMIN_PASSWORD: adminPassword,
    ...database,
    ...extra
  }, { plainNode: true, nodeFlags: startFlags })
  const base = await listeningUrl(service, 60_000)
  await waitFor200(`${base}/readyz`, 60_000, service)
  await waitFor200(`${base}/api/v1/status`, 60_000, service)
  return {
    base,
    service,
    stop: async () => {
      service.child.kill("SIGTERM")
      expect(await service.exited, service.output()).toBe(0)
    }
  }
}

/** An owner's API key, made by the first administrator (ADMIN_EMAIL) signed in. */
export const ownerKey = async (base: string, name: string) => {
  const signIn = await fetch(`${base}/api/v1/auth/signin`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: adminEmail, password: adminPassword })
  })
  expect(signIn.status).toBe(200)
  const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!
  const created = await fetch(`${base}/api/v1/admin/api-keys`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie },
    body: JSON.stringify({ name })
  })
  expect(created.status).toBe(201)
  return (await created.json()).key as string
}

/** Runs `use` with the typed client of the service at `base`, as `key`. */
export const withApi = <A, E>(base: string, key: string, use: (client: StatusPageApiClient) => Effect.Effect<A, E>) =>
  Effect.runPromise(
    Effect.flatMap(makeStatusPageClient({ baseUrl: base, apiKey: key }), use).pipe(
      Effect.provide(FetchHttpClient.layer)
    )
  )

/** An hour on the hour, `days` from now: maintenance that neither starts nor reminds during a test. */
const onTheHour = (days: number) =>
  DateTime.makeUnsafe(Math.floor((Date.now() + days * 86_400_000) / 3_600_000) * 3_600_000)

export interface Filled {
  readonly api: ComponentId
  /** The incident the write loop posts its updates to. */
  readonly incident: IncidentId
  readonly slug: string
}

/**
 * One of everything, through the API: the organization, groups, public and private components,
 * two paused monitors (an http one checking `target`, a push one), a second page, incidents with
 * updates (open, resolved, a draft), a repeating maintenance window days away, a template, an
 * active and an inactive webhook (both to `target`, which answers 200) and two subscribers.
 * Nothing in it changes by itself afterwards: the monitors are paused before anything else, and
 * the webhook's receiver takes every delivery. No component is ever in an outage, so every uptime
 * is 100 %: today's figure is computed up to the moment it is read (the aggregator's last run),
 * which two services started at different times would show differently.
 */
export const fill = (base: string, key: string, target: string): Promise<Filled> =>
  withApi(base, key, (client) =>
    Effect.gen(function*() {
      yield* client.organization.updateCurrent({ payload: { name: "Backup Test Org", timezone: "Europe/Berlin" } })
      const core = yield* client.componentGroups.create({ payload: { name: "Core", description: "What pays" } })
      const hidden = yield* client.componentGroups.create({ payload: { name: "Internal", isPublic: false } })
      const api = yield* client.components.create({ payload: { name: "API", groupId: core.id } })
      const database = yield* client.components.create({
        payload: { name: "Database", groupId: core.id, status: "degraded", description: "Primary and replica" }
      })
      const search = yield* client.components.create({ payload: { name: "Search" } })
      const builds = yield* client.components.create({
        payload: { name: "Builds", groupId: hidden.id, isPublic: false }
      })

      const http = yield* client.monitors.create({
        payload: { componentId: api.id, type: "http", url: target, intervalSeconds: 30 }
      })
      yield* client.monitors.pause({ params: { id: http.id } })
      const push = yield* client.monitors.create({ payload: { componentId: search.id, type: "push" } })
      yield* client.monitors.pause({ params: { id: push.id } })

      const slug = "partners"
      yield* client.statusPages.create({
        payload: {
          slug,
          title: "Partners",
          description: "What partners rely on",
          locale: "de",
          items: [{ type: "group", id: core.id }, { type: "component", id: search.id }]
        }
      })

      const open = yield* client.incidents.create({
        payload: {
          title: "Checkout errors",
          message: "Payments fail for some customers",
          componentIds: [api.id],
          componentStatuses: { [api.id]: "degraded" },
          severity: "major"
        }
      })
      yield* client.incidents.addUpdate({
        params: { id: open.id },
        payload: { status: "identified", message: "A bad deployment; rolling back" }
      })
      const resolved = yield* client.incidents.create({
        payload: { title: "Slow search", message: "Searches take seconds", componentIds: [search.id] }
      })
      yield* client.incidents.addUpdate({
        params: { id: resolved.id },
        payload: { status: "monitoring", message: "Fixed" }
      })
      yield* client.incidents.resolve({ params: { id: resolved.id }, payload: { restoreComponents: true } })
      yield* client.incidents.create({
        payload: { title: "Draft", message: "Not out yet", componentIds: [database.id], published: false }
      })

      yield* client.maintenance.create({
        payload: {
          title: "Database upgrade",
          description: "Read-only for an hour",
          scheduledStart: onTheHour(3),
          scheduledEnd: DateTime.add(onTheHour(3), { hours: 1 }),
          componentIds: [database.id],
          recurrence: { frequency: "weekly", interval: 1, count: 3 }
        }
      })
      yield* client.incidentTemplates.create({
        payload: {
          name: "Builds slow",
          title: "Builds are slow",
          message: "Queues are long",
          componentIds: [builds.id]
        }
      })
      yield* client.webhooks.create({ payload: { name: "Receiver", url: target, type: "generic" } })
      yield* client.webhooks.create({ payload: { name: "Chat", url: target, type: "chat_a", isActive: false } })
      return { api: ComponentId.make(api.id), incident: open.id, slug }
    }))

/** Subscribes `email` on the default page, in French, to two components. */
export const subscribe = async (base: string, email: string, componentIds: ReadonlyArray<string>) => {
  const answer = await fetch(`${base}/api/v1/subscribe`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, componentIds, locale: "fr" })
  })
  expect(answer.status).toBe(202)
}

/** Every item of an admin list, following its `Link` pages. */
const everyItem = async (base: string, key: string, path: string) => {
  const items: Array<unknown> = []
  for (let next: string | undefined = `${path}?limit=100`; next !== undefined;) {
    const answer: Response = await fetch(`${base}${next}`, { headers: { authorization: `Bearer ${key}` } })
    expect(answer.status, path).toBe(200)
    items.push(...(await answer.json()))
    next = /<([^>]+)>;\s*rel="next"/.exec(answer.headers.get("link") ?? "")?.[1]
  }
  return items
}

/** The admin lists a backup must bring back, as the API answers them. */
const adminLists = [
  "/api/v1/admin/components",
  "/api/v1/admin/component-groups",
  "/api/v1/admin/incidents",
  "/api/v1/admin/maintenance",
  "/api/v1/admin/monitors",
  "/api/v1/admin/webhooks",
  "/api/v1/admin/subscribers",
  "/api/v1/admin/pages",
  "/api/v1/admin/incident-templates"
]

/** What a reader sees at one address: the status and the body, as text. */
const publicRead = async (base: string, path: string) => {
  const answer = await fetch(`${base}${path}`)
  return { status: answer.status, contentType: answer.headers.get("content-type"), body: await answer.text() }
}

/**
 * Everything the deployment shows: each public surface (the page, its history, incident and
 * maintenance pages, badge, widget, feeds, the JSON reads, Statuspage's documents, and the same
 * under /p/<slug>/) and each admin list, with the organization.
 */
export const surfaces = async (base: string, key: string, filled: Filled) => {
  const incidents = (await everyItem(base, key, "/api/v1/admin/incidents")) as Array<{ id: string }>
  const windows = (await everyItem(base, key, "/api/v1/admin/maintenance")) as Array<{ id: string }>
  const pagePaths = [
    "/",
    "/history",
    "/badge.svg",
    "/widget.json",
    ...incidents.map((incident) => `/incidents/${incident.id}`),
    ...windows.map((window) => `/maintenance/${window.id}`),
    "/api/v1/status",
    "/api/v1/status/components",
    "/api/v1/status/uptime",
    `/api/v1/status/components/${filled.api}/response-times`,
    "/api/v1/status/incidents",
    ...incidents.map((incident) => `/api/v1/status/incidents/${incident.id}`),
    "/api/v1/status/maintenance",
    "/api/v1/status/rss",
    "/api/v1/status/atom",
    "/api/v2/summary.json",
    "/api/v2/status.json",
    "/api/v2/components.json",
    "/api/v2/incidents.json",
    "/api/v2/incidents/unresolved.json",
    "/api/v2/scheduled-maintenances.json",
    "/api/v2/scheduled-maintenances/upcoming.json",
    "/api/v2/scheduled-maintenances/active.json"
  ]
  const paths = [...pagePaths, ...pagePaths.map((path) => `/p/${filled.slug}${path}`)]
  const reads: Record<string, unknown> = {}
  for (const path of paths) reads[path] = await publicRead(base, path)
  for (const list of adminLists) reads[list] = await everyItem(base, key, list)
  const organization = await fetch(`${base}/api/v1/admin/org`, { headers: { authorization: `Bearer ${key}` } })
  reads["/api/v1/admin/org"] = await organization.json()
  return reads
}

/**
 * The reads of `copy` that differ from `original`'s, each with where the two part: a failure
 * that says what differs, not two pages of HTML.
 */
export const differences = (original: Record<string, unknown>, copy: Record<string, unknown>) =>
  [...new Set([...Object.keys(original), ...Object.keys(copy)])].flatMap((key) => {
    const [was, is] = [JSON.stringify(original[key]) ?? "(none)", JSON.stringify(copy[key]) ?? "(none)"]
    if (was === is) return []
    let at = 0
    while (at < was.length && was[at] === is[at]) at++
    const around = (text: string) => text.slice(Math.max(0, at - 100), at + 150)
    return [`${key}:\n  original …${around(was)}…\n  copy     …${around(is)}…`]
  })
