/**
 * An existing deployment moving to several status pages: a database migrated up to 0038 (the
 * schema before pages), holding what a deployment had (its organization's name, logo, colour and
 * zone, a group, public and private components, an open incident, a verified subscriber), then
 * the service started on it (which applies 0039 onwards). Its readers see the same page: one
 * default page, following the organization's profile, showing what was shown before; the
 * subscriber is that page's, in English.
 */
import { NodeServices } from "@effect/platform-node"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { expect, it } from "@effect/vitest"
import { Effect, FileSystem, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"

import { migrationsDirectory, sqlStatements } from "../../src/persistence/Migrations.js"
import { startLiveStack } from "../support/LiveStack.js"
import { freshDatabaseUrl } from "../support/TestDatabase.js"
import { ApiClient } from "../support/TestServer.js"

/** The last migration before status pages: the schema a deployment has today. */
const beforePages = 38

/**
 * The migrations of `migrations/` up to `beforePages`, each file's statements run one at a time
 * as the service's loader runs them (Migrations.ts splits them with `sqlStatements`).
 */
const migrationsBeforePages: PgMigrator.Loader<FileSystem.FileSystem> = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const files = (yield* fs.readDirectory(migrationsDirectory)).flatMap((file) => {
    const match = /^(\d+)_(.+)\.sql$/.exec(file)
    return match && Number(match[1]) <= beforePages ? [{ file, id: Number(match[1]), name: match[2]! }] : []
  })
  return yield* Effect.forEach(
    files.toSorted((a, b) => a.id - b.id),
    ({ file, id, name }) =>
      Effect.map(fs.readFileString(`${migrationsDirectory}/${file}`), (text): PgMigrator.ResolvedMigration => [
        id,
        name,
        Effect.succeed(
          Effect.flatMap(
            SqlClient.SqlClient,
            (sql) =>
              Effect.forEach(sqlStatements(text), (statement) => sql.unsafe(statement).unprepared, { discard: true })
          )
        )
      ])
  )
}).pipe(
  Effect.mapError((cause) => new PgMigrator.MigrationError({ kind: "BadState", message: String(cause) }))
)

/** What a deployment on today's schema holds, written as its service wrote it. */
const seed = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`insert into organizations (name, logo_url, brand_color, timezone)
    values ('Harbor Freight', 'https://cdn.example.com/harbor.png', '#0a7d5a', 'Asia/Tokyo')`
  const [group] = yield* sql<{ id: string }>`
    insert into component_groups (name, display_order) values ('Data stores', 1) returning id`
  const component = (name: string, order: number, groupId: string | null, isPublic = true, status = "operational") =>
    Effect.map(
      sql<{ id: string }>`insert into components (name, display_order, group_id, is_public, status)
        values (${name}, ${order}, ${groupId}, ${isPublic}, ${status}) returning id`,
      ([row]) => row!.id
    )
  const database = yield* component("Primary database", 1, group!.id)
  const website = yield* component("Website", 2, null)
  const search = yield* component("Search", 3, null, true, "degraded")
  const backOffice = yield* component("Back office", 4, null, false)
  const [incident] = yield* sql<{ id: string }>`
    insert into incidents (title, status, severity, chosen_public)
    values ('Search answers slowly', 'investigating', 'minor', true) returning id`
  yield* sql`insert into incident_components (incident_id, component_id) values (${incident!.id}, ${search})`
  yield* sql`insert into incident_updates (incident_id, status, message)
    values (${incident!.id}, 'investigating', 'We are looking into slow searches.')`
  const [subscriber] = yield* sql<{ id: string }>`
    insert into subscribers (email, unsubscribe_token, verified_at, all_components)
    values ('reader@example.com', 'an-unsubscribe-token', now(), false) returning id`
  // Mailed about Search only.
  yield* sql`insert into subscriber_components (subscriber_id, component_id) values (${subscriber!.id}, ${search})`
  return { database, website, search, backOffice, incident: incident!.id, subscriber: subscriber!.id }
})

/** The component and group names a status page shows (each a card's heading), in order. */
const shownNames = (page: string) => [...page.matchAll(/<h[34]>([^<]*)<\/h[34]>/g)].map((match) => match[1])

it.live("a deployment on today's schema shows the same page after the status pages' migration", () =>
  Effect.gen(function*() {
    const { url } = yield* freshDatabaseUrl
    const ids = yield* Effect.scoped(
      Effect.gen(function*() {
        const applied = yield* PgMigrator.run({ loader: migrationsBeforePages })
        expect(applied.at(-1)?.[0]).toBe(beforePages)
        const [pages] = yield* (yield* SqlClient.SqlClient)<{ exists: boolean }>`
          select to_regclass('status_pages') is not null as exists`
        expect(pages!.exists).toBe(false)
        return yield* seed
      }).pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
        Effect.provide([NodeServices.layer, Reactivity.layer])
      )
    )

    // The service starts on it and applies 0039 onwards.
    const stack = yield* Effect.acquireRelease(
      Effect.promise(() => startLiveStack({ DATABASE_URL: url })),
      (stack) => Effect.promise(() => stack.dispose())
    )
    const get = (path: string) =>
      Effect.promise(async () => {
        const response = await fetch(`${stack.baseUrl}${path}`)
        return { status: response.status, text: await response.text() }
      })
    const api = <A, E>(request: (client: Effect.Success<typeof ApiClient>) => Effect.Effect<A, E>) =>
      Effect.promise(() => stack.run(Effect.flatMap(ApiClient, request)))
    const shown = ["Data stores", "Primary database", "Website", "Search"]

    const root = yield* get("/")
    expect(root.status).toBe(200)
    const page = root.text
    expect(page).toContain("<html lang=\"en\"")
    expect(page).toContain("<title>Harbor Freight")
    expect(page).toContain("<img src=\"https://cdn.example.com/harbor.png\" alt=\"Harbor Freight\">")
    expect(page).toContain("--brand:#0a7d5a")
    // Groups first in their order, then the ungrouped components in theirs; the private one nowhere.
    expect(shownNames(page)).toEqual(shown)
    expect(page).not.toContain("Back office")
    expect(page).toContain("Search answers slowly")
    expect(page).toContain("We are looking into slow searches.")
    expect(page).toContain(`href="/incidents/${ids.incident}"`)
    // Times in the organization's zone.
    expect(page).toMatch(/<time datetime="[^"]+Z">[^<]*GMT\+9<\/time>/)

    const summary = JSON.parse((yield* get("/api/v1/status")).text)
    expect(summary.components.map((component: { id: string }) => component.id)).toEqual([
      ids.database,
      ids.website,
      ids.search
    ])
    expect(summary.groups.map((group: { name: string }) => group.name)).toEqual(["Data stores"])
    expect(summary.activeIncidents.map((incident: { id: string }) => incident.id)).toEqual([ids.incident])
    expect(summary.status).toBe("degraded")

    const pages = yield* api((client) => client.statusPages.list({ query: {} }))
    expect(pages).toHaveLength(1)
    const [defaultPage] = pages
    expect(defaultPage).toMatchObject({
      slug: "default",
      isDefault: true,
      items: null,
      title: null,
      logoUrl: null,
      brandColor: null,
      timeZone: null,
      domain: null,
      audience: "public",
      locale: "en"
    })

    const subscribers = yield* api((client) => client.subscribers.list({ query: {} }))
    expect(
      subscribers.map(({ componentIds, email, id, locale, pageId, verified }) => ({
        id,
        email,
        verified,
        componentIds,
        pageId,
        locale
      }))
    )
      .toEqual([{
        id: ids.subscriber,
        email: "reader@example.com",
        verified: true,
        componentIds: [ids.search],
        pageId: defaultPage!.id,
        locale: "en"
      }])

    const byslug = yield* get("/p/default/")
    expect(byslug.status).toBe(200)
    expect(shownNames(byslug.text)).toEqual(shown)
    expect(byslug.text).toContain("Search answers slowly")
    const pageJson = JSON.parse((yield* get("/p/default/api/v1/status")).text)
    expect(pageJson.components).toEqual(summary.components)

    // The page keeps following the organization's profile: a new name shows at once.
    const organization = yield* api((client) => client.organization.get())
    yield* api((client) =>
      client.organization.update({ params: { id: organization.id }, payload: { name: "Harbor Freight Lines" } })
    )
    yield* Effect.promise(() =>
      expect.poll(async () => (await (await fetch(`${stack.baseUrl}/`)).text()).includes("Harbor Freight Lines"))
        .toBe(true)
    )
  }).pipe(Effect.scoped))
